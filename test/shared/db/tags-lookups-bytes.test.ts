import { describe, expect, it } from 'vitest';
import { builtList } from '../../../shared/db/fold';
import { decodeDirectory, encodeDeltas } from '../../../shared/db/items';
import { directoryKey, type Key, ticketKey } from '../../../shared/db/keys';
import { listTags } from '../../../shared/db/tags';
import { fakeTableWithWrites } from '../../support/fake-table';

/**
 * What a `/tags` reader looks up when tickets of new tags wait: found in `npm run bench:scale`,
 * where 100,000 tags were made through the API, 4 new ones a POST.
 * - Ids that sort after every tag merged so far (made from a counter or a time) were looked up one
 *   by one, 100 to a call, though none can have a state item: the directory says which tag is
 *   the last ever merged.
 * - Ids scattered over the blocks (made from unrelated names), past three calls of lookups, made
 *   the reader read every block holding two of them whole: 5.4 MB a page with 1,900 tickets.
 * - Ids that fall in one block (made from a counter not padded: `t-10000` sorts before `t-1001`),
 *   past three calls, made it read that block whole, 19 KB of a page of 63–69 KB, where a fourth
 *   call of lookups reads nothing.
 */
const id = (i: number, suffix = '') => `t${String(i).padStart(5, '0')}${suffix}`;
const spelled = (key: string) => ({ key, n: 1, names: [[`Name of ${key}`, 1]] as [string, number][] });

const tableOf = (existing: number, tickets: number, newTags: (m: number) => string[]) => {
  const { access, put, calls } = fakeTableWithWrites();
  for (const item of builtList(
    '0',
    'TAGS',
    Array.from({ length: existing }, (_, i) => spelled(id(i))),
    0,
  ))
    put(item);
  for (let m = 0; m < tickets; m++)
    put({
      ...ticketKey('0', 'TAGS', 1_700_000_000_000 + m, `w${m}`),
      changes: encodeDeltas(newTags(m).map(spelled)),
    });
  const asked: Key[][] = [];
  const counted = {
    ...access,
    getMany: async (keys: readonly Key[]) => {
      asked.push([...keys]);
      return access.getMany(keys);
    },
  };
  return { access, counted, calls, asked };
};

const kinds = (asked: readonly Key[][]) => ({
  blocks: asked.flat().filter((key) => String(key.SK).startsWith('B#')).length,
  states: asked.flat().filter((key) => String(key.SK).startsWith('S#')).length,
});

describe('a /tags page with new tags waiting', () => {
  it('looks up none of those whose ids sort after the last tag ever merged', async () => {
    const { access, counted, calls, asked } = tableOf(1200, 125, (m) => [id(5000 + 2 * m), id(5001 + 2 * m)]);
    const directory = decodeDirectory(await access.get(directoryKey('0', 'TAGS')));
    expect(directory.high).toBe(id(1199));
    // The generation, read once in a function's init phase.
    await listTags(access, { start: { offset: 0 }, limit: 1, sort: 'asc' });
    calls.length = 0;
    const page = await listTags(counted, { start: { offset: 1190 }, limit: 25, sort: 'asc' });
    expect(page.count).toBe(1450);
    expect(page.items.map((tag) => tag.id)).toEqual([
      ...Array.from({ length: 10 }, (_, i) => id(1190 + i)),
      ...Array.from({ length: 15 }, (_, i) => id(5000 + i)),
    ]);
    expect(kinds(asked).states).toBe(0);
    expect(calls, calls.join(', ')).toEqual(['Query', 'BatchGetItem']);
  });

  it('looks up 350 in one block in four calls, reading only the page’s block', async () => {
    const { access, counted, calls, asked } = tableOf(1200, 175, (m) => [id(600, `a${m}`), id(600, `b${m}`)]);
    await listTags(access, { start: { offset: 0 }, limit: 1, sort: 'asc' });
    calls.length = 0;
    const page = await listTags(counted, { start: { offset: 0 }, limit: 25, sort: 'asc' });
    expect(page.count).toBe(1550);
    expect(page.items.map((tag) => tag.id)).toEqual(Array.from({ length: 25 }, (_, i) => id(i)));
    expect(kinds(asked)).toEqual({ blocks: 1, states: 350 });
    expect(calls.filter((call) => call === 'BatchGetItem')).toHaveLength(4);
  });

  it('looks up scattered ones a hundred to a call, reading no block whole but the page’s', async () => {
    // 4,000 tags in blocks of 200 to 400; 160 tickets of two new tags, a few in every block.
    const { access, counted, calls, asked } = tableOf(4000, 160, (m) => [id(m * 25, 'x'), id(m * 25 + 12, 'x')]);
    await listTags(access, { start: { offset: 0 }, limit: 1, sort: 'asc' });
    calls.length = 0;
    const page = await listTags(counted, { start: { offset: 0 }, limit: 25, sort: 'asc' });
    expect(page.count).toBe(4320);
    expect(page.items.map((tag) => tag.id)).toEqual(
      [...Array.from({ length: 25 }, (_, i) => id(i)), id(0, 'x'), id(12, 'x')].sort().slice(0, 25),
    );
    expect(kinds(asked)).toEqual({ blocks: 1, states: 320 });
    expect(calls.filter((call) => call === 'BatchGetItem')).toHaveLength(4);
  });
});
