import { describe, expect, it } from 'vitest';
import { type Envelope, type MagazineView, scanTable, useLocalApi } from './expect-api';

/** A deployment's first requests, on a table nothing has been written to yet. */

const local = useLocalApi();

describe('an empty, never written table', () => {
  it('reads write nothing', async () => {
    for (const path of ['/magazines', '/tags', '/magazines/none', '/tags/none/magazines']) await local.client.get(path);
    expect(await scanTable(local.api.documentClient, local.api.tableName)).toEqual([]);
  });

  it('GET /magazines: 200, count 0, no Link to a next page', async () => {
    const response = await local.client.get('/magazines');
    expect(response.status).toBe(200);
    expect(response.json<Envelope<MagazineView>>()).toEqual({
      metadata: { resultset: { count: 0, offset: 0, limit: 25 } },
      results: [],
    });
  });

  it('GET /tags: 200, count 0', async () => {
    const response = await local.client.get('/tags');
    expect(response.status).toBe(200);
    expect(response.json<Envelope<unknown>>().metadata.resultset.count).toBe(0);
  });

  it('HEAD /magazines: 200 with ETag and Last-Modified, as every GET and HEAD', async () => {
    const response = await local.client.head('/magazines');
    expect(response.status).toBe(200);
    expect(response.headers.etag).toBeDefined();
    expect(response.headers['last-modified'], 'Last-Modified').toBeDefined();
  });
});
