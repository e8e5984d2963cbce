import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { runsAlone } from '../support/load-lock';
import { type Envelope, type MagazineView, type TagView, useLocalApi } from './expect-api';

/**
 * Lists with the folder running, as `npm start` runs it: writes leave tickets, the folder moves
 * them into counts and blocks (more than one block here), and readers see the same exact lists
 * before, while and after it does: every offset, both orders, year and tag, cursors, and /tags.
 */

runsAlone();
const local = useLocalApi({ folder: true });

interface Stored {
  readonly id: string;
  readonly title: string;
  readonly created: number;
  readonly tags: readonly { readonly id: string; readonly name: string }[];
}

const TAGS = [
  ['news', 'News'],
  ['news', 'news'],
  ['science', 'Science'],
  ['travel', 'Travel'],
  ['art', 'Art'],
  ['food', 'Food'],
] as const;
const YEARS = [1577836800, 1609459200, 1640995200]; // 2020, 2021, 2022

/** A deterministic magazine: created times repeat (several share a second), tags vary in number and spelling. */
const magazineAt = (i: number, variant = 0): Stored => {
  const tags = new Map<string, string>();
  for (let k = 0; k < (i + variant) % 4; k++) {
    const [id, name] = TAGS[(i * 7 + k * 3 + variant) % TAGS.length] ?? TAGS[0];
    if (!tags.has(id)) tags.set(id, name);
  }
  return {
    id: `m${String(i).padStart(3, '0')}`,
    title: `Magazine ${i}.${variant}`,
    created: (YEARS[(i + variant) % 3] ?? 0) + ((i * 13 + variant) % 50),
    tags: [...tags].map(([id, name]) => ({ id, name })),
  };
};

const model = new Map<string, Stored>();

/** Runs `work` over `items`, `concurrency` at a time (as many clients would). */
const inParallel = async <T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>) => {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await work(items[next++] as T);
    }),
  );
};

const put = async (magazine: Stored) => {
  const response = await local.client.put(`/magazines/${magazine.id}`, {
    title: magazine.title,
    created: String(magazine.created),
    tags: magazine.tags,
  });
  expect([200, 201], response.text).toContain(response.status);
  model.set(magazine.id, magazine);
};

const remove = async (id: string) => {
  expect((await local.client.delete(`/magazines/${id}`)).status).toBe(200);
  model.delete(id);
};

const ordered = (filter: (m: Stored) => boolean = () => true) =>
  [...model.values()]
    .filter(filter)
    .sort((a, b) => a.created - b.created || (a.id < b.id ? -1 : 1))
    .map((m) => m.id);

const yearOf = (m: Stored) => new Date(m.created * 1000).getUTCFullYear();

const page = async (query: string) => {
  const response = await local.client.get(`/magazines?${query}`);
  expect(response.status, query).toBe(200);
  return response.json<Envelope<MagazineView>>();
};

/** Every kind of page against the model: offsets, both orders, year, tag, tag and year, a walk by cursor. */
const expectListsMatchModel = async () => {
  const all = ordered();
  for (const offset of [0, 60, 250, all.length - 30]) {
    const asc = await page(`limit=100&offset=${offset}`);
    expect(asc.metadata.resultset.count).toBe(all.length);
    expect(
      asc.results.map((m) => m.id),
      `offset ${offset}`,
    ).toEqual(all.slice(offset, offset + 100));
    const desc = await page(`limit=40&offset=${offset}&sort=desc`);
    expect(
      desc.results.map((m) => m.id),
      `desc offset ${offset}`,
    ).toEqual([...all].reverse().slice(offset, offset + 40));
  }
  const in2021 = ordered((m) => yearOf(m) === 2021);
  const year = await page('year=2021&limit=50&offset=20');
  expect(year.metadata.resultset.count).toBe(in2021.length);
  expect(year.results.map((m) => m.id)).toEqual(in2021.slice(20, 70));
  const news = ordered((m) => m.tags.some((t) => t.id === 'news'));
  const tagged = await page('tag=news&limit=30&offset=40');
  expect(tagged.metadata.resultset.count).toBe(news.length);
  expect(tagged.results.map((m) => m.id)).toEqual(news.slice(40, 70));
  const news2022 = ordered((m) => yearOf(m) === 2022 && m.tags.some((t) => t.id === 'news'));
  const both = await page('tag=news&year=2022&limit=10&offset=5&sort=desc');
  expect(both.metadata.resultset.count).toBe(news2022.length);
  expect(both.results.map((m) => m.id)).toEqual([...news2022].reverse().slice(5, 15));
  // A walk by cursor from a deep offset reaches the end, item after item, with nothing twice.
  const walked: string[] = [];
  let path: string | undefined = '/magazines?limit=45&offset=200';
  while (path) {
    const response = await local.client.get(path);
    expect(response.status).toBe(200);
    walked.push(...response.json<Envelope<MagazineView>>().results.map((m) => m.id));
    const next = /<([^>]+)>;\s*rel="next"/.exec(response.headers.link ?? '')?.[1];
    path = next ? `${new URL(next).pathname.replace(/^\/v1/, '')}${new URL(next).search}` : undefined;
  }
  expect(walked).toEqual(all.slice(200));
  // Tags: how many in use, each one's count and the spelling most of its magazines carry.
  const counts = new Map<string, Map<string, number>>();
  for (const m of model.values())
    for (const tag of m.tags) {
      const names = counts.get(tag.id) ?? new Map<string, number>();
      counts.set(tag.id, names);
      names.set(tag.name, (names.get(tag.name) ?? 0) + 1);
    }
  const tags = (await local.client.get('/tags?limit=100')).json<Envelope<TagView>>();
  expect(tags.metadata.resultset.count).toBe(counts.size);
  for (const tag of tags.results) {
    const names = counts.get(tag.id) ?? new Map();
    const total = [...names.values()].reduce((sum, n) => sum + n, 0);
    expect((tag as TagView & { magazine_count: number }).magazine_count, tag.id).toBe(total);
    const shown = [...names].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))[0]?.[0];
    expect(tag.name, tag.id).toBe(shown);
  }
  const one = (await local.client.get('/tags/news')).json<TagView>();
  expect(one.name).toBe([...(counts.get('news') ?? [])].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))[0]?.[0]);
};

/** Tickets not folded yet in a list's partition, looked at behind the API's back. */
const ticketsLeft = async (list: string) => {
  const { Item: head } = await local.api.documentClient.send(
    new GetCommand({ TableName: local.api.tableName, Key: { PK: 'HEAD#00', SK: 'HEAD' } }),
  );
  const generation = String(head?.generation ?? '0');
  const { Items = [] } = await local.api.documentClient.send(
    new QueryCommand({
      TableName: local.api.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :t)',
      ExpressionAttributeValues: { ':pk': `G#${generation}#L#${list}`, ':t': '#T' },
    }),
  );
  return Items.length;
};

describe('lists folded in the background', () => {
  it('are exact while tickets wait and after the folder took them all, across several blocks', async () => {
    // A bulk write lays the lists out folded, in blocks; single writes then leave tickets in them.
    const seeded = Array.from({ length: 450 }, (_, i) => magazineAt(i));
    const bulk = await local.client.put(
      '/magazines',
      seeded.map((m) => ({ id: m.id, title: m.title, created: String(m.created), tags: m.tags })),
    );
    expect(bulk.status).toBe(200);
    for (const m of seeded) model.set(m.id, m);
    // Created, replaced (new created time, tags or spelling) and deleted while the folder works.
    await inParallel(
      Array.from({ length: 60 }, (_, i) => i * 8),
      24,
      async (i) => (i % 3 === 0 && model.has(magazineAt(i).id) ? remove(magazineAt(i).id) : put(magazineAt(i, 1))),
    );
    await inParallel(
      Array.from({ length: 20 }, (_, i) => 450 + i),
      24,
      (i) => put(magazineAt(i)),
    );
    await expectListsMatchModel();
    await local.api.foldersCaughtUp();
    for (const list of ['ALL', 'TAGS', 'TAG#news']) expect(await ticketsLeft(list), list).toBe(0);
    await expectListsMatchModel();
  }, 120_000);

  it('stay exact with folded counts and fresh tickets together', async () => {
    await inParallel(
      Array.from({ length: 40 }, (_, i) => 400 + i),
      16,
      async (i) => (i % 2 === 0 && model.has(magazineAt(i).id) ? remove(magazineAt(i).id) : put(magazineAt(i, 2))),
    );
    await expectListsMatchModel();
    await local.api.foldersCaughtUp();
    await expectListsMatchModel();
  }, 60_000);
});
