import { beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureTable } from '../../../local/ensure-table';
import { foldList } from '../../../shared/db/folder';
import { readGeneration } from '../../../shared/db/generation';
import { decodeOverlay } from '../../../shared/db/items';
import { overlayKey } from '../../../shared/db/keys';
import { createMagazine } from '../../../shared/db/magazines';
import { storedBytes } from '../../../shared/db/ranked';
import { OVERLAY_MERGE_AT, OVERLAY_MERGE_BYTES } from '../../../shared/db/tag-states';
import { listTags } from '../../../shared/db/tags';
import { pagesAroundAFold, tableWithNotedReads, threeBlocksOfTags } from '../../support/tags-fixture';

/**
 * A `/tags` read with many tickets waiting (the folder behind a stream of new tags): whatever their
 * number, what each ticket's tag was at the snapshot is found in at most a few calls, in its state
 * item or, past three calls' worth of them, in its block, and the count and the page are exact.
 * 800 tags made by a bulk write (three blocks), then 280 magazines of 2 new tags each and 7
 * magazines deleted, none of it folded yet.
 */
const { client, tableName, calls, writes, reads } = tableWithNotedReads(inject('dynamoDbEndpoint'), 'tag-lookups');

const tag = (i: number) => ({ id: `t${String(i).padStart(4, '0')}`, name: `T${i}` });
const NEW = 280;

beforeAll(async () => {
  await ensureTable(client, tableName, { stream: false });
  await threeBlocksOfTags(writes, tag);
  // New tags 1000 and up come into use, two a magazine, and no folder runs.
  for (let i = 0; i < NEW; i++)
    await createMagazine(writes(), {
      id: `n${i}`,
      title: `N ${i}`,
      tags: [tag(1000 + 2 * i), tag(1001 + 2 * i)],
      created: 1_700_000_000 + i,
    });
}, 120_000);

const inUse = [
  ...Array.from({ length: 192 }, (_, i) => tag(i).id),
  ...Array.from({ length: 384 }, (_, i) => tag(416 + i).id),
  ...Array.from({ length: 2 * NEW }, (_, i) => tag(1000 + i).id),
].sort();

describe('a page of /tags with hundreds of tickets waiting', () => {
  it('counts and pages exactly in at most four calls, before the folder and after it', async () => {
    await pagesAroundAFold({ writes, reads, calls }, inUse, (calls, where) =>
      expect(calls.length, where).toBeLessThanOrEqual(4),
    );
  });

  it('leaves the overlay no bigger than a quiet fold leaves it once the tickets are all folded', async () => {
    const generation = await readGeneration(writes());
    await foldList(writes(), generation, 'TAGS');
    const { entries: overlay, merged } = decodeOverlay((await writes().get(overlayKey(generation))) ?? {});
    // 560 new tags: without merging on after the last ticket, a few hundred stay in every read.
    expect(overlay.length).toBeLessThanOrEqual(OVERLAY_MERGE_AT);
    expect(storedBytes(overlay)).toBeLessThanOrEqual(OVERLAY_MERGE_BYTES);
    // And the tags merged last have their state items: none is left in the overlay.
    expect(merged).toEqual([]);
    const page = await listTags(reads(), { start: { offset: 1000 }, limit: 25, sort: 'asc' });
    expect(page.count).toBe(inUse.length);
    expect(page.items.map((t) => t.id)).toEqual(inUse.slice(1000, 1025));
  });
});
