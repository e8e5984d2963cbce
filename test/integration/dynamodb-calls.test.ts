import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { type DynamoDbProxy, startDynamoDbProxy } from '../support/dynamodb-proxy';
import { type Client, clientFor, parseLinkHeader } from '../support/http';
import { startLocalApi } from '../support/local-api';
import { articleBody, expectEveryResponseConforms, magazineBody } from './expect-api';

/**
 * The DynamoDB calls the API makes, counted from outside: the handlers are pointed at a small
 * proxy in front of DynamoDB Local, which notes each call's `X-Amz-Target` (the operation name)
 * and passes it on. The test's own reads go straight to DynamoDB Local and are not counted.
 */
let api: Awaited<ReturnType<typeof startLocalApi>>;
let client: Client;
let proxy: DynamoDbProxy | undefined;
let calls: string[] = [];
let articleId: string;

/** The calls `action` makes, in order. */
const callsOf = async (action: () => Promise<{ status: number }>, status?: number) => {
  calls = [];
  const response = await action();
  if (status !== undefined) expect(response.status).toBe(status);
  return [...calls];
};

const figures: [string, string[]][] = [];
const measure = async (name: string, action: () => Promise<{ status: number }>, status?: number) => {
  const made = await callsOf(action, status);
  figures.push([name, made]);
  return made;
};

beforeAll(async () => {
  // No fold after a write (one in four does one): the counts here are those of the requests themselves.
  vi.spyOn(Math, 'random').mockReturnValue(0.99);
  proxy = await startDynamoDbProxy(inject('dynamoDbEndpoint'), (target) => {
    calls.push(target.replace(/^DynamoDB_\d+\./, ''));
  });
  api = await startLocalApi({ env: { DYNAMODB_ENDPOINT: proxy.endpoint } });
  client = clientFor(api.baseUrl);
  expect((await client.post('/magazines', magazineBody({ id: 'd1', tags: [{ name: 'Science' }] }))).status).toBe(201);
  const article = await client.post('/magazines/d1/articles', articleBody());
  articleId = article.json<{ id: string }>().id;
  // Each function reads the collection's head once when it starts (its init phase): every one started here first.
  for (const [method, path] of [
    ['GET', '/magazines'],
    ['GET', '/magazines/d1'],
    ['GET', '/magazines/d1/articles'],
    ['GET', `/articles/${articleId}`],
    ['GET', '/tags'],
    ['GET', '/tags/science'],
    ['GET', '/tags/science/magazines'],
    ['PUT', '/magazines/warm'],
    ['DELETE', '/magazines/warm'],
  ] as const) {
    await client.request(method, path, method === 'PUT' ? { json: { title: 'Warm' } } : {});
  }
});

afterEach(() => {
  calls = [];
  expectEveryResponseConforms(api?.tableName);
});

afterAll(async () => {
  await api?.close();
  await proxy?.close();
  // The figures for the README (issue 2 asks for DynamoDB calls per operation).
  console.info(
    `DynamoDB calls per operation:\n${figures.map(([name, made]) => `  ${name}: ${made.length} (${made.join(', ') || 'none'})`).join('\n')}`,
  );
});

describe('DynamoDB calls per operation', () => {
  it('the proxy sees the API calls (the counting works)', async () => {
    expect(await callsOf(() => client.get('/magazines/d1'))).not.toEqual([]);
  });

  it('GET and HEAD /magazines/{id}: one BatchGetItem (the magazine and a head replica)', async () => {
    expect(await measure('GET /magazines/{id}', () => client.get('/magazines/d1'), 200)).toEqual(['BatchGetItem']);
    expect(await measure('HEAD /magazines/{id}', () => client.head('/magazines/d1'), 200)).toEqual(['BatchGetItem']);
    expect(await measure('GET /magazines/{id} (unknown)', () => client.get('/magazines/nope'), 404)).toEqual([
      'BatchGetItem',
    ]);
  });

  it('GET /articles/{id}: one BatchGetItem (the article, its magazine and a head replica)', async () => {
    expect(await measure('GET /articles/{id}', () => client.get(`/articles/${articleId}`), 200)).toEqual([
      'BatchGetItem',
    ]);
  });

  it("POST /magazines: the head with TAGS's admission, then one transaction; POST an article: its magazine, then one transaction", async () => {
    expect(await measure('POST /magazines', () => client.post('/magazines', magazineBody({ id: 'd2' })), 201)).toEqual([
      'BatchGetItem',
      'TransactWriteItems',
    ]);
    // The refused condition is then told apart from a retry of this same write whose answer was lost.
    expect(
      await measure('POST /magazines (duplicate)', () => client.post('/magazines', magazineBody({ id: 'd2' })), 405),
    ).toEqual(['BatchGetItem', 'TransactWriteItems', 'GetItem']);
    expect(
      await measure('POST /magazines/{id}/articles', () => client.post('/magazines/d2/articles', articleBody()), 201),
    ).toEqual(['BatchGetItem', 'TransactWriteItems']);
  });

  it('PUT and DELETE /magazines/{id}: a read of the revision and one transaction (then the articles)', async () => {
    expect(
      await measure(
        'PUT /magazines/{id}',
        () => client.put('/magazines/d2', { ...magazineBody({ id: 'd2' }), title: 'Renamed' }),
        200,
      ),
    ).toEqual(['BatchGetItem', 'TransactWriteItems']);
    expect(
      await measure(
        'PUT /magazines/{id} (tags dropped)',
        () => client.put('/magazines/d2', { title: 'Replaced' }),
        200,
      ),
    ).toEqual(['BatchGetItem', 'TransactWriteItems']);
    const del = await measure('DELETE /magazines/{id} (1 article)', () => client.delete('/magazines/d2'), 200);
    expect((await client.post('/magazines', { id: 'bare', title: 'No articles, no tags' })).status).toBe(201);
    expect(await measure('DELETE /magazines/{id} (no articles)', () => client.delete('/magazines/bare'), 200)).toEqual([
      'BatchGetItem',
      'TransactWriteItems',
    ]);
    // Read; articles refused from now on; the transaction (the point of no return); then its articles and their note.
    expect(del).toEqual([
      'BatchGetItem',
      'UpdateItem',
      'TransactWriteItems',
      'Query',
      'BatchWriteItem',
      'BatchWriteItem',
    ]);
  });

  it('lists, tags: a bounded number of calls', async () => {
    for (const [name, path, most] of [
      ['GET /magazines', '/magazines', 3],
      ['GET /magazines?year&tag', '/magazines?year=2026&tag=science', 3],
      ['GET /magazines/{id}/articles', '/magazines/d1/articles', 2],
      // A fourth when a tag came or went in a write not folded into the counts yet.
      ['GET /tags', '/tags', 4],
      ['GET /tags/{tagId}', '/tags/science', 2],
      ['GET /tags/{tagId}/magazines', '/tags/science/magazines', 3],
    ] as const) {
      const made = await measure(name, () => client.get(path), 200);
      expect(made.length, name).toBeGreaterThan(0);
      expect(made.length, `${name}: ${made.join(', ')}`).toBeLessThanOrEqual(most);
    }
  });

  it('the first page of GET /magazines costs the same with 9 or 161 magazines', async () => {
    expect(
      (
        await client.put('/magazines', [
          { id: 'd1', title: 'D1', tags: [{ name: 'Science' }] },
          ...Array.from({ length: 8 }, (_, i) => ({ id: `s${i}`, title: `S${i}` })),
        ])
      ).status,
    ).toBe(200);
    const small = await callsOf(() => client.get('/magazines?limit=5'), 200);
    expect(
      (
        await client.put('/magazines', [
          { id: 'd1', title: 'D1', tags: [{ name: 'Science' }] },
          ...Array.from({ length: 160 }, (_, i) => ({ id: `s${i}`, title: `S${i}` })),
        ])
      ).status,
    ).toBe(200);
    const large = await callsOf(() => client.get('/magazines?limit=5'), 200);
    expect(large).toEqual(small);
    // A hundred magazines and the head are 101 keys: two BatchGetItems.
    const full = await measure('GET /magazines?limit=100 (160 stored)', () => client.get('/magazines?limit=100'), 200);
    expect(full.length).toBeLessThanOrEqual(4);
    const cursor = new URL(parseLinkHeader((await client.get('/magazines?limit=10')).headers.link).next ?? '');
    expect(
      (await measure('GET /magazines?cursor (161 stored)', () => client.get(`${cursor.pathname}${cursor.search}`), 200))
        .length,
    ).toBeLessThanOrEqual(3);
    const deep = await measure(
      'GET /magazines?offset=150&limit=10 (161 stored)',
      () => client.get('/magazines?offset=150&limit=10'),
      200,
    );
    expect(deep).not.toContain('Scan');
    expect(deep.length).toBeLessThanOrEqual(5);
  });

  it('no request path ever scans the table', async () => {
    calls = [];
    const requests = [
      client.get('/magazines?offset=50&limit=10'),
      client.get('/magazines?tag=science&sort=desc'),
      client.get('/magazines?year=2026'),
      client.get('/magazines/d1/articles?offset=1'),
      client.get('/tags'),
      client.get('/tags/science/magazines'),
      client.head('/magazines'),
    ];
    for (const response of await Promise.all(requests)) expect(response.status).toBe(200);
    const bulk = await measure(
      'PUT /magazines (160 → 3)',
      () =>
        client.put('/magazines', [
          { id: 's1', title: 'S1' },
          { id: 's2', title: 'S2' },
          { id: 'd1', title: 'D1' },
        ]),
      200,
    );
    expect(bulk).not.toContain('Scan');
    const all = await measure('DELETE /magazines (3)', () => client.delete('/magazines'), 200);
    expect(all).not.toContain('Scan');
    expect(calls.filter((call) => call === 'Scan')).toEqual([]);
  });

  it('mock requests touch the database not at all: not read, not written', async () => {
    for (const [method, path, body] of [
      ['GET', '/magazines?mock=True', undefined],
      ['GET', '/magazines/d1?mock', undefined],
      ['GET', '/magazines/d1/articles?mock=1', undefined],
      ['GET', '/articles/x?mock=True', undefined],
      ['GET', '/tags?mock=True', undefined],
      ['GET', '/tags/science?mock=True', undefined],
      ['GET', '/tags/science/magazines?mock=True', undefined],
      ['HEAD', '/magazines?mock=True', undefined],
      ['POST', '/magazines?mock=True', magazineBody({ id: 'm1' })],
      ['PUT', '/magazines/d1?mock=True', magazineBody()],
      ['PUT', '/magazines?mock=True', [magazineBody({ id: 'm1' })]],
      ['DELETE', '/magazines/d1?mock=True', undefined],
      ['DELETE', '/magazines?mock=True', undefined],
      ['POST', '/magazines/d1/articles?mock=True', articleBody()],
    ] as const) {
      const made = await callsOf(() => client.request(method, path, body === undefined ? {} : { json: body }));
      expect(made, `${method} ${path}`).toEqual([]);
    }
  });

  it('refused requests make no call', async () => {
    for (const [method, path, body] of [
      ['GET', '/magazines?limit=0', undefined],
      ['GET', '/magazines/d1.yaml', undefined],
      ['POST', '/magazines', { title: '' }],
      ['PUT', '/magazines/d1', { title: 'x', subtitle: 'y' }],
      [
        'PUT',
        '/magazines',
        [
          { id: 'a', title: 'A' },
          { id: 'a', title: 'B' },
        ],
      ],
      ['POST', '/magazines/d1/articles', articleBody({ date: '2023-02-30' })],
      ['PATCH', '/magazines', undefined],
      ['GET', '/magazine', undefined],
    ] as const) {
      const made = await callsOf(() => client.request(method, path, body === undefined ? {} : { json: body }));
      expect(made, `${method} ${path}`).toEqual([]);
    }
  });
});
