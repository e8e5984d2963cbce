import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { magazineBody, useLocalApi } from './expect-api';

const local = useLocalApi();

/** Waits into the next second, so that a later write gets a later `Last-Modified` (HTTP dates have whole seconds). */
const nextSecond = () => sleep(1100 - (Date.now() % 1000));

/** A list's `Last-Modified` as a client keeps it, and what a revalidation by date then gets. */
const lastModifiedOf = async (path: string) => {
  const response = await local.client.get(path);
  expect(response.status, path).toBe(200);
  return response.headers['last-modified'] ?? 'missing';
};

const revalidate = async (path: string, since: string) => {
  const response = await local.client.get(path, { headers: { 'If-Modified-Since': since } });
  const date = Date.parse(response.headers['last-modified'] ?? 'missing');
  return { status: response.status, date };
};

// A list that a bulk write leaves empty has no count of its own in the new collection: its date
// is the moment the collection was switched, never the epoch, which would make every
// revalidation by date a 304 on a list that has changed.
describe('Last-Modified of the lists a bulk write empties', () => {
  it('DELETE /magazines: /tags and a tag filter answer 200 to a date from before, with a later date', async () => {
    expect((await local.client.post('/magazines', magazineBody({ id: 'a1', tags: [{ name: 'Alpha' }] }))).status).toBe(
      201,
    );
    const paths = ['/tags', '/magazines?tag=alpha', '/magazines', '/magazines?year=2020'];
    const before = new Map<string, string>();
    for (const path of paths) before.set(path, await lastModifiedOf(path));
    await nextSecond();
    expect((await local.client.delete('/magazines')).status).toBe(200);
    for (const path of paths) {
      const since = before.get(path)!;
      const { status, date } = await revalidate(path, since);
      expect(status, `${path} revalidated with ${since}`).toBe(200);
      expect(date, path).toBeGreaterThan(Date.parse(since));
    }
  });

  it('PUT /magazines that drops a tag: the dropped tag filter answers 200 to a date from before', async () => {
    const body = (tag: string) => [magazineBody({ id: 'p1', tags: [{ name: tag }] })];
    expect((await local.client.put('/magazines', body('Beta'))).status).toBe(200);
    const since = await lastModifiedOf('/magazines?tag=beta');
    await nextSecond();
    expect((await local.client.put('/magazines', body('Gamma'))).status).toBe(200);
    const { status, date } = await revalidate('/magazines?tag=beta', since);
    expect(status).toBe(200);
    expect(date).toBeGreaterThan(Date.parse(since));
  });
});
