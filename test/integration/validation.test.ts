import { deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  APPLICATION_JSON_TYPE,
  articleBody,
  expectError,
  expectTableUnchanged,
  type MagazineView,
  magazineBody,
  nowSeconds,
  uniqueId,
  useLocalApi,
} from './expect-api';

let magazineId: string;

const local = useLocalApi(undefined, async () => {
  magazineId = uniqueId('host');
  expect((await local.client.post('/magazines', magazineBody({ id: magazineId }))).status).toBe(201);
});

const refused = async (method: 'POST' | 'PUT', path: string, body: unknown, mentions: string[]) => {
  const response = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
    local.client.request(method, path, { json: body }),
  );
  expectError(response, { status: 400, baseUrl: local.api.baseUrl, mentions });
};

const tags = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `t${i}`, name: `Tag ${i}` }));

/** For each field of a magazine, values it must refuse; `mentions` is what developerMessage must name. */
const badMagazines: [string, Record<string, unknown>, string[]][] = [
  ['id with a space', { id: 'bad id' }, ['id']],
  ['id starting with -', { id: '-dash' }, ['id']],
  ['id of 65 characters', { id: 'a'.repeat(65) }, ['id']],
  ['id as a number', { id: 42 }, ['id']],
  ['type other than magazine', { type: 'article' }, ['type']],
  ['title missing', { title: undefined }, ['title']],
  ['title empty', { title: '' }, ['title']],
  ['title only white space', { title: '   ' }, ['title']],
  ['title only a zero-width space', { title: '\u200b' }, ['title', 'only white space, control or invisible']],
  ['title only control characters', { title: '\u0001\u0002' }, ['title']],
  ['title only invisible characters', { title: ' \u200c\u200d\u2060\ufeff\u00ad' }, ['title']],
  ['title only a braille blank and an annotation mark', { title: '\u2800\ufff9' }, ['title']],
  ['title of 257 characters', { title: 't'.repeat(257) }, ['title']],
  ['title as a number', { title: 7 }, ['title']],
  ['tags not an array', { tags: 'science' }, ['tags']],
  ['33 tags', { tags: tags(33) }, ['tags']],
  ['tags[].id invalid', { tags: [{ id: 'no spaces', name: 'Fine' }] }, ['tags[0].id']],
  ['tags[].name missing', { tags: [{ id: 'fine' }] }, ['tags[0].name']],
  ['tags[].name empty', { tags: [{ name: 'Ok' }, { id: 'x', name: '' }] }, ['tags[1].name']],
  ['tags[].name of 65 characters', { tags: [{ name: 'n'.repeat(65) }] }, ['tags[0].name']],
  ['tags[] with an unknown field', { tags: [{ name: 'Ok', colour: 'red' }] }, ['colour']],
  ['tag name that leaves no id', { tags: [{ name: '!!!' }] }, ['tags[0].name']],
  ['two tags with one id', { tags: [{ name: 'Sci Fi' }, { name: 'sci-fi' }] }, ['sci-fi']],
  [
    'two tags with one explicit id',
    {
      tags: [
        { id: 'same', name: 'A' },
        { id: 'same', name: 'B' },
      ],
    },
    ['same'],
  ],
  ['created not digits', { created: 'yesterday' }, ['created', 'Unix epoch']],
  ['created negative', { created: -1 }, ['created', 'Unix epoch']],
  ['created a negative string', { created: '-1' }, ['created', 'Unix epoch']],
  ['created in exponent form', { created: '1e3' }, ['created', 'Unix epoch']],
  ['created fractional', { created: 1.5 }, ['created']],
  ['created two days ahead', { created: nowSeconds() + 2 * 86_400 }, ['created']],
  ['an unknown field', { subtitle: 'Nope' }, ['subtitle']],
];

describe('magazine bodies: every field has values that are refused with 400 naming it, and nothing is stored', () => {
  it.each(badMagazines)('POST /magazines: %s', async (_, overrides, mentions) => {
    await refused('POST', '/magazines', magazineBody({ id: uniqueId(), ...overrides }), mentions);
  });

  it.each(badMagazines.filter(([name]) => !name.startsWith('id')))(
    'PUT /magazines/{id} of an existing magazine: %s',
    async (_, overrides, mentions) => {
      await refused('PUT', `/magazines/${magazineId}`, magazineBody(overrides), mentions);
    },
  );

  it.each(badMagazines.filter(([name]) => !name.startsWith('id')).slice(0, 6))(
    'PUT /magazines/{id} of a new magazine: %s',
    async (_, overrides, mentions) => {
      await refused('PUT', `/magazines/${uniqueId()}`, magazineBody(overrides), mentions);
    },
  );

  it('a body that is not an object', async () => {
    await refused('POST', '/magazines', ['not', 'an', 'object'], []);
    await refused('POST', '/magazines', 'just a string', []);
  });

  it('32 tags and a title of 256 characters are accepted', async () => {
    const id = uniqueId();
    expect((await local.client.post('/magazines', { id, title: 'x'.repeat(256), tags: tags(32) })).status).toBe(201);
    expect((await local.client.get(`/magazines/${id}`)).json<MagazineView>().tags).toHaveLength(32);
  });

  it('a title that shows something is kept as sent, invisible characters and controls in it too', async () => {
    const id = uniqueId();
    const title = '\u200bAstronaut \u{1F469}\u200d\u{1F680}\u0007';
    expect((await local.client.post('/magazines', { id, title })).status).toBe(201);
    expect((await local.client.get(`/magazines/${id}`)).json<MagazineView>().title).toBe(title);
  });

  it('an id of 64 characters and a created time up to a day ahead are accepted', async () => {
    const id = `a${'b'.repeat(63)}`;
    expect((await local.client.post('/magazines', { id, title: 'Long id', created: nowSeconds() + 3600 })).status).toBe(
      201,
    );
    expect((await local.client.get(`/magazines/${id}`)).status).toBe(200);
  });
});

describe('tag ids derived from names', () => {
  it.each([
    ['Science', 'science'],
    ['Café Société', 'cafe-societe'],
    ['  Ångström -- Review!  ', 'angstrom-review'],
    ['Sci-Fi & Fantasy', 'sci-fi-fantasy'],
    ['Ünïcödé 2024', 'unicode-2024'],
    ['__Hello__World__', 'hello-world'],
  ])('%j → %s', async (name, id) => {
    const magazine = uniqueId();
    expect((await local.client.post('/magazines', { id: magazine, title: 'Tagged', tags: [{ name }] })).status).toBe(
      201,
    );
    const tag = (await local.client.get(`/magazines/${magazine}`)).json<MagazineView>().tags[0];
    expect(tag).toEqual({ id, name, url: `${local.api.baseUrl}/v1/tags/${id}` });
  });

  it('a name that leaves no id is accepted with an explicit id', async () => {
    const magazine = uniqueId();
    expect(
      (await local.client.post('/magazines', { id: magazine, title: 'Tagged', tags: [{ id: 'punct', name: '!!!' }] }))
        .status,
    ).toBe(201);
    expect((await local.client.get(`/magazines/${magazine}`)).json<MagazineView>().tags[0]).toMatchObject({
      id: 'punct',
      name: '!!!',
    });
  });
});

const longText = 'x'.repeat(100_001);

const badArticles: [string, Record<string, unknown>, string[]][] = [
  ['title missing', { title: undefined }, ['title']],
  ['title empty', { title: '' }, ['title']],
  ['title of 257 characters', { title: 't'.repeat(257) }, ['title']],
  ['author_first_name empty', { author_first_name: '' }, ['author_first_name']],
  ['author_first_name of 129 characters', { author_first_name: 'a'.repeat(129) }, ['author_first_name']],
  ['author_last_name missing', { author_last_name: undefined }, ['author_last_name']],
  ['author_last_name a number', { author_last_name: 12 }, ['author_last_name']],
  ['author_email not an address', { author_email: 'not-an-email' }, ['author_email']],
  ['author_email without a domain dot', { author_email: 'ada@localhost' }, ['author_email']],
  ['author_email of 255 characters', { author_email: `${'a'.repeat(243)}@example.com` }, ['author_email']],
  ['date not a real day', { date: '2023-02-30' }, ['date']],
  ['date in another form', { date: '2023/01/01' }, ['date']],
  ['date month 13', { date: '2023-13-01' }, ['date']],
  ['text empty', { text: '' }, ['text']],
  ['text only zero-width characters and a control', { text: '\u200b\u0007\u200b' }, ['text']],
  ['text of 100,001 characters', { text: longText }, ['text']],
  ['an unknown field', { summary: 'Nope' }, ['summary']],
];

describe('article bodies: every field has values that are refused with 400 naming it, and nothing is stored', () => {
  it.each(badArticles)('POST /magazines/{id}/articles: %s', async (_, overrides, mentions) => {
    await refused('POST', `/magazines/${magazineId}/articles`, articleBody(overrides), mentions);
  });

  it('a leap day and a text of 100,000 characters are accepted', async () => {
    const response = await local.client.post(
      `/magazines/${magazineId}/articles`,
      articleBody({ date: '2024-02-29', text: 'y'.repeat(100_000) }),
    );
    expect(response.status).toBe(201);
  });
});

describe('request bodies: media type, syntax and size', () => {
  it.each(['text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x'])(
    'Content-Type %s: 415, nothing stored',
    async (type) => {
      const response = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
        local.client.post('/magazines', undefined, {
          body: JSON.stringify(magazineBody({ id: uniqueId() })),
          headers: { 'Content-Type': type },
        }),
      );
      expect(
        expectError(response, { status: 415, baseUrl: local.api.baseUrl, mentions: ['Content-Type'] })?.errorCode,
      ).toBe('41501');
    },
  );

  it.each([
    ['gzip', gzipSync],
    ['deflate', deflateSync],
  ] as const)('a body compressed with %s: decoded, as API Gateway decodes it, and stored', async (coding, compress) => {
    const id = uniqueId();
    const response = await local.client.post('/magazines', undefined, {
      body: compress(JSON.stringify(magazineBody({ id, title: 'Compressed' }))),
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': coding },
    });
    expect(response.status, response.text).toBe(201);
    expect((await local.client.get(`/magazines/${id}`)).json<{ title: string }>().title).toBe('Compressed');
  });

  it.each([
    ['br', 'a coding API Gateway does not decode'],
    ['gzip', 'a body that is not gzip'],
  ])('Content-Encoding %s on %s: 415 41502 naming the codings taken, nothing stored', async (coding) => {
    const response = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
      local.client.post('/magazines', undefined, {
        body: JSON.stringify(magazineBody({ id: uniqueId() })),
        headers: { 'Content-Type': 'application/json', 'Content-Encoding': coding },
      }),
    );
    expect(
      // API Gateway's own answer, as deployed: it refuses the coding before any function runs.
      expectError(response, {
        status: 415,
        baseUrl: local.api.baseUrl,
        mentions: ['Content-Encoding', 'gzip'],
        contentType: APPLICATION_JSON_TYPE,
      })?.errorCode,
    ).toBe('41502');
    // RFC 9110 §12.5.3: the 415 of a content coding says which codings the request may use.
    expect(response.headers['accept-encoding']).toBe('gzip, deflate, identity');
  });

  it('415 on PUT and on articles too', async () => {
    const put = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
      local.client.put(`/magazines/${magazineId}`, undefined, {
        body: JSON.stringify({ title: 'Changed' }),
        headers: { 'Content-Type': 'text/plain' },
      }),
    );
    expectError(put, { status: 415, baseUrl: local.api.baseUrl });
    const article = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
      local.client.post(`/magazines/${magazineId}/articles`, undefined, {
        body: JSON.stringify(articleBody()),
        headers: { 'Content-Type': 'text/plain' },
      }),
    );
    expectError(article, { status: 415, baseUrl: local.api.baseUrl });
  });

  it.each([
    ['iso-8859-1', 'application/json; charset=iso-8859-1'],
    ['latin1', 'application/json;charset="latin1"'],
    ['UTF-16', 'text/javascript; CHARSET=UTF-16'],
    ['utf-8x', 'application/json; charset=utf-8x'],
  ])('a charset but UTF-8 (%s): 415 naming it, nothing stored', async (charset, type) => {
    const response = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
      local.client.post('/magazines', undefined, {
        body: Buffer.from(JSON.stringify(magazineBody({ id: uniqueId(), title: 'Café' })), 'latin1'),
        headers: { 'Content-Type': type },
      }),
    );
    const mentions = [`charset=${charset}`, 'must be UTF-8'];
    expect(expectError(response, { status: 415, baseUrl: local.api.baseUrl, mentions })?.errorCode).toBe('41501');
  });

  it('a byte order mark before the JSON is ignored; a field sent twice takes its last value', async () => {
    const id = uniqueId();
    const response = await local.client.post('/magazines', undefined, {
      body: `\uFEFF{"id":"${id}","title":"First","title":"Marked"}`,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(response.status, response.text).toBe(201);
    expect((await local.client.get(`/magazines/${id}`)).json<MagazineView>().title).toBe('Marked');
  });

  it.each([
    'application/json; charset=utf-8',
    'application/json; Charset="UTF-8"',
    'text/javascript',
    'application/vnd.magazine+json',
    null,
  ])('Content-Type %s is accepted as JSON', async (type) => {
    const id = uniqueId();
    const response = await local.client.post('/magazines', undefined, {
      body: JSON.stringify(magazineBody({ id })),
      headers: { 'Content-Type': type },
    });
    expect(response.status, response.text).toBe(201);
  });

  it.each(['{"title": "Broken"', '{title: "x"}', "{'title': 'x'}", '[1, 2,]'])(
    'malformed JSON %s: 400, nothing stored',
    async (text) => {
      const response = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
        local.client.post('/magazines', undefined, { body: text, headers: { 'Content-Type': 'application/json' } }),
      );
      expectError(response, { status: 400, baseUrl: local.api.baseUrl, mentions: ['JSON'] });
    },
  );

  it('a missing body: 400, nothing stored', async () => {
    const response = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
      local.client.post('/magazines', undefined, { headers: { 'Content-Type': 'application/json' } }),
    );
    expectError(response, { status: 400, baseUrl: local.api.baseUrl });
  });

  it('a body larger than 1 MiB: 413, nothing stored', async () => {
    const big = JSON.stringify(magazineBody({ id: uniqueId(), title: 'Big', padding: 'p'.repeat(1024 * 1024) }));
    const response = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
      local.client.post('/magazines', undefined, { body: big, headers: { 'Content-Type': 'application/json' } }),
    );
    expectError(response, { status: 413, baseUrl: local.api.baseUrl });
  });

  it('a PUT /magazines body larger than 1 MiB: 413, nothing changed', async () => {
    const many = Array.from({ length: 4000 }, (_, i) => ({ id: `big-${i}`, title: 'T'.repeat(250) }));
    const text = JSON.stringify(many);
    expect(Buffer.byteLength(text)).toBeGreaterThan(1024 * 1024);
    const response = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
      local.client.put('/magazines', undefined, { body: text, headers: { 'Content-Type': 'application/json' } }),
    );
    expectError(response, { status: 413, baseUrl: local.api.baseUrl });
  });
});
