import { describe, expect, it } from 'vitest';
import type { HttpResponse } from '../support/http';
import { type EventOptions, invoke } from '../support/proxy-event';
import {
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

  it.each(['gzip', 'br'])('Content-Encoding %s: 415 naming the coding, nothing stored', async (coding) => {
    const response = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
      local.client.post('/magazines', undefined, {
        body: JSON.stringify(magazineBody({ id: uniqueId() })),
        headers: { 'Content-Type': 'application/json', 'Content-Encoding': coding },
      }),
    );
    expect(
      expectError(response, { status: 415, baseUrl: local.api.baseUrl, mentions: ['Content-Encoding', coding] })
        ?.errorCode,
    ).toBe('41502');
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

  it.each(['application/json; charset=utf-8', 'text/javascript', 'application/vnd.magazine+json', null])(
    'Content-Type %s is accepted as JSON',
    async (type) => {
      const id = uniqueId();
      const response = await local.client.post('/magazines', undefined, {
        body: JSON.stringify(magazineBody({ id })),
        headers: { 'Content-Type': type },
      });
      expect(response.status, response.text).toBe(201);
    },
  );

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

const LONE = '\udfff';
const SURROGATE = 'holds an unpaired UTF-16 surrogate';

/** A 400 `40015` whose message names `place`, and the table as it was. */
const refusedAsText = async (
  send: () => Promise<HttpResponse>,
  place: string,
  format: 'json' | 'xml' = 'json',
): Promise<void> => {
  const response = await expectTableUnchanged(local.api.documentClient, local.api.tableName, send);
  const error = expectError(response, {
    status: 400,
    baseUrl: local.api.baseUrl,
    format,
    mentions: [`${place} ${SURROGATE}`, 'valid Unicode'],
  });
  expect(error?.errorCode).toBe('40015');
};

describe('text that is not Unicode (an unpaired UTF-16 surrogate): 400 naming the field, nothing stored', () => {
  const textBodies: [string, () => ['POST' | 'PUT', string], unknown, string][] = [
    [
      'POST /magazines, a tag name (the JSON escape "\\udfff")',
      () => ['POST', '/magazines'],
      { id: uniqueId(), title: 'T', tags: [{ id: 'lone', name: LONE }] },
      'Body field `tags[0].name`',
    ],
    [
      'POST /magazines, a tag id',
      () => ['POST', '/magazines'],
      magazineBody({ id: uniqueId(), tags: [{ name: 'Fine' }, { id: `x${LONE}`, name: 'n' }] }),
      'Body field `tags[1].id`',
    ],
    [
      'POST /magazines, the title',
      () => ['POST', '/magazines'],
      magazineBody({ title: `a${LONE}` }),
      'Body field `title`',
    ],
    ['POST /magazines, the id', () => ['POST', '/magazines'], magazineBody({ id: `m${LONE}` }), 'Body field `id`'],
    [
      'POST /magazines, created given as a string',
      () => ['POST', '/magazines'],
      magazineBody({ id: uniqueId(), created: `17${LONE}` }),
      'Body field `created`',
    ],
    [
      'POST /magazines, a field name',
      () => ['POST', '/magazines'],
      magazineBody({ id: uniqueId(), [`sub${LONE}title`]: 'x' }),
      'A field name of the request body',
    ],
    [
      'PUT /magazines/{id} of an existing magazine, a tag name',
      () => ['PUT', `/magazines/${magazineId}`],
      magazineBody({ tags: [{ name: '\ud83d' }] }),
      'Body field `tags[0].name`',
    ],
    [
      'PUT /magazines/{id} of a new magazine, the title',
      () => ['PUT', `/magazines/${uniqueId()}`],
      magazineBody({ title: LONE }),
      'Body field `title`',
    ],
    [
      'PUT /magazines, the title of element [1]',
      () => ['PUT', '/magazines'],
      [magazineBody({ id: uniqueId() }), magazineBody({ id: uniqueId(), title: LONE })],
      'Body field `[1].title`',
    ],
    [
      'PUT /magazines, a tag of element [0]',
      () => ['PUT', '/magazines'],
      [magazineBody({ id: uniqueId(), tags: [{ id: 'lone', name: LONE }] })],
      'Body field `[0].tags[0].name`',
    ],
    ...(['title', 'author_first_name', 'author_last_name', 'author_email', 'date', 'text'] as const).map(
      (field): [string, () => ['POST' | 'PUT', string], unknown, string] => [
        `POST /magazines/{id}/articles, ${field}`,
        () => ['POST', `/magazines/${magazineId}/articles`],
        articleBody({ [field]: `${articleBody()[field]}${LONE}` }),
        `Body field \`${field}\``,
      ],
    ),
  ];

  it.each(textBodies)('%s', async (_, target, body, place) => {
    const [method, path] = target();
    await refusedAsText(() => local.client.request(method, path, { json: body }), place);
  });

  it('in XML when XML is asked for, well formed', async () => {
    await refusedAsText(
      () => local.client.post(`/magazines/${magazineId}/articles.xml`, articleBody({ text: `a${LONE}b` })),
      'Body field `text`',
      'xml',
    );
  });

  it('a surrogate pair is one character and is taken; half of one is refused', async () => {
    await refusedAsText(
      () => local.client.post('/magazines', { id: uniqueId(), title: 'Face \ud83d', tags: [{ name: 'Fine' }] }),
      'Body field `title`',
    );
    const id = uniqueId();
    expect(
      (await local.client.post('/magazines', { id, title: 'Face \ud83d\ude00', tags: [{ name: '\u{1D54F}' }] })).status,
    ).toBe(201);
    expect((await local.client.get(`/magazines/${id}`)).json<MagazineView>().title).toBe('Face 😀');
  });
});

/**
 * A URL or a header cannot carry an unpaired surrogate over HTTP (its percent-encoded bytes are not
 * UTF-8), so each function's handler is given the event API Gateway would hand it if one came,
 * on the test's table.
 */
describe('path segments, query parameters and headers that are not Unicode: 400 naming them, nothing stored', () => {
  const call = async (handlerName: string, options: EventOptions) => {
    const module = (await import(`../../functions/${handlerName}.ts`)) as { handler: unknown };
    return invoke(module.handler, options);
  };

  const expectRefused = async (handlerName: string, options: EventOptions, place: string) => {
    const response = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
      call(handlerName, options),
    );
    expect(response.status, response.body).toBe(400);
    expect(response.json?.errorCode).toBe('40015');
    expect(response.json?.developerMessage).toContain(`${place} ${SURROGATE}`);
    expect(response.json?.moreInfo).toBe('https://api.example.com/v1/documentation/errors/40015.html');
  };

  const json = { 'Content-Type': 'application/json' };

  it.each([
    ['GET', '/magazines/{id}', 'get-magazine', 'id'],
    ['DELETE', '/magazines/{id}', 'delete-magazine', 'id'],
    ['GET', '/magazines/{id}/articles', 'list-articles', 'id'],
    ['GET', '/articles/{articleId}', 'get-article', 'articleId'],
    ['GET', '/tags/{tagId}', 'get-tag', 'tagId'],
    ['GET', '/tags/{tagId}/magazines', 'list-tag-magazines', 'tagId'],
  ])('%s %s: the path segment', async (method, resource, handlerName, name) => {
    await expectRefused(
      handlerName,
      { method, resource, params: { [name]: `a${LONE}` } },
      `Path segment \`{${name}}\``,
    );
  });

  it('PUT /magazines/{id} and POST /magazines/{id}/articles: path segment {id}, with a valid body', async () => {
    await expectRefused(
      'replace-magazine',
      { method: 'PUT', resource: '/magazines/{id}', params: { id: LONE }, headers: json, body: magazineBody() },
      'Path segment `{id}`',
    );
    await expectRefused(
      'create-article',
      {
        method: 'POST',
        resource: '/magazines/{id}/articles',
        params: { id: LONE },
        headers: json,
        body: articleBody(),
      },
      'Path segment `{id}`',
    );
  });

  it.each(['tag', 'fields', 'cursor', 'format', 'sort', 'year', 'offset', 'limit', 'mock'])(
    'GET /magazines: query parameter %s',
    async (name) => {
      await expectRefused(
        'list-magazines',
        { resource: '/magazines', query: { [name]: `2${LONE}` } },
        `Query parameter \`${name}\``,
      );
    },
  );

  it('query parameter tag: percent-encoded, it cannot arrive as a surrogate, and is refused as the text it is', async () => {
    await expectRefused('list-magazines', { resource: '/magazines', query: { tag: LONE } }, 'Query parameter `tag`');
    // `%ED%B3%BF` would be the surrogate's bytes, but they are not UTF-8: the escape is handed over as sent.
    const encoded = await local.client.get('/magazines?tag=%ED%B3%BF');
    expect(expectError(encoded, { status: 400, baseUrl: local.api.baseUrl, mentions: ['`tag`'] })?.errorCode).toBe(
      '40004',
    );
  });

  it('POST /magazines: header Idempotency-Key, and nothing of the key is kept', async () => {
    await expectRefused(
      'create-magazine',
      {
        method: 'POST',
        resource: '/magazines',
        headers: { ...json, 'Idempotency-Key': `key-${LONE}` },
        body: magazineBody({ id: uniqueId() }),
      },
      'Header `Idempotency-Key`',
    );
  });

  it('PUT /magazines/{id}: header If-Match, and the magazine is not replaced', async () => {
    await expectRefused(
      'replace-magazine',
      {
        method: 'PUT',
        resource: '/magazines/{id}',
        params: { id: magazineId },
        headers: { ...json, 'If-Match': `"${LONE}"` },
        body: magazineBody({ title: 'Replaced' }),
      },
      'Header `If-Match`',
    );
  });
});
