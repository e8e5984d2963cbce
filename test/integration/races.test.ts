import { afterAll, describe, expect, inject, it } from 'vitest';
import { startFaultProxy } from '../support/dynamodb-faults';
import { articleBody, magazineBody, uniqueId, useLocalApi } from './expect-api';

/**
 * Concurrent clients, with DynamoDB's optimistic concurrency emulated in front of DynamoDB Local
 * (which runs transactions one at a time): a transaction that overlaps another in flight on a
 * shared item is cancelled, as on AWS.
 */
const proxy = await startFaultProxy(inject('dynamoDbEndpoint'), { conflicts: true });
afterAll(() => proxy.close());

const local = useLocalApi({ env: { DYNAMODB_ENDPOINT: proxy.endpoint } });

type Counted = { metadata: { resultset: { count: number } } };
const countOf = async (path: string) => (await local.client.get(path)).json<Counted>().metadata.resultset.count;
const statuses = (answers: readonly { status: number }[]) => {
  const tally: Record<number, number> = {};
  for (const { status } of answers) tally[status] = (tally[status] ?? 0) + 1;
  return tally;
};

describe('racing clients', { timeout: 60_000 }, () => {
  it('50 POSTs of one id at once: one 201, 49 405, one magazine counted', async () => {
    const before = await countOf('/magazines');
    const id = uniqueId();
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => local.client.post('/magazines', magazineBody({ id, title: `Racer ${i}` }))),
    );
    expect(statuses(answers)).toEqual({ 201: 1, 405: 49 });
    expect(await countOf('/magazines')).toBe(before + 1);
    const winner = answers.findIndex((answer) => answer.status === 201);
    expect((await local.client.get(`/magazines/${id}`)).json()).toMatchObject({ title: `Racer ${winner}` });
  });

  it('50 POSTs of distinct ids at once, all with one tag: all 201, every one listed and counted', async () => {
    const before = await countOf('/magazines');
    const tag = uniqueId('tag');
    const ids = Array.from({ length: 50 }, () => uniqueId());
    const answers = await Promise.all(
      ids.map((id) => local.client.post('/magazines', magazineBody({ id, tags: [{ name: tag }] }))),
    );
    expect(statuses(answers)).toEqual({ 201: 50 });
    expect(await countOf('/magazines')).toBe(before + 50);
    expect(await countOf(`/tags/${tag}/magazines`)).toBe(50);
    const listed = (await local.client.get(`/tags/${tag}/magazines?limit=100`)).json<{ results: { id: string }[] }>();
    expect(listed.results.map((magazine) => magazine.id).sort()).toEqual([...ids].sort());
    expect((await local.client.get(`/tags/${tag}`)).json()).toMatchObject({ id: tag });
  });

  it('20 PUTs with one If-Match at once: one 200, 19 412, the winner’s title stored', async () => {
    const id = uniqueId();
    expect((await local.client.post('/magazines', magazineBody({ id }))).status).toBe(201);
    const etag = (await local.client.get(`/magazines/${id}`)).headers.etag!;
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        local.client.put(`/magazines/${id}`, { title: `Edit ${i}` }, { headers: { 'If-Match': etag } }),
      ),
    );
    expect(statuses(answers)).toEqual({ 200: 1, 412: 19 });
    const winner = answers.findIndex((answer) => answer.status === 200);
    expect((await local.client.get(`/magazines/${id}`)).json()).toMatchObject({ title: `Edit ${winner}` });
  });

  it('a DELETE amid a stream of article POSTs is not starved: 200, then the magazine and all its articles are gone', async () => {
    const id = uniqueId();
    expect((await local.client.post('/magazines', magazineBody({ id }))).status).toBe(201);
    let streaming = true;
    const added: string[] = [];
    const refused: number[] = [];
    const writer = async () => {
      while (streaming) {
        const answer = await local.client.post(`/magazines/${id}/articles`, articleBody());
        if (answer.status === 201) added.push(answer.headers.location!);
        else refused.push(answer.status);
      }
    };
    const writers = Array.from({ length: 6 }, writer);
    while (added.length < 12) await new Promise((resolve) => setTimeout(resolve, 20));
    const deleted = await local.client.delete(`/magazines/${id}`);
    streaming = false;
    await Promise.all(writers);
    expect(deleted.status, deleted.text).toBe(200);
    // Writers that lost to the deletion were told the magazine is gone, nothing else.
    expect(new Set(refused)).toEqual(new Set(refused.length > 0 ? [404] : []));
    expect((await local.client.get(`/magazines/${id}`)).status).toBe(404);
    expect((await local.client.get(`/magazines/${id}/articles`)).status).toBe(404);
    for (const location of added)
      expect((await local.client.get(new URL(location).pathname)).status, location).toBe(404);
    expect((await local.client.post(`/magazines/${id}/articles`, articleBody())).status).toBe(404);
  });
});
