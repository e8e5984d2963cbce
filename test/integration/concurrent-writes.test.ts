import { describe, expect, it } from 'vitest';
import { articleBody, type Envelope, type MagazineView, magazineBody, uniqueId, useLocalApi } from './expect-api';

/** Writes that race on DynamoDB Local, through the API: each applied whole, or refused as a client can act on. */
const local = useLocalApi();

const newMagazine = async (title = 'Original') => {
  const id = uniqueId();
  expect((await local.client.post('/magazines', magazineBody({ id, title }))).status).toBe(201);
  return id;
};

describe('concurrent writes', () => {
  it('two POSTs of one id at once: exactly one 201, the other 405, one magazine stored', async () => {
    const id = uniqueId();
    const responses = await Promise.all([
      local.client.post('/magazines', magazineBody({ id, title: 'A' })),
      local.client.post('/magazines', magazineBody({ id, title: 'B' })),
    ]);
    expect(responses.map((r) => r.status).sort()).toEqual([201, 405]);
    const winner = responses.find((r) => r.status === 201)!;
    const title = (await local.client.get(`/magazines/${id}`)).json<MagazineView>().title;
    expect(title).toBe(winner === responses[0] ? 'A' : 'B');
  });

  it('two PUTs creating one id at once: one 201, one 200, the magazine counted once', async () => {
    const id = uniqueId();
    const before = (await local.client.get('/magazines?limit=1')).json<{ metadata: { resultset: { count: number } } }>()
      .metadata.resultset.count;
    const responses = await Promise.all([
      local.client.put(`/magazines/${id}`, { title: 'A' }),
      local.client.put(`/magazines/${id}`, { title: 'B' }),
    ]);
    expect(responses.map((r) => r.status).sort()).toEqual([200, 201]);
    const after = (await local.client.get('/magazines?limit=1')).json<{ metadata: { resultset: { count: number } } }>()
      .metadata.resultset.count;
    expect(after).toBe(before + 1);
  });

  it('forty PUTs and DELETEs of one magazine at once: each applied whole or answered 503 with Retry-After, never 500', async () => {
    const id = uniqueId();
    expect((await local.client.put(`/magazines/${id}`, { title: 'Start' })).status).toBe(201);
    const responses = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        i % 10 === 9
          ? local.client.delete(`/magazines/${id}`)
          : local.client.put(`/magazines/${id}`, { title: `T${i}`, tags: [{ name: `Race ${i % 3}` }] }),
      ),
    );
    for (const response of responses) {
      expect([200, 201, 404, 503], response.text).toContain(response.status);
      if (response.status === 503) expect(response.headers['retry-after'], response.text).toBeDefined();
    }
    const applied = responses.filter((r) => r.status === 200 || r.status === 201).length;
    expect(applied).toBeGreaterThan(0);
    // What is stored is one whole write, in its tag's list and in no other's.
    const stored = await local.client.get(`/magazines/${id}`);
    const tagOf = stored.status === 200 ? stored.json<MagazineView>().tags[0]?.id : undefined;
    for (const tag of ['race-0', 'race-1', 'race-2']) {
      const tagged = await local.client.get(`/magazines?tag=${tag}&limit=100`);
      const ids = tagged.status === 200 ? tagged.json<Envelope<MagazineView>>().results.map((m) => m.id) : [];
      expect(
        ids.filter((member) => member === id),
        tag,
      ).toHaveLength(tag === tagOf ? 1 : 0);
    }
    if (stored.status === 200) {
      const magazine = stored.json<MagazineView>();
      expect(magazine.tags[0]?.name).toBe(`Race ${Number(magazine.title.slice(1)) % 3}`);
    }
  });

  it('ten articles added at once are all counted', async () => {
    const id = await newMagazine();
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        local.client.post(`/magazines/${id}/articles`, articleBody({ title: `Parallel ${i}` })),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(201));
    const list = (await local.client.get(`/magazines/${id}/articles`)).json<{
      metadata: { resultset: { count: number } };
      results: unknown[];
    }>();
    expect(list.metadata.resultset.count).toBe(10);
    expect(list.results).toHaveLength(10);
  });
});
