import { describe, expect, it } from 'vitest';
import { useLocalApi } from './expect-api';

/**
 * Readers polling while PUT /magazines and DELETE /magazines run see, in every answer, the old
 * collection whole or the new one whole, and never the old one again once they saw the new.
 * `BULK_SIZE` sets the collection's size (10,000 in `npm run fuzz`; 2,000 in `npm test`).
 */
const local = useLocalApi();

const SIZE = Number(process.env.BULK_SIZE ?? 2_000);
const created = 1_600_000_000;
const magazine = (id: string, title: string, tag: string, i: number) => ({
  id,
  title,
  tags: [{ name: tag }],
  created: created + i * 3_600,
});
const oldSet = Array.from({ length: SIZE }, (_, i) => magazine(`o-${i}`, `Old ${i}`, 'shared', i));
const newSet = [
  ...Array.from({ length: SIZE / 2 }, (_, i) => magazine(`o-${i}`, `New ${i}`, 'shared', i)),
  ...Array.from({ length: SIZE / 2 }, (_, i) => magazine(`n-${i}`, `New ${i}`, i % 2 ? 'shared' : 'other', SIZE + i)),
];

type Listed = { metadata: { resultset: { count: number } }; results: { id: string; title: string }[] };
type Version = 'old' | 'new';

/** What each version shows, answer by answer: every reader's answer must be one of them, whole. */
const expected = (set: readonly ReturnType<typeof magazine>[]) => {
  const sorted = [...set].sort((a, b) => a.created - b.created || a.id.localeCompare(b.id));
  const shared = sorted.filter((m) => m.tags[0]?.name === 'shared');
  const page = (list: typeof sorted, offset: number) =>
    JSON.stringify({
      count: list.length,
      ids: list.slice(offset, offset + 3).map((m) => `${m.id}=${m.title}`),
    });
  return {
    all: page(sorted, Math.floor(SIZE / 2)),
    // A tag no magazine carries is not a resource.
    shared: shared.length > 0 ? page(shared, 0) : '404',
    o0: set.find((m) => m.id === 'o-0')?.title ?? 404,
    last: set.some((m) => m.id === `o-${SIZE - 1}`) ? 200 : 404,
  };
};

const reader = (views: Record<Version, ReturnType<typeof expected>>, until: () => boolean) => async () => {
  const seen: Version[] = [];
  const versionOf = (what: keyof ReturnType<typeof expected>, value: unknown) => {
    const matches = (['old', 'new'] as const).filter((version) => views[version][what] === value);
    expect(matches.length, `${what}: ${String(value)} is neither the old collection nor the new`).toBeGreaterThan(0);
    // An answer both versions give tells nothing; otherwise it must not go back.
    if (matches.length === 1) seen.push(matches[0]!);
  };
  const listed = async (path: string) => {
    const answer = await local.client.get(path);
    if (answer.status !== 200) return String(answer.status);
    const body = answer.json<Listed>();
    return JSON.stringify({
      count: body.metadata.resultset.count,
      ids: body.results.map(({ id, title }) => `${id}=${title}`),
    });
  };
  let polls = 0;
  while (!until() || polls === 0) {
    polls += 1;
    versionOf('all', await listed(`/magazines?limit=3&offset=${Math.floor(SIZE / 2)}`));
    versionOf('shared', await listed('/tags/shared/magazines?limit=3'));
    const o0 = await local.client.get('/magazines/o-0');
    versionOf('o0', o0.status === 200 ? o0.json<{ title: string }>().title : o0.status);
    versionOf('last', (await local.client.get(`/magazines/o-${SIZE - 1}`)).status);
  }
  const firstNew = seen.indexOf('new');
  if (firstNew >= 0)
    expect(seen.slice(firstNew), 'once the new collection was seen, the old one never again').not.toContain('old');
  return { polls, sawOld: seen.includes('old'), sawNew: seen.includes('new') };
};

/**
 * Sends a bulk write as a client that honours `Retry-After` does: a write too large for one
 * invocation answers 503 having noted its progress, and the same request sent again carries on.
 */
const untilDone = async (send: () => Promise<{ status: number; headers: Record<string, string | undefined> }>) => {
  for (let attempt = 0; ; attempt++) {
    const answer = await send();
    if (answer.status !== 503 || attempt >= 20) return answer.status;
    await new Promise((resolve) => setTimeout(resolve, Number(answer.headers['retry-after'] ?? 1) * 1000));
  }
};

const pollWhile = async (views: Record<Version, ReturnType<typeof expected>>, write: () => Promise<number>) => {
  let done = false;
  const readers = Array.from({ length: 4 }, () => reader(views, () => done)());
  const status = await write().finally(() => {
    done = true;
  });
  const seen = await Promise.all(readers);
  return { status, seen };
};

describe(`readers polling during a bulk write of ${SIZE.toLocaleString('en')} magazines`, { timeout: 600_000 }, () => {
  it('PUT /magazines: every answer is the old collection or the new, and never the old after the new', async () => {
    expect(await untilDone(() => local.client.put('/magazines', oldSet))).toBe(200);
    const { status, seen } = await pollWhile({ old: expected(oldSet), new: expected(newSet) }, () =>
      untilDone(() => local.client.put('/magazines', newSet)),
    );
    expect(status).toBe(200);
    expect(seen.reduce((sum, reader) => sum + reader.polls, 0)).toBeGreaterThan(4);
    expect(seen.some((reader) => reader.sawOld)).toBe(true);
  });

  it('DELETE /magazines: every answer is the whole collection or none of it', async () => {
    const { status } = await pollWhile({ old: expected(newSet), new: expected([]) }, () =>
      untilDone(() => local.client.delete('/magazines')),
    );
    expect(status).toBe(200);
    expect((await local.client.get('/magazines')).json<Listed>().metadata.resultset.count).toBe(0);
  });
});
