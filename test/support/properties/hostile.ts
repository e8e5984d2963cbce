import fc from 'fast-check';
import { articleInput } from '../../../shared/domain/article';
import { magazineInput } from '../../../shared/domain/magazine';
import { resourceTakesLabels } from '../../../shared/operation/paths';
import type { Operation } from '../../../shared/operation/row';
import { allowedMethods, expandRoutes, type Route } from '../../../shared/routes/table';
import type { WireRequest } from './wire';

/**
 * Hostile requests, generated from the route table: every route (each prefix, each label, HEAD,
 * the 405 of every resource, the 404 catch-all) with odd path segments, query values at and past
 * their limits (taken from each row's query schema), repeated query keys, odd headers and header
 * names, and bad bodies for each row's body schema. A write (POST, PUT, DELETE, PATCH) always
 * carries a defect that must make the API refuse it, so that any change to what clients see is a
 * state change from a refused write, unless `mock` made it a rehearsal that touches nothing.
 */

export const routes: readonly Route[] = expandRoutes();

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

// ---------------------------------------------------------------------------------------------
// Text and percent-encoding

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** Percent-encodes the UTF-8 bytes of `text` (a lone surrogate becomes U+FFFD, as a client's encoder would make it). */
export const percentEncode = (text: string, keep: RegExp = UNRESERVED): string =>
  [...Buffer.from(text, 'utf8')]
    .map((byte) => {
      const char = String.fromCharCode(byte);
      return byte < 0x80 && keep.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    })
    .join('');

const safeDecode = (text: string) => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

const oddTexts = [
  '',
  ' ',
  '.',
  '..',
  '/',
  '\\',
  '%',
  '#',
  '?',
  '&',
  '=',
  ';',
  '~',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'prototype',
  'null',
  'undefined',
  'NaN',
  '-1',
  '0',
  '1e309',
  'é',
  'Ⅻ',
  '日本語',
  '😀',
  '\u0000',
  '\u202e',
  '\ufeff',
  '\ud800',
  "'; --",
  '<x/>',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template placeholder, sent as text on purpose.
  '${x}',
  '{id}',
  '../../etc/passwd',
  'a b',
  'a+b',
  'a'.repeat(65),
  'b'.repeat(1500),
] as const;

/** A string a client might send: printable, unicode of every plane, lone surrogates, controls, or an odd constant. */
export const anyText = (maxLength = 40): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...oddTexts) },
    { weight: 2, arbitrary: fc.string({ maxLength }) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength }) },
  );

const identifier = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_-]{0,20}$/);

/** How a text goes on the request line: percent-encoded, raw (only where the request line allows it), or with broken escapes. */
const encoded = (text: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 6, arbitrary: text.map((t) => percentEncode(t)) },
    { weight: 1, arbitrary: text.map((t) => percentEncode(t, /[A-Za-z0-9\-._~!$&'()*+,;=:@]/)) },
    { weight: 1, arbitrary: text.map((t) => percentEncode(percentEncode(t))) },
    { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%E0%A4', '%C0%AF', '%FF', 'a%', '%2', '%%41') },
  );

// ---------------------------------------------------------------------------------------------
// Paths

const segmentFor = (parameter: string): fc.Arbitrary<string> => {
  const aimed =
    parameter === 'articleId'
      ? fc.constantFrom(...SEEDED_IDS.map((id) => `${id}~abc~1`), 'alpha~x~0', 'alpha~x~99999999999', '~~', 'a~b')
      : parameter === 'tagId'
        ? fc.constantFrom('news', 'science', 'art-design', 'NEWS')
        : parameter === 'errorCode'
          ? fc.constantFrom('40001', '40402', '50301', '99999', '40001.html', '40402.html', 'index.html')
          : fc.constantFrom(...SEEDED_IDS);
  return fc.oneof(
    { weight: 4, arbitrary: aimed.map((id) => percentEncode(id)) },
    { weight: 2, arbitrary: identifier },
    { weight: 4, arbitrary: encoded(anyText()) },
  );
};

const proxyPath = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        'magazine',
        'magazines',
        'v2',
        'api',
        'v7',
        'tags',
        'articles',
        'documentation',
        'errors',
        'x.xml',
      ),
      encoded(anyText(12)),
    ),
    { minLength: 1, maxLength: 4 },
  )
  .map((segments) => `/${segments.join('/')}`);

const ROUTE_ROOTS = new Set(['', 'magazines', 'tags', 'articles', 'documentation', 'openapi.json', 'v1', 'api']);

/** A catch-all path kept off every route, so that a write sent there cannot land on an operation. */
const offTheRoutes = (path: string) =>
  ROUTE_ROOTS.has(
    safeDecode(path.split('/')[1] ?? '')
      .toLowerCase()
      .replace(/\.(json|xml)$/, ''),
  )
    ? `/not-a-route${path}`
    : path;

/** The request path of a route: parameters filled, a label (good or not) sometimes on a last parameter. */
const pathFor = (route: Route, labelled: boolean): fc.Arbitrary<string> => {
  if (route.resource === '/{proxy+}') return proxyPath;
  const names = [...route.resource.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((match) => match[1] ?? '');
  if (names.length === 0) return fc.constant(route.resource);
  const label = labelled
    ? fc.option(fc.constantFrom('.json', '.xml', '.XML', '.yaml', '.html', '.json.xml', '.'), { nil: '' })
    : fc.constant('');
  return fc.tuple(fc.tuple(...names.map(segmentFor)), label).map(([values, suffix]) => {
    let i = 0;
    const path = route.resource.replace(/\{[A-Za-z0-9_]+\}/g, () => values[i++] ?? '');
    return route.resource.endsWith('}') ? `${path}${suffix}` : path;
  });
};

// ---------------------------------------------------------------------------------------------
// Query

const schemaKeys = (operation: Operation | undefined): string[] =>
  operation?.query ? Object.keys(operation.query.entries) : [];

const queryValues: Record<string, readonly string[]> = {
  offset: ['0', '1', '3', '25', '99999', '-1', '1.5', 'abc', '', ' 1', '01', '1e3', '9999999999999999', '0x1f', '١'],
  limit: ['1', '2', '25', '100', '0', '101', '-5', 'abc', '', '1.0', '99999999999999999999', '+5'],
  sort: ['asc', 'desc', 'ASC', 'Desc', 'up', '', 'asc,desc'],
  cursor: [
    '',
    'abc',
    '0.AAAA.BBBB',
    '1.MDAwMDAwMDAwMDAwI2FscGhh.AAAAAAAAAAAAAAAA',
    '25.MDAwMDAwMDAwMDAwI2FscGhh.aaaaaaaaaaaaaaaa',
    '99999999999999999.a.b',
    'x'.repeat(1025),
    '-1.a.b',
  ],
  year: ['2024', '2019', '1970', '0000', '9999', '24', '20245', 'abcd', '-001', '', '2024 '],
  tag: ['news', 'science', 'art-design', 'NEWS', 'a'.repeat(65), '-x', '', 'a b', '__proto__', 'constructor', 'é'],
  fields: ['title', 'title,tags', 'id,subtitle,date', '__proto__', 'constructor,toString', ',,,', '', ' title , tags '],
  format: ['json', 'xml', 'JSON', 'Xml', 'yaml', '', 'json,xml'],
  mock: ['True', 'true', '1', '', 'False', '0', 'false', 'maybe', 'TRUE'],
};

const NOISE_KEYS = [
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'prototype',
  'x',
  'a[b]',
  'offset[]',
  '',
  'Offset',
  'LIMIT',
] as const;

export type QueryPair = readonly [string, string];

const pairFor = (keys: readonly string[]): fc.Arbitrary<QueryPair> =>
  fc.oneof(
    {
      weight: 5,
      arbitrary: fc
        .constantFrom(...keys)
        .chain((key) =>
          fc.tuple(fc.constant(key), fc.oneof(fc.constantFrom(...(queryValues[key] ?? [''])), anyText())),
        ),
    },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...NOISE_KEYS), anyText(12)) },
  );

const renderQuery = (pairs: readonly QueryPair[], style: 'encoded' | 'raw' | 'bare') =>
  pairs.length === 0
    ? ''
    : `?${pairs
        .map(([key, value]) => {
          if (style === 'bare' && value === '') return percentEncode(key);
          if (style === 'raw')
            return `${percentEncode(key, /[A-Za-z0-9\-._~!$'()*+,;:@[\]]/)}=${percentEncode(value, /[A-Za-z0-9\-._~!$'()*+,;:@/?]/)}`;
          return `${percentEncode(key)}=${percentEncode(value)}`;
        })
        .join('&')}`;

// ---------------------------------------------------------------------------------------------
// Headers

export const SPEC_ACCEPT = 'application/json, text/javascript';

const ACCEPTS = [
  SPEC_ACCEPT,
  'application/json',
  'application/xml',
  'text/xml',
  '*/*',
  'text/*',
  'application/*',
  'application/xml;q=0.9, application/json;q=0.1',
  'application/json;q=0',
  'application/json;q=abc, application/xml',
  'text/html',
  'image/png',
  '',
  ',,,',
  ';;;',
  '*/*;q=0',
  'application/json;q=0.5;q=0.9',
  'x'.repeat(2000),
] as const;

/** The format an Accept header of the list above asks for, where that is plain; undefined where it takes a careful reading. */
const ACCEPTED: Record<string, 'json' | 'xml' | 'none'> = {
  [SPEC_ACCEPT]: 'json',
  'application/json': 'json',
  'application/xml': 'xml',
  'text/xml': 'xml',
  '*/*': 'json',
  'application/xml;q=0.9, application/json;q=0.1': 'xml',
  'text/html': 'none',
  'image/png': 'none',
};

/** Accept headers that admit no format of the API: a write carrying one (and no label or `format`) is refused with 406. */
const UNACCEPTABLE = ['text/html', 'image/png', 'application/pdf', 'application/json;q=0', '*/*;q=0'] as const;

const ODD_HEADER_NAMES = [
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'X-HTTP-Method-Override',
  'X-Amz-Target',
  'Authorization',
  'X-Forwarded-Host',
  'Forwarded',
  'Origin',
  'Cookie',
  'ACCEPT',
] as const;

/** Header values Node will send: tab, printable ASCII and Latin-1. */
const headerValue = (maxLength = 40) =>
  fc.oneof(
    fc.string({ maxLength }).map((s) => s.replace(/[^\t\x20-\x7e]/g, '')),
    fc.string({
      unit: fc.integer({ min: 0x20, max: 0xff }).map((c) => String.fromCharCode(c === 0x7f ? 0x7e : c)),
      maxLength,
    }),
    fc.constantFrom('', ' ', '*', '"x"', 'W/"x"', 'null', '__proto__', 'Thu, 01 Jan 1970 00:00:00 GMT'),
  );

const noiseHeaders = (method: string): fc.Arbitrary<[string, string][]> =>
  fc.array(
    fc.oneof(
      fc.tuple(fc.constantFrom(...ODD_HEADER_NAMES), headerValue()),
      ...(method === 'GET' || method === 'HEAD'
        ? [
            fc.tuple(
              fc.constantFrom('If-None-Match', 'If-Modified-Since'),
              fc.constantFrom(
                '*',
                '"x"',
                'W/"x"',
                '',
                'garbage',
                'Thu, 01 Jan 1970 00:00:00 GMT',
                'Sat, 31 Dec 9999 23:59:59 GMT',
                'not a date',
              ),
            ),
          ]
        : []),
    ),
    { maxLength: 3 },
  );

// ---------------------------------------------------------------------------------------------
// Bodies

const now = () => Math.floor(Date.now() / 1000);

const validTitle = fc.oneof(
  fc.constantFrom('Modern Astronomy', 'Ünïcödé ☃', '日本の雑誌', '😀 Emoji', 'a'),
  fc.string({ minLength: 1, maxLength: 60 }).filter((t) => t.trim().length > 0),
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
  .filter((article) => article.text.trim().length > 0)
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
  title: ['', '   ', '\t\n', 'a'.repeat(257), 'x'.repeat(5000), 1, null, true, [], { entries: [] }],
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

const MALFORMED = [
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

const badMagazine = badObject(validMagazine(fc.constant(undefined)), MAGAZINE_FIELDS, ['title']);
const badArticle = badObject(validArticle, ARTICLE_FIELDS, ARTICLE_FIELDS);

const deeplyNested = (depth: number) => `{"title":"x","extra":${'['.repeat(depth)}${']'.repeat(depth)}}`;

/** Just over the API's 1 MiB: refused before it is parsed. */
const tooLarge = () => renderJson(obj({ title: 'x', pad: 'x'.repeat(1024 * 1024) }));

// ---------------------------------------------------------------------------------------------
// Writes and their defects

export type Defect =
  | 'body'
  | 'malformed'
  | 'empty'
  | 'deep'
  | 'contentType'
  | 'idempotencyKey'
  | 'existingId'
  | 'ifMatch'
  | 'pathId'
  | 'idMismatch'
  | 'unknownId'
  | 'tooLarge'
  | 'unacceptable'
  | 'method';

const BAD_CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'text/json',
  'application/jsonx',
  '*/*',
  'json',
] as const;

const JSON_CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'text/javascript',
  'application/merge-patch+json',
  'APPLICATION/JSON',
] as const;

const BAD_KEYS = ['', '   ', 'k'.repeat(256), 'clé', 'a\tb', '\xff\xfe'] as const;
const BOGUS_ETAGS = ['"nope"', 'W/"nope"', '"', '""', ',', '', '"a", "b"', `"${'x'.repeat(300)}"`, 'alpha'] as const;

export interface HostileCase {
  readonly request: WireRequest;
  /** The route the request was made for (a path with odd segments may still land on the 404). */
  readonly resource: string;
  /** The defect that must get a write refused; undefined for reads. */
  readonly defect: Defect | undefined;
}

const isWrite = (method: string) => ['POST', 'PUT', 'DELETE', 'PATCH'].includes(method);

const defectsOf = (route: Route, method: string): Defect[] => {
  const operation = route.operation;
  if (!operation || route.method === 'ANY' || operation.method !== method) return ['method'];
  const labelled = /\.(json|xml)$/.test(route.resource);
  const negotiable: Defect[] = labelled ? [] : ['unacceptable'];
  const withBody: Defect[] = ['body', 'malformed', 'empty', 'deep', 'contentType', 'tooLarge'];
  switch (operation.id) {
    case 'createMagazine':
      return [...withBody, 'idempotencyKey', 'existingId', ...negotiable];
    case 'replaceMagazine':
      return [...withBody, 'ifMatch', 'pathId', 'idMismatch', ...negotiable];
    case 'deleteMagazine':
      return ['ifMatch', 'unknownId', 'pathId', ...negotiable];
    case 'replaceAllMagazines':
      return [...withBody, 'ifMatch', ...negotiable];
    case 'deleteAllMagazines':
      return ['ifMatch', ...negotiable];
    case 'createArticle':
      return [...withBody, 'idempotencyKey', 'unknownId', 'pathId', ...negotiable];
    default:
      return ['method'];
  }
};

const validBodyFor = (operation: Operation | undefined, pathId: string | undefined): fc.Arbitrary<Json> => {
  switch (operation?.id) {
    case 'createMagazine':
      return validMagazine(fc.option(fc.constantFrom('hostile-new', 'zz9'), { nil: undefined }));
    case 'replaceMagazine':
      return validMagazine(fc.option(fc.constant(pathId ?? 'x'), { nil: undefined }));
    case 'replaceAllMagazines':
      return fc
        .uniqueArray(identifier, { maxLength: 3 })
        .chain((ids) => fc.tuple(...ids.map((id) => validMagazine(fc.constant(id)))))
        .map((list) => list as Json[]);
    case 'createArticle':
      return validArticle;
    default:
      return fc.constant(obj({}));
  }
};

const badBodyFor = (operation: Operation | undefined): fc.Arbitrary<Json> => {
  switch (operation?.id) {
    case 'createArticle':
      return badArticle;
    case 'replaceAllMagazines':
      return fc.oneof(
        fc.constantFrom<Json>(obj({ title: 'x' }), null, 'x', 1),
        fc
          .tuple(fc.array(validMagazine(identifier), { maxLength: 2 }), badMagazine)
          .map(([good, bad]) => [...good, bad]),
        validMagazine(fc.constant('twice')).map((m) => [m, m]),
      );
    default:
      return badMagazine;
  }
};

interface Parts {
  path: string;
  query: readonly QueryPair[];
  queryStyle: 'encoded' | 'raw' | 'bare';
  accept: string | undefined;
  noise: [string, string][];
}

/** A write aimed at a seeded magazine (or at none), with exactly the parts its defect needs. */
const writeCase = (route: Route, method: string, parts: Parts): fc.Arbitrary<HostileCase> =>
  fc.constantFrom(...defectsOf(route, method)).chain((defect) => {
    const operation = route.operation;
    const idInPath = /\{id\}/.test(route.resource);
    const target = idInPath
      ? defect === 'pathId'
        ? fc.constantFrom('-x', '_x', 'a'.repeat(65), 'a.b', 'é', '__proto__', '%zz', ' ')
        : defect === 'unknownId'
          ? fc.constantFrom('no-such', 'ghost-1')
          : fc.constantFrom(...SEEDED_IDS)
      : fc.constant(undefined);
    return target.chain((id) => {
      const path =
        id === undefined ? parts.path : route.resource.replace('{id}', id === '%zz' ? id : percentEncode(id));
      const body: fc.Arbitrary<string | undefined> = !operation?.body
        ? fc.constant(undefined)
        : defect === 'body'
          ? badBodyFor(operation).map(renderJson)
          : defect === 'malformed'
            ? fc.constantFrom(...MALFORMED)
            : defect === 'empty'
              ? fc.constantFrom('', '   ', '\n')
              : defect === 'deep'
                ? fc.integer({ min: 100, max: 20_000 }).map(deeplyNested)
                : defect === 'tooLarge'
                  ? fc.constant(tooLarge())
                  : defect === 'existingId'
                    ? fc
                        .constantFrom(...SEEDED_IDS)
                        .chain((seeded) => validMagazine(fc.constant(seeded)).map(renderJson))
                    : defect === 'idMismatch'
                      ? validMagazine(fc.constant('someone-else')).map(renderJson)
                      : validBodyFor(operation, id).map(renderJson);
      const contentType: fc.Arbitrary<string | undefined> =
        body === undefined || !operation?.body
          ? fc.constant(undefined)
          : defect === 'contentType'
            ? fc.constantFrom(...BAD_CONTENT_TYPES)
            : fc.option(fc.constantFrom(...JSON_CONTENT_TYPES), { nil: undefined });
      const key: fc.Arbitrary<string | undefined> = !operation?.idempotent
        ? fc.constant(undefined)
        : defect === 'idempotencyKey'
          ? fc.constantFrom(...BAD_KEYS)
          : fc.option(fc.uuid(), { nil: undefined });
      const ifMatch = defect === 'ifMatch' ? fc.constantFrom(...BOGUS_ETAGS) : fc.constant(undefined);
      const accept = defect === 'unacceptable' ? fc.constantFrom(...UNACCEPTABLE) : fc.constant(parts.accept);
      return fc.record({ body, contentType, key, ifMatch, accept }).map((chosen): HostileCase => {
        // A `format` would choose the format that an unacceptable Accept leaves none of.
        const query = defect === 'unacceptable' ? parts.query.filter(([k]) => k !== 'format') : parts.query;
        const headers: [string, string][] = [
          ...(chosen.accept === undefined ? [] : [['Accept', chosen.accept] as [string, string]]),
          ...(chosen.contentType === undefined ? [] : [['Content-Type', chosen.contentType] as [string, string]]),
          ...(chosen.key === undefined ? [] : [['Idempotency-Key', chosen.key] as [string, string]]),
          ...(chosen.ifMatch === undefined ? [] : [['If-Match', chosen.ifMatch] as [string, string]]),
          ...parts.noise.filter(([name]) => !/^(accept|content-type|if-match|idempotency-key)$/i.test(name)),
        ];
        return {
          request: {
            method,
            path: `${path}${renderQuery(query, parts.queryStyle)}`,
            headers,
            ...(chosen.body !== undefined && { body: chosen.body }),
          },
          resource: route.resource,
          defect,
        };
      });
    });
  });

const methodsFor = (route: Route): readonly string[] => {
  if (route.resource === '/{proxy+}') return ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];
  if (route.method !== 'ANY') return [route.method];
  const allowed = allowedMethods(route.resource);
  return ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'].filter(
    (method) => !allowed.includes(method as never),
  );
};

/** A hostile request for one route of the table. */
const caseFor = (route: Route): fc.Arbitrary<HostileCase> => {
  const methods = methodsFor(route);
  const keys = [...schemaKeys(route.operation), 'format', 'mock'];
  return fc.constantFrom(...(methods.length > 0 ? methods : ['PATCH'])).chain((method) =>
    fc
      .record({
        path: pathFor(route, !isWrite(method)).map((path) =>
          route.resource === '/{proxy+}' && isWrite(method) ? offTheRoutes(path) : path,
        ),
        query: fc.array(pairFor(keys), { maxLength: 5 }),
        queryStyle: fc.constantFrom<'encoded' | 'raw' | 'bare'>('encoded', 'encoded', 'raw', 'bare'),
        accept: fc.option(fc.constantFrom(...ACCEPTS), { nil: undefined }),
        noise: noiseHeaders(method),
      })
      .chain((parts) => {
        if (isWrite(method)) return writeCase(route, method, parts);
        const headers: [string, string][] = [
          ...(parts.accept === undefined ? [] : [['Accept', parts.accept] as [string, string]]),
          ...parts.noise,
        ];
        return fc.constant<HostileCase>({
          request: { method, path: `${parts.path}${renderQuery(parts.query, parts.queryStyle)}`, headers },
          resource: route.resource,
          defect: undefined,
        });
      }),
  );
};

/** Every route of the table is drawn alike. */
export const hostileCase: fc.Arbitrary<HostileCase> = fc
  .integer({ min: 0, max: routes.length - 1 })
  .chain((index) => caseFor(routes[index] as Route));

// ---------------------------------------------------------------------------------------------
// What a client may conclude from the request alone

const lastQueryValue = (path: string, name: string): string | undefined => {
  const search = path.includes('?') ? path.slice(path.indexOf('?') + 1) : '';
  let found: string | undefined;
  for (const pair of search.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const key = safeDecode(equals === -1 ? pair : pair.slice(0, equals));
    if (key === name) found = equals === -1 ? '' : safeDecode(pair.slice(equals + 1));
  }
  return found;
};

/** Whether `mock` turned the request into a rehearsal (a write then touches nothing, whatever it answers). */
export const isMock = (request: WireRequest): boolean => {
  const value = lastQueryValue(request.path, 'mock');
  return value !== undefined && (value === '' || value === '1' || value.toLowerCase() === 'true');
};

/**
 * The format the error of this request must come in, where the rules leave no doubt: the label
 * decides, else `format`, else a plain `Accept`, else JSON; a label or `format` that is no format
 * gets a 406 in JSON, as do documents' errors. Undefined where it takes a careful reading.
 */
export const negotiatedFormat = (request: WireRequest, resource: string): 'json' | 'xml' | undefined => {
  const path = request.path.split('?')[0] ?? '';
  const isDocument = !resourceTakesLabels(resource);
  const operationDocument = isDocument && !/\{proxy\+\}/.test(resource);
  if (operationDocument && (request.method === 'GET' || request.method === 'HEAD')) return 'json';
  let label: string | undefined;
  if (resource === '/{proxy+}') {
    const found = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase();
    label = found === 'json' || found === 'xml' ? found : undefined;
  } else if (!isDocument && resource.endsWith('}')) {
    const last = safeDecode(path.slice(path.lastIndexOf('/') + 1));
    label = /\.([A-Za-z0-9]+)$/.exec(last)?.[1];
  } else if (!isDocument) {
    label = /\.(json|xml)$/.exec(resource)?.[1];
  }
  const known = (value: string) => {
    const lower = value.toLowerCase();
    return lower === 'json' || lower === 'xml' ? lower : 'json';
  };
  if (label !== undefined) return known(label);
  const format = lastQueryValue(request.path, 'format');
  if (format !== undefined) return known(format);
  const accepts = (request.headers ?? []).filter(([name]) => name.toLowerCase() === 'accept');
  if (accepts.length === 0) return 'json';
  if (accepts.length > 1) return undefined;
  const accepted = ACCEPTED[accepts[0]?.[1] ?? ''];
  return accepted === 'none' ? 'json' : accepted;
};

export const isWriteRequest = (request: WireRequest) => isWrite(request.method);
