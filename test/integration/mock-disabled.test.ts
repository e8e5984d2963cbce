import { describe, expect, it } from 'vitest';
import {
  articleBody,
  type Envelope,
  expectError,
  expectTableUnchanged,
  type MagazineView,
  magazineBody,
  useLocalApi,
} from './expect-api';

/** A deployment with `MOCK_ENABLED=false` (production stages): mock requests are refused. */

const local = useLocalApi({ mockEnabled: false }, async () => {
  expect((await local.client.post('/magazines', magazineBody({ id: 'p1' }))).status).toBe(201);
});

describe('MOCK_ENABLED=false', () => {
  it.each(['/magazines?mock=True', '/magazines/p1?mock', '/magazines/p1/articles?mock=1', '/tags?mock=true'])(
    'GET %s: 400 saying mock exists only on the testing server',
    async (path) => {
      expectError(await local.client.get(path), {
        status: 400,
        baseUrl: local.api.baseUrl,
        mentions: ['mock', 'testing server'],
      });
    },
  );

  it('writes with mock are refused and write nothing', async () => {
    const responses = await expectTableUnchanged(local.api.documentClient, local.api.tableName, async () => [
      await local.client.post('/magazines?mock=True', magazineBody({ id: 'p2' })),
      await local.client.post('/magazines/p1/articles?mock=True', articleBody()),
      await local.client.delete('/magazines/p1?mock=True'),
      await local.client.delete('/magazines?mock=True'),
      await local.client.put('/magazines?mock=True', []),
    ]);
    for (const response of responses)
      expectError(response, { status: 400, baseUrl: local.api.baseUrl, mentions: ['mock'] });
    expect((await local.client.get('/magazines/p1')).status).toBe(200);
  });

  it('mock=False is still fine: the real answer', async () => {
    const response = await local.client.get('/magazines?mock=False');
    expect(response.status).toBe(200);
    expect(response.json<Envelope<MagazineView>>().metadata.resultset.count).toBe(1);
  });
});
