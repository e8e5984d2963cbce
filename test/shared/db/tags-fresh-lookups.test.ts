import { beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureTable } from '../../../local/ensure-table';
import { readGeneration } from '../../../shared/db/generation';
import { decodeTicket } from '../../../shared/db/items';
import { countsKey } from '../../../shared/db/keys';
import { createMagazine } from '../../../shared/db/magazines';
import { eightHundredTags, pagesAroundAFold, tableWithNotedReads } from '../../support/tags-fixture';

/**
 * A `/tags` read while creates of scattered new tags wait for the folder: their ids fall among the
 * tags already in blocks, so without the fresh mark every one is a state item to look up (560 of
 * them: four calls, a block read whole). 800 tags made by a bulk write (three blocks), then 280
 * magazines of 2 new tags each, none of it folded yet.
 */
const { client, tableName, calls, writes, reads } = tableWithNotedReads(inject('dynamoDbEndpoint'), 'tag-fresh');

const tag = (i: number) => ({ id: `t${String(i).padStart(4, '0')}`, name: `T${i}` });
// Between tag(i) and tag(i + 1): `t0123n`.
const scattered = (i: number) => ({ id: `${tag(i).id}n`, name: `N${i}` });
const NEW = 280;

beforeAll(async () => {
  await ensureTable(client, tableName, { stream: false });
  await eightHundredTags(writes, tag);
  for (let i = 0; i < NEW; i++)
    await createMagazine(writes(), {
      id: `n${i}`,
      title: `N ${i}`,
      tags: [scattered(i), scattered(400 + i)],
      created: 1_700_000_000 + i,
    });
}, 120_000);

const inUse = [
  ...Array.from({ length: 800 }, (_, i) => tag(i).id),
  ...Array.from({ length: NEW }, (_, i) => scattered(i).id),
  ...Array.from({ length: NEW }, (_, i) => scattered(400 + i).id),
].sort();

describe('a page of /tags with hundreds of creates of scattered new tags waiting', () => {
  it('marks their tickets fresh', async () => {
    const generation = await readGeneration(writes());
    const { items } = await writes().query({
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :t)',
      ExpressionAttributeValues: { ':pk': countsKey(generation, 'TAGS').PK, ':t': '#T' },
    });
    // All but the first: that instance had read no end mark before.
    const fresh = items.map(decodeTicket).filter((ticket) => ticket.fresh);
    expect(fresh.length).toBe(NEW - 1);
    expect(fresh[0]?.fresh).toEqual({ stamp: 0, ids: [scattered(1).id, scattered(401).id] });
  });

  it('counts and pages exactly in two calls, looking up none of them, before the folder and after it', async () => {
    await pagesAroundAFold({ writes, reads, calls }, inUse, (calls, where) =>
      expect(calls, where).toEqual(['QueryCommand', 'BatchGetItemCommand']),
    );
  });
});
