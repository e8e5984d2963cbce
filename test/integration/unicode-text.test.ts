import { describe, expect, it } from 'vitest';
import type { HttpResponse } from '../support/http';
import { type EventOptions, invoke } from '../support/proxy-event';
import {
  articleBody,
  expectError,
  expectTableUnchanged,
  type MagazineView,
  magazineBody,
  uniqueId,
  useLocalApi,
} from './expect-api';

/** Text that is not Unicode (an unpaired UTF-16 surrogate), wherever the API takes text: refused with 400 naming where. */

let magazineId: string;

const local = useLocalApi(undefined, async () => {
  magazineId = uniqueId('host');
  expect((await local.client.post('/magazines', magazineBody({ id: magazineId }))).status).toBe(201);
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
