import { afterAll, beforeAll, describe, expect, it, afterEach } from 'vitest';
import { clientFor, type Client } from '../support/http';
import { startLocalApi } from '../support/local-api';
import { articleBody, expectError, expectTableUnchanged, magazineBody, type Envelope, type MagazineView, expectEveryResponseConforms } from './expect-api';

/** A deployment with `MOCK_ENABLED=false` (production stages): mock requests are refused. */
let api: Awaited<ReturnType<typeof startLocalApi>>;
let client: Client;

beforeAll(async () => {
  api = await startLocalApi({ mockEnabled: false });
  client = clientFor(api.baseUrl);
  expect((await client.post('/magazines', magazineBody({ id: 'p1' }))).status).toBe(201);
});

afterEach(() => {
  expectEveryResponseConforms(api?.tableName);
});

afterAll(async () => {
  await api?.close();
});

describe('MOCK_ENABLED=false', () => {
  it.each(['/magazines?mock=True', '/magazines/p1?mock', '/magazines/p1/articles?mock=1', '/tags?mock=true'])('GET %s: 400 saying mock exists only on the testing server', async (path) => {
    expectError(await client.get(path), { status: 400, baseUrl: api.baseUrl, mentions: ['mock', 'testing server'] });
  });

  it('writes with mock are refused and write nothing', async () => {
    const responses = await expectTableUnchanged(api.documentClient, api.tableName, async () => [
      await client.post('/magazines?mock=True', magazineBody({ id: 'p2' })),
      await client.post('/magazines/p1/articles?mock=True', articleBody()),
      await client.delete('/magazines/p1?mock=True'),
      await client.delete('/magazines?mock=True'),
      await client.put('/magazines?mock=True', []),
    ]);
    for (const response of responses) expectError(response, { status: 400, baseUrl: api.baseUrl, mentions: ['mock'] });
    expect((await client.get('/magazines/p1')).status).toBe(200);
  });

  it('mock=False is still fine: the real answer', async () => {
    const response = await client.get('/magazines?mock=False');
    expect(response.status).toBe(200);
    expect(response.json<Envelope<MagazineView>>().metadata.resultset.count).toBe(1);
  });
});
