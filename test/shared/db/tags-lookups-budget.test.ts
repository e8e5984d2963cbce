import { describe, expect, it } from 'vitest';
import { builtList } from '../../../shared/db/fold';
import { encodeDeltas } from '../../../shared/db/items';
import type { Key } from '../../../shared/db/keys';
import { ticketKey } from '../../../shared/db/keys';
import { listTags } from '../../../shared/db/tags';
import { fakeTableWithWrites } from '../../support/fake-table';

/**
 * A `/tags` reader with 250 tags to look up (125 waiting tickets of 2 new tags) reads their state
 * items in three calls, with the page's block and the head replica, and no block whole. Found in
 * `npm run bench:scale`: past 200 lookups it read a block of about 10 KB whole, while the third
 * call it made anyway held a key or two, and a new tag's lookup reads nothing; and it guessed the
 * page's block without the waiting tickets' tags, which under a stream of new tags moved the page
 * into another block.
 */
describe('a /tags page with 250 tags to look up', () => {
  it('looks them all up in three calls and reads no block but the page’s, guessed with the new tags in', async () => {
    const { access, put, calls } = fakeTableWithWrites();
    const id = (i: number, suffix = '') => `t${String(i).padStart(4, '0')}${suffix}`;
    const existing = Array.from({ length: 1200 }, (_, i) => ({
      key: id(i),
      n: 1,
      names: [['T', 1]] as [string, number][],
    }));
    for (const item of builtList('0', 'TAGS', existing, 0)) put(item);
    for (let m = 0; m < 125; m++)
      put({
        ...ticketKey('0', 'TAGS', 1_700_000_000_000 + m, `w${m}`),
        changes: encodeDeltas(
          [0, 1].map((k) => ({ key: id(m * 9 + k * 4, 'x'), n: 1, names: [['New', 1]] as [string, number][] })),
        ),
      });
    const asked: Key[][] = [];
    const getMany = access.getMany;
    const counted = {
      ...access,
      getMany: async (keys: readonly Key[]) => {
        asked.push([...keys]);
        return getMany(keys);
      },
    };
    // A function has read the generation at its start (its init phase): this reader too, then.
    await listTags(access, { start: { offset: 0 }, limit: 1, sort: 'asc' });
    const all = [
      ...existing.map((entry) => entry.key),
      ...Array.from({ length: 125 }, (_, m) => [id(m * 9, 'x'), id(m * 9 + 4, 'x')]).flat(),
    ].sort();
    // 100: inside the first block; 420: past its 400 tags, inside it with the new ones, which the
    // page's blocks guessed before the lookups missed (a call and a block more).
    for (const offset of [100, 420]) {
      calls.length = 0;
      asked.length = 0;
      const page = await listTags(counted, { start: { offset }, limit: 25, sort: 'asc' });
      expect(page.count).toBe(1450);
      expect(page.items.map((tag) => tag.id)).toEqual(all.slice(offset, offset + 25));
      const keys = asked.flat();
      expect(
        keys.filter((key) => String(key.SK).startsWith('B#')),
        `offset ${offset}`,
      ).toHaveLength(1);
      expect(keys.filter((key) => String(key.SK).startsWith('S#'))).toHaveLength(250);
      expect(calls.filter((call) => call === 'BatchGetItem').length).toBeLessThanOrEqual(3);
    }
  });
});
