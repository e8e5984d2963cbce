import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { magazineKey } from '../../../shared/db/keys';
import { listMagazines } from '../../../shared/db/magazine-list';
import { createMagazine } from '../../../shared/db/magazines';
import { StoreUnavailable } from '../../../shared/domain/errors';
import { uuidOf } from '../../support/load-data';
import { useWireTable } from '../../support/wire-table';

/**
 * What a page's magazines cost on the wire, on DynamoDB Local. With the ids the API makes (UUIDs),
 * `npm run bench:scale -- --uuid-ids` read 100 magazines of 380 bytes for a page of 100: 37.1 KB
 * of a 73.5 KB page. Each came back with its partition key (its id again, in 56 bytes) and its
 * sort key, which only matched it with what was asked; its id tells that.
 */
// Made a second apart in this order, which is the list's order.
const ids = Array.from({ length: 30 }, (_, i) => uuidOf(`wire-${i}`));
const { tableName, direct, reading } = useWireTable('magazine-wire', (writes) =>
  Promise.all(
    ids.map((id, i) =>
      createMagazine(writes(), {
        id,
        title: `Magazine ${i}`,
        tags: [{ id: 'topic-00', name: 'Topic 00' }],
        created: 1_700_000_000 + i,
      }),
    ),
  ),
);
const firstPage = { start: { offset: 0 }, limit: 25, sort: 'asc' } as const;

describe('a page of magazines with the ids the API makes', () => {
  it('reads each magazine without the keys its id tells', async () => {
    const { value: page, batches } = await reading((access) => listMagazines(access, {}, firstPage));
    expect(page?.count).toBe(30);
    expect(page?.items.map((magazine) => magazine.id)).toEqual(ids.slice(0, 25));
    expect(page?.items[3]).toMatchObject({ title: 'Magazine 3', tags: [{ id: 'topic-00', name: 'Topic 00' }] });
    // The last call asks for the magazines (and a head replica): 322 bytes a magazine with both
    // keys, 242 with neither, 214 with its tag as one string rather than a map of id and name.
    const magazines = batches.at(-1);
    expect(magazines?.responseBytes ?? 0).toBeGreaterThan(0);
    expect((magazines?.responseBytes ?? 0) / 25).toBeLessThan(225);
  });

  it("reads each waiting ticket with its write token's first 64 bits, not all of its UUID", async () => {
    // Nothing folded these creates, so the page's Query reads their 30 tickets of `ALL`: 124 bytes
    // a ticket with the token's 128 bits (22 characters), 113 with 64 (11).
    const { calls } = await reading((access) => listMagazines(access, {}, firstPage));
    const query = calls.find((call) => call.operation === 'Query');
    expect(query?.responseBytes ?? 0).toBeGreaterThan(30 * 100);
    expect((query?.responseBytes ?? 0) / 30).toBeLessThan(116);
  });

  it('finds a magazine item whose id is gone corrupt (a defect, 500), not a list that moved (503)', async () => {
    await direct.send(
      new UpdateCommand({ TableName: tableName, Key: magazineKey('0', ids[5] ?? ''), UpdateExpression: 'REMOVE id' }),
    );
    const { error } = await reading((access) => listMagazines(access, {}, firstPage));
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(StoreUnavailable);
    expect(String(error)).toMatch(/id is not a string/);
  });
});
