import { describe, expect, it } from 'vitest';
import { articleInput } from '../../../shared/domain/article';
import { magazineInput, magazineListInput } from '../../../shared/domain/magazine-input';
import { ApiError } from '../../../shared/http/errors';
import { magazineListQuery } from '../../../shared/http/query';
import { parseWith } from '../../../shared/http/validation';

/** The error a value gets from a schema, as the client reads it. */
const refusal = (schema: Parameters<typeof parseWith>[0], value: unknown, where: 'body' | 'query' = 'body') => {
  try {
    parseWith(schema, value, where);
  } catch (error) {
    if (error instanceof ApiError) return { errorCode: error.code, developerMessage: error.message };
    throw error;
  }
  throw new Error('The value was accepted.');
};

describe('validation messages name the field and what it accepts', () => {
  it('a missing field says what it requires, in its own words', () => {
    expect(refusal(magazineInput, {})).toEqual({
      errorCode: '40001',
      developerMessage: 'Body field `title` is required: a string of 1 to 256 characters.',
    });
    expect(refusal(magazineListInput, [{ title: 'a' }, {}]).developerMessage).toBe(
      'Body field `[1].title` is required: a string of 1 to 256 characters.',
    );
    expect(refusal(articleInput, { title: 'a' }).developerMessage).toBe(
      'Body field `author_first_name` is required: a string of 1 to 128 characters.',
    );
    expect(refusal(magazineInput, { title: 'a', tags: [{}] }).developerMessage).toBe(
      'Body field `tags[0].name` is required: a string of 1 to 64 characters.',
    );
  });

  it('every unknown field is named at once, with its path', () => {
    expect(refusal(magazineInput, { title: 'a', foo: 1, bar: 2 })).toEqual({
      errorCode: '40002',
      developerMessage:
        'The request body has fields this resource does not have: `foo`, `bar`. Remove them or correct the spelling.',
    });
    expect(refusal(magazineInput, { title: 'a', tags: [{ name: 'x', colour: 'red' }] }).developerMessage).toBe(
      'The request body has a field this resource does not have: `tags[0].colour`. Remove it or correct the spelling.',
    );
  });

  it('an array where an object belongs is told that an object belongs there', () => {
    expect(refusal(magazineInput, [{ title: 'a' }]).developerMessage).toBe(
      'The request body must be a JSON object describing a magazine.',
    );
    expect(refusal(magazineInput, []).developerMessage).toBe(
      'The request body must be a JSON object describing a magazine.',
    );
    expect(refusal(magazineInput, { title: 'a', tags: [[{ name: 'x' }]] }).developerMessage).toBe(
      'Body field `tags[0]` must be an object `{"id"?, "name"}`.',
    );
    expect(refusal(magazineListInput, [{ title: 'a' }, [{ title: 'b' }]]).developerMessage).toBe(
      'Body field `[1]` must be a JSON object describing a magazine.',
    );
  });

  it('a union reports the branch whose type the value has', () => {
    const rule = 'must be seconds since the Unix epoch, as a string of up to 12 digits or a non-negative integer';
    for (const created of [true, -1, 1.5, 'soon'])
      expect(refusal(magazineInput, { title: 'a', created }).developerMessage).toBe(`Body field \`created\` ${rule}.`);
    expect(refusal(magazineInput, { title: 'a', created: '99999999999' }).developerMessage).toBe(
      'Body field `created` must not be more than a day in the future.',
    );
  });

  it('query parameters: defaults, transforms and bounds', () => {
    expect(parseWith(magazineListQuery(), {}, 'query')).toEqual({ limit: 25, sort: 'asc' });
    expect(parseWith(magazineListQuery(), { fields: 'title, tags', year: '2024', offset: '5' }, 'query')).toEqual({
      offset: 5,
      limit: 25,
      sort: 'asc',
      year: 2024,
      fields: ['title', 'tags'],
    });
    expect(refusal(magazineListQuery(), { limit: '101' }, 'query')).toEqual({
      errorCode: '40004',
      developerMessage: 'Query parameter `limit` must be an integer from 1 to 100.',
    });
    expect(refusal(magazineListQuery(), { year: '99' }, 'query').developerMessage).toBe(
      'Query parameter `year` must be a year of four digits, 1000 to 9999, such as `2024`.',
    );
  });

  it('lengths count characters as JSON Schema does (code points), not UTF-16 units', () => {
    const emoji = '\u{1F600}';
    expect(parseWith(magazineInput, { title: emoji.repeat(256) }, 'body').title).toBe(emoji.repeat(256));
    expect(refusal(magazineInput, { title: emoji.repeat(257) }).developerMessage).toBe(
      'Body field `title` must be a string of 1 to 256 characters.',
    );
    expect(
      parseWith(magazineInput, { title: 'a', tags: [{ name: '\u{1D54F}'.repeat(64) }] }, 'body').tags,
    ).toHaveLength(1);
    const article = {
      title: 't',
      author_first_name: emoji.repeat(128),
      author_last_name: 'L',
      author_email: 'ada@example.com',
      date: '2024-02-29',
      text: emoji.repeat(60_000),
    };
    expect(parseWith(articleInput, article, 'body').author_first_name).toBe(emoji.repeat(128));
    expect(
      refusal(articleInput, { ...article, author_email: `${emoji.repeat(130)}@example.com` }).developerMessage,
    ).toBe('Body field `author_email` must be an e-mail address such as `ada@example.com`.');
  });

  it('a field named like what every object inherits is still an unknown field', () => {
    expect(refusal(magazineInput, { title: 'a', constructor: 1 }).developerMessage).toBe(
      'The request body has a field this resource does not have: `constructor`. Remove it or correct the spelling.',
    );
    expect(refusal(magazineInput, { title: 'a', toString: 1, foo: 2 }).developerMessage).toBe(
      'The request body has fields this resource does not have: `toString`, `foo`. Remove them or correct the spelling.',
    );
    expect(refusal(magazineInput, { title: 'a', tags: [{ name: 'x', valueOf: 1 }] }).developerMessage).toBe(
      'The request body has a field this resource does not have: `tags[0].valueOf`. Remove it or correct the spelling.',
    );
  });

  it('too many tags is said before anything about the tags themselves', () => {
    const tooMany = 'Body field `tags` must be an array of at most 32 tags.';
    const tags = Array.from({ length: 33 }, (_, n) => ({ name: `t${n}` }));
    expect(refusal(magazineInput, { title: 'a', tags: [{ name: '' }, ...tags.slice(1)] })).toEqual({
      errorCode: '40001',
      developerMessage: tooMany,
    });
    expect(refusal(magazineInput, { title: 'a', tags: Array.from({ length: 33 }, () => []) }).developerMessage).toBe(
      tooMany,
    );
    expect(refusal(magazineInput, { title: 'a', tags: [...tags.slice(1), { name: 'x', bad: 1 }] })).toEqual({
      errorCode: '40001',
      developerMessage: tooMany,
    });
    // A field before `tags` that is wrong is still named first, as fields are checked in order.
    expect(refusal(magazineInput, { title: '', tags }).developerMessage).toBe(
      'Body field `title` must be a string of 1 to 256 characters.',
    );
  });

  it('a `created` beyond the safe integers says what `created` accepts', () => {
    expect(refusal(magazineInput, { title: 'a', created: 1e16 }).developerMessage).toBe(
      'Body field `created` must be seconds since the Unix epoch, as a string of up to 12 digits or a non-negative integer.',
    );
  });
});

describe('body text that is not Unicode is refused (40015) naming the field, before the schema speaks', () => {
  const surrogate =
    'holds an unpaired UTF-16 surrogate (a code unit from U+D800 to U+DFFF without its partner, such as the JSON escape `\\udfff` alone); it must be valid Unicode text.';
  const lone = (json: string): unknown => JSON.parse(json);

  it.each([
    ['a tag name', magazineInput, '{"title":"a","tags":[{"id":"lone","name":"\\udfff"}]}', 'Body field `tags[0].name`'],
    ['a tag id', magazineInput, '{"title":"a","tags":[{"id":"x\\ud800","name":"n"}]}', 'Body field `tags[0].id`'],
    ['a title', magazineInput, '{"title":"half \\ud83d of a face"}', 'Body field `title`'],
    ['an id', magazineInput, '{"id":"\\udfff","title":"a"}', 'Body field `id`'],
    ['created as a string', magazineInput, '{"title":"a","created":"17\\udfff"}', 'Body field `created`'],
    [
      'an element of PUT /magazines',
      magazineListInput,
      '[{"title":"a"},{"title":"\\udfff"}]',
      'Body field `[1].title`',
    ],
    ['an element that is a string', magazineListInput, '[{"title":"a"},"\\udfff"]', 'Body field `[1]`'],
    ['an article field', articleInput, '{"author_last_name":"\\udfff"}', 'Body field `author_last_name`'],
    ['a whole body that is a string', magazineInput, '"\\udfff"', 'The request body'],
    ['a field name', magazineInput, '{"title":"a","\\udfff":1}', 'A field name of the request body'],
    [
      'a nested field name',
      magazineInput,
      '{"title":"a","tags":[{"name":"n","\\udfff":1}]}',
      'A field name in body field `tags[0]`',
    ],
  ])('%s', (_, schema, json, place) => {
    expect(refusal(schema, lone(json))).toEqual({ errorCode: '40015', developerMessage: `${place} ${surrogate}` });
  });

  it('a lone half of a pair is refused; the pair itself is taken', () => {
    expect(refusal(magazineInput, { title: '\ud83d' }).errorCode).toBe('40015');
    expect(parseWith(magazineInput, { title: '\ud83d\ude00' }, 'body').title).toBe('😀');
  });
});
