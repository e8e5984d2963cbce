import fc from 'fast-check';
import { articleInput } from '../../../shared/domain/article';
import { isBlank } from '../../../shared/domain/fields';
import { magazineInput } from '../../../shared/domain/magazine-input';
import { anyText, identifier } from './hostile-text';

/** Bodies of hostile requests (hostile.ts): valid ones to carry a defect elsewhere, and ones that break each row's body schema. */

/** What the hostile test seeds: magazines (two with articles), named here so that generated writes aim at them. */
export const SEEDED_IDS = ['alpha', 'beta-2', 'Gamma_3', '0x', 'with-articles', 'x'.repeat(64)] as const;
export const SEEDED_WITH_ARTICLES = ['with-articles', 'alpha'] as const;

/** A JSON value whose objects are lists of entries, so that a body can hold `__proto__` or a repeated key. */
export type Json =
  | string
  | number
  | boolean
  | null
  | Json[]
  | { readonly entries: readonly (readonly [string, Json])[] };

export const obj = (entries: Record<string, Json>): Json => ({ entries: Object.entries(entries) });

export const renderJson = (value: Json): string => {
  if (Array.isArray(value)) return `[${value.map(renderJson).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${value.entries.map(([key, inner]) => `${JSON.stringify(key)}:${renderJson(inner)}`).join(',')}}`;
  return JSON.stringify(value);
};

const now = () => Math.floor(Date.now() / 1000);

const validTitle = fc.oneof(
  fc.constantFrom('Modern Astronomy', 'Ünïcödé ☃', '日本の雑誌', '😀 Emoji', 'a'),
  fc.string({ minLength: 1, maxLength: 60 }).filter((t) => !isBlank(t)),
);

const validTag = fc.oneof(
  fc.constantFrom(obj({ name: 'News' }), obj({ name: 'Science' }), obj({ id: 'art-design', name: 'Art & Design' })),
  fc.tuple(identifier, fc.string({ minLength: 1, maxLength: 20 })).map(([id, name]) => obj({ id, name })),
);

const uniqueTags = fc.uniqueArray(validTag, {
  maxLength: 3,
  selector: (tag) => {
    const entries = (tag as { entries: [string, Json][] }).entries;
    const id = entries.find(([k]) => k === 'id')?.[1];
    return String(id ?? entries.find(([k]) => k === 'name')?.[1]).toLowerCase();
  },
});

export const validMagazine = (id: fc.Arbitrary<string | undefined>): fc.Arbitrary<Json> =>
  fc
    .record({
      id,
      title: validTitle,
      tags: fc.option(uniqueTags, { nil: undefined }),
      created: fc.option(fc.integer({ min: 0, max: now() }), { nil: undefined }),
    })
    .map(({ id: given, title, tags, created }) => ({
      entries: [
        ...(given === undefined ? [] : ([['id', given]] as const)),
        ['title', title],
        ...(tags === undefined ? [] : ([['tags', tags]] as const)),
        ...(created === undefined ? [] : ([['created', created]] as const)),
      ],
    }));

export const validArticle: fc.Arbitrary<Json> = fc
  .record({
    title: validTitle,
    author_first_name: fc.constantFrom('Ada', 'Émile', '李'),
    author_last_name: fc.constantFrom('Lovelace', 'Zola', 'O’Brien'),
    author_email: fc.constantFrom('ada@example.com', 'e.zola+news@example.org'),
    date: fc.constantFrom('2024-02-29', '1999-12-31'),
    text: fc.oneof(fc.constant('Comets are icy bodies.'), fc.string({ minLength: 1, maxLength: 200 })),
  })
  .filter((article) => !isBlank(article.text))
  .map((article) => obj(article));

const anyJson: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>(null, [], { entries: [] }),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  anyText(),
);

/** Values each field must refuse, by field name (the magazine's and the article's). */
const badValues: Record<string, readonly Json[]> = {
  id: [1, true, null, [], { entries: [] }, '', '-abc', '_x', 'a'.repeat(65), 'a b', 'é', 'a/b', 'a.b', '__proto__'],
  type: ['Magazine', 'article', '', 1, null, true, ['magazine']],
  title: [
    '',
    '   ',
    '\t\n',
    '\u200b',
    '\u0001\u0002',
    '\ufeff \u2060',
    'a'.repeat(257),
    'x'.repeat(5000),
    1,
    null,
    true,
    [],
    { entries: [] },
  ],
  tags: [
    'news',
    1,
    null,
    { entries: [] },
    [null],
    ['news'],
    [{ entries: [] }],
    [obj({ name: '' })],
    [obj({ name: 'a'.repeat(65) })],
    [obj({ name: 1 })],
    [obj({ name: 'x', extra: 1 })],
    [obj({ name: 'x', id: '-bad' })],
    [obj({ name: '!!!' })],
    [obj({ name: '—' })],
    [obj({ name: 'News' }), obj({ name: 'news' })],
    [obj({ id: 'same', name: 'A' }), obj({ id: 'same', name: 'B' })],
    Array.from({ length: 33 }, (_, i) => obj({ id: `t${i}`, name: `T${i}` })),
    [
      {
        entries: [
          ['name', 'x'],
          ['__proto__', { entries: [] }],
        ],
      },
    ],
  ],
  created: [-1, 1.5, 'abc', '', true, null, [], '1234567890123', '-5', 1e21, '1e3', now() + 3 * 86_400],
  author_first_name: ['', '  ', 'x'.repeat(129), 1, null],
  author_last_name: ['', '  ', 'x'.repeat(129), false, []],
  author_email: ['a', 'a@', '@b.cd', 'a@b', 'a b@c.de', `${'x'.repeat(250)}@b.cd`, 1, null],
  date: ['2023-02-29', '2024-13-01', '2024-1-1', '24-01-01', '2024-01-01T00:00:00Z', '', 20240101, null],
  text: ['', '   ', 'x'.repeat(100_001), 1, null],
};

const UNKNOWN_FIELDS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'subtitle',
  'date',
  'url',
  'magazine_id',
  'articles',
  'revision',
  'updated',
  'incarnation',
  'Title',
  '',
] as const;

export const MALFORMED = [
  '{',
  '{"title": }',
  "{'title': 'x'}",
  '{"title":"x",}',
  'NaN',
  '{"title":"x"}}',
  '[{"title":"x"},]',
  '\ufeff{"title":"x"',
  '{"title":"\\x41"}',
  'undefined',
] as const;

const fieldsOf = (schema: unknown) => Object.keys((schema as { entries: Record<string, unknown> }).entries);
const MAGAZINE_FIELDS = fieldsOf(magazineInput);
const ARTICLE_FIELDS = fieldsOf(articleInput);

const withEntry = (value: Json, key: string, inner: Json | undefined): Json => {
  const entries = (value as { entries: readonly (readonly [string, Json])[] }).entries.filter(([k]) => k !== key);
  return { entries: inner === undefined ? entries : [...entries, [key, inner]] };
};

/** A body of one object schema that breaks it: a bad value, a missing required field, an unknown field, or no object at all. */
const badObject = (valid: fc.Arbitrary<Json>, fields: readonly string[], required: readonly string[]) =>
  fc.oneof(
    fc
      .tuple(valid, fc.constantFrom(...fields))
      .chain(([base, field]) =>
        fc.constantFrom(...(badValues[field] ?? [null])).map((bad) => withEntry(base, field, bad)),
      ),
    fc.tuple(valid, fc.constantFrom(...required)).map(([base, field]) => withEntry(base, field, undefined)),
    fc.tuple(valid, fc.constantFrom(...UNKNOWN_FIELDS), anyJson).map(([base, field, value]) => ({
      entries: [...(base as { entries: readonly (readonly [string, Json])[] }).entries, [field, value] as const],
    })),
    fc.constantFrom<Json>(null, 1, 'magazine', [], true),
  );

export const badMagazine = badObject(validMagazine(fc.constant(undefined)), MAGAZINE_FIELDS, ['title']);
export const badArticle = badObject(validArticle, ARTICLE_FIELDS, ARTICLE_FIELDS);

export const deeplyNested = (depth: number) => `{"title":"x","extra":${'['.repeat(depth)}${']'.repeat(depth)}}`;

/** Just over the API's 1 MiB: refused before it is parsed. */
export const tooLarge = () => renderJson(obj({ title: 'x', pad: 'x'.repeat(1024 * 1024) }));
