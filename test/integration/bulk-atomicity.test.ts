import { writeFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { type RecordedCall, startFaultProxy } from '../support/dynamodb-faults';
import { articleBody, useLocalApi } from './expect-api';

/**
 * PUT /magazines is all or nothing as readers see it: cut short after any DynamoDB call it
 * makes, readers see the old collection whole (or the new one whole, once the switch is made),
 * and the same request sent again completes it. `CRASH_MATRIX=all` cuts it after every call and
 * writes the matrix to bench/results/bulk-crashes.md; by default, a few calls of every stage.
 */
const proxy = await startFaultProxy(inject('dynamoDbEndpoint'));
afterAll(() => proxy.close());
afterEach(() => proxy.clearFaults());

const local = useLocalApi({ env: { DYNAMODB_ENDPOINT: proxy.endpoint } });

const SIZE = 90;
const created = 1_600_000_000;
const magazine = (id: string, title: string, tags: string[], i: number) => ({
  id,
  title,
  tags: tags.map((name) => ({ name })),
  created: created + i * 86_400,
});
const oldSet = Array.from({ length: SIZE }, (_, i) => magazine(`o-${i}`, `Old ${i}`, [i % 2 ? 'tb' : 'ta'], i));
const newSet = [
  ...Array.from({ length: SIZE / 2 }, (_, i) => magazine(`o-${i}`, `New ${i}`, ['ta', 'tc'], i)),
  ...Array.from({ length: SIZE / 2 }, (_, i) => magazine(`n-${i}`, `Fresh ${i}`, ['tc'], SIZE + i)),
];

type Listed = { metadata: { resultset: { count: number } }; results: { id: string; title: string }[] };

/** Everything a reader can see of the collection, in one value. */
const observe = async (removedArticle: string) => {
  const get = (path: string) => local.client.get(path);
  const list = (path: string) => get(path).then((answer) => answer.json<Listed>());
  const all = await list('/magazines?limit=100');
  const tagCounts: Record<string, number> = {};
  for (const tag of ['ta', 'tb', 'tc']) {
    const answer = await get(`/tags/${tag}/magazines?limit=1`);
    tagCounts[tag] = answer.status === 200 ? answer.json<Listed>().metadata.resultset.count : 0;
  }
  return {
    count: all.metadata.resultset.count,
    magazines: all.results.map(({ id, title }) => `${id}=${title}`).sort(),
    second: (await list('/magazines?limit=1&offset=1&sort=desc')).results.map(({ id }) => id),
    tags: (await list('/tags')).results.map(({ id }) => id).sort(),
    tagCounts,
    o0: (await get('/magazines/o-0')).json<{ title: string }>().title,
    o89: (await get('/magazines/o-89')).status,
    keptArticles: (await list('/magazines/o-0/articles')).metadata.resultset.count,
    removedArticle: (await get(removedArticle)).status,
  };
};

const replace = (body: unknown) => local.client.put('/magazines', body);

/** The old collection, with articles on a magazine the new one keeps and on one it drops. */
const arrange = async () => {
  expect((await replace(oldSet)).status).toBe(200);
  const removed = await local.client.post('/magazines/o-89/articles', articleBody());
  expect(removed.status).toBe(201);
  return new URL(removed.headers.location!).pathname;
};

let oldView: Awaited<ReturnType<typeof observe>>;
let newView: Awaited<ReturnType<typeof observe>>;
let calls: RecordedCall[] = [];

const stageOf = (call: RecordedCall, index: number, all: readonly RecordedCall[]) => {
  const text = JSON.stringify(call.request);
  const firstSeal = all.findIndex((c) => JSON.stringify(c.request).includes('#GUARD#'));
  const theSwitch = all.findIndex(
    (c) => c.operation === 'TransactWriteItems' && JSON.stringify(c.request).includes('HEAD#'),
  );
  if (index === theSwitch) return 'switch';
  if (theSwitch >= 0 && index > theSwitch) return 'clean-up';
  if (text.includes('#GUARD#')) return 'seal';
  if (firstSeal < 0 || index < firstSeal) return 'claim';
  return 'build';
};

beforeAll(async () => {
  expect((await local.client.post('/magazines/o-0/articles', articleBody())).status).toBe(404);
  const removedArticle = await arrange();
  expect((await local.client.post('/magazines/o-0/articles', articleBody())).status).toBe(201);
  oldView = await observe(removedArticle);
  proxy.resetCalls();
  expect((await replace(newSet)).status).toBe(200);
  calls = proxy.takeCalls();
  newView = await observe(removedArticle);
  expect(newView).not.toEqual(oldView);
  expect(newView).toMatchObject({ count: SIZE, o0: 'New 0', o89: 404, removedArticle: 404, keptArticles: 1 });
  expect(oldView).toMatchObject({ count: SIZE, o0: 'Old 0', o89: 200, removedArticle: 200, keptArticles: 1 });
}, 120_000);

/** Call indexes to cut after: every one, or the first, middle and last of each stage. */
const cutPoints = () => {
  if (process.env.CRASH_MATRIX === 'all') return calls.map((_, index) => index);
  const byStage = new Map<string, number[]>();
  calls.forEach((call, index) => {
    const stage = stageOf(call, index, calls);
    byStage.set(stage, [...(byStage.get(stage) ?? []), index]);
  });
  return [...byStage.values()].flatMap((indexes) => [
    ...new Set([indexes[0]!, indexes[Math.floor(indexes.length / 2)]!, indexes.at(-1)!]),
  ]);
};

describe('PUT /magazines cut short', () => {
  it('after any of its DynamoDB calls: readers see the old collection or, once switched, the new one; the same request again completes it', {
    timeout: 600_000,
  }, async () => {
    const rows: string[] = [];
    for (const cut of cutPoints()) {
      const removedArticle = await arrange();
      expect(await observe(removedArticle)).toEqual({ ...oldView });
      // Every call from this one on fails, as if the store went away for good.
      proxy.inject({ fault: 'internal', after: cut });
      const answer = await replace(newSet);
      proxy.clearFaults();
      const seen = await observe(removedArticle);
      const saw =
        JSON.stringify(seen) === JSON.stringify(oldView)
          ? 'old'
          : JSON.stringify(seen) === JSON.stringify(newView)
            ? 'new'
            : 'MIXED';
      const stage = stageOf(calls[cut]!, cut, calls);
      rows.push(`| ${cut} | ${calls[cut]!.operation} | ${stage} | ${answer.status} | ${saw} |`);
      expect(saw, `cut after call ${cut} (${stage}): ${JSON.stringify(seen)}`).not.toBe('MIXED');
      if (answer.status === 200) expect(saw).toBe('new');
      else expect([answer.status, answer.headers['retry-after'] !== undefined]).toEqual([503, true]);
      const again = await replace(newSet);
      expect(again.status, again.text).toBe(200);
      expect(await observe(removedArticle)).toEqual(newView);
    }
    if (process.env.CRASH_MATRIX === 'all')
      writeFileSync(
        new URL('../../bench/results/bulk-crashes.md', import.meta.url),
        `# PUT /magazines (${SIZE} over ${SIZE}) cut short after each DynamoDB call\n\n| call | operation | stage | answer | readers saw |\n|---|---|---|---|---|\n${rows.join('\n')}\n`,
      );
  });

  it('a switch whose answer was lost: the request knows it was made, answers 200, and readers see the new collection', {
    timeout: 60_000,
  }, async () => {
    const removedArticle = await arrange();
    proxy.inject({
      operations: (call) => call.operation === 'TransactWriteItems' && JSON.stringify(call.request).includes('HEAD#'),
      fault: { kind: 'lostReply', reply: 'drop' },
    });
    const answer = await replace(newSet);
    proxy.clearFaults();
    expect(answer.status, answer.text).toBe(200);
    expect(await observe(removedArticle)).toEqual(newView);
  });

  it('of elements sent without an id: the same request again completes it, rather than waiting out the claim of the first', {
    timeout: 60_000,
  }, async () => {
    await arrange();
    const anonymous = newSet.map(({ id: _id, ...rest }) => rest);
    proxy.inject({ fault: 'internal', after: calls.findIndex((call, i, all) => stageOf(call, i, all) === 'build') });
    const answer = await replace(anonymous);
    proxy.clearFaults();
    expect([answer.status, answer.headers['retry-after'] !== undefined]).toEqual([503, true]);
    const again = await replace(anonymous);
    expect(again.status, again.text).toBe(200);
    const listed = (await local.client.get('/magazines?limit=100')).json<Listed>();
    expect(listed.metadata.resultset.count).toBe(SIZE);
    expect(listed.results.map(({ title }) => title).sort()).toEqual(newSet.map(({ title }) => title).sort());
  });
});
