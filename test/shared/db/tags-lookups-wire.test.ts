import { describe, expect, it } from 'vitest';
import { listTags } from '../../../shared/db/tags';
import { threeBlocksOfTags } from '../../support/tags-fixture';
import { useWireTable } from '../../support/wire-table';

/**
 * What a `/tags` reader's lookups of tag states cost on the wire, on DynamoDB Local. Under a flood
 * of new tags (`npm run bench:scale`, 100,000 tags made through the API) one page looked up 243
 * state items at 136 bytes each, 32.3 KB of a 68.3 KB page: each came back with its partition key,
 * the same for all of them, and the stamp that only the folder's writes are conditioned on.
 */
const tag = (i: number) => ({ id: `t${String(i).padStart(4, '0')}`, name: `T${i}` });
// 800 tags merged into blocks, with their state items; then 7 magazines deleted, whose 224 tags
// the waiting tickets name and a reader looks up.
const { reading } = useWireTable('tags-wire', (writes) => threeBlocksOfTags(writes, tag));

describe('a /tags page that looks tags up', () => {
  it('reads each state item without the keys and attributes it does not use', async () => {
    const { value: page, batches } = await reading((access) =>
      listTags(access, { start: { offset: 0 }, limit: 25, sort: 'asc' }),
    );
    expect(page?.count).toBe(800 - 224);
    expect(page?.items.map((item) => item.id)).toEqual(Array.from({ length: 25 }, (_, i) => tag(i).id));
    const asked = batches.flatMap((call) => {
      const request = call.request as { RequestItems: Record<string, { Keys: { SK: { S: string } }[] }> };
      return Object.values(request.RequestItems).flatMap((table) => table.Keys.map((key) => key.SK.S));
    });
    const states = asked.filter((sk) => sk.startsWith('S#')).length;
    const blocks = asked.filter((sk) => sk.startsWith('B#')).length;
    expect({ states, blocks }).toEqual({ states: 224, blocks: 1 });
    // The calls' bytes over the lookups, the page's block and a head replica included: 144 when
    // each state item came whole (32.4 KB), 90 with only its sort key and states (20.2 KB).
    const bytes = batches.reduce((total, call) => total + call.responseBytes, 0);
    expect(bytes / states).toBeLessThan(100);
  });
});
