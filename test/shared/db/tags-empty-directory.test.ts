import { describe, expect, it } from 'vitest';
import { encodeDeltas } from '../../../shared/db/items';
import { ticketKey } from '../../../shared/db/keys';
import { listTags } from '../../../shared/db/tags';
import { fakeTable } from '../../support/fake-table';

/**
 * A `TAGS` with no block yet (a new collection, or one a bulk write left without tags) and a
 * backlog of tickets bringing new tags (the folder behind, or failing): every ticket's tag is
 * looked up in a state item, a hundred a call, with no bound: the whole-block fallback stops at
 * `blocks[index] === undefined`. With no block, no tag outside the overlay can have a state item.
 */
describe('a /tags read of a TAGS with no block and many tickets', () => {
  it('makes a bounded number of calls', async () => {
    const { access, put, calls } = fakeTable();
    for (let m = 0; m < 100; m++)
      put({
        ...ticketKey('0', 'TAGS', 1_700_000_000_000 + m, `w${m}`),
        changes: encodeDeltas(
          Array.from({ length: 32 }, (_, k) => ({
            key: `t${m}x${k}`,
            n: 1,
            names: [[`T${m}.${k}`, 1]] as [string, number][],
          })),
        ),
      });
    const page = await listTags(access, { start: { offset: 0 }, limit: 25, sort: 'asc' });
    expect(page.count).toBe(3200);
    expect(page.items).toHaveLength(25);
    expect(calls.length, calls.join(', ')).toBeLessThanOrEqual(3);
  });
});
