import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { localDynamoDbClient } from '../../../local/dynamodb-local';
import { ensureTable } from '../../../local/ensure-table';
import { ADMIT_LOOKUPS, closedUntil, closingEnd } from '../../../shared/db/admission';
import { FLOW_TICKETS, foldList, WATCH_AFTER_MS } from '../../../shared/db/folder';
import { readGeneration } from '../../../shared/db/generation';
import { admissionKey, listPartition, TICKET_PREFIX } from '../../../shared/db/keys';
import { createMagazine } from '../../../shared/db/magazines';
import { sleep, tableAccess } from '../../../shared/db/table-access';
import type { TagRef } from '../../../shared/domain/tag';
import { ADMISSION_CLOSED_MS } from '../../../shared/timing';
import { eightHundredTags } from '../../support/tags-fixture';

/**
 * Found by `npm run bench:scale` under 100,000 new tags with scattered ids: a `TAGS` run that
 * closed it to new tags ended once it caught up, and the writes it held back all went when the
 * closing lapsed, with no folder to read them till the stream's next batch, a second or more
 * later. Readers met up to 137 tickets and 548 tags to look up: 7 calls. A run that closed `TAGS`
 * reads on till its closing has lapsed, and folds what the writes it held back left.
 */
const client = localDynamoDbClient(inject('dynamoDbEndpoint'));
const writer = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
const tableName = `fold-watch-${randomUUID()}`;
const writes = () => tableAccess(writer, tableName, Date.now() + 30_000);
const tag = (id: string): TagRef => ({ id, name: id.toUpperCase() });

let generation = '';

/** `count` magazines at once, each with `perMagazine` new tags among those merged: a reader looks each one up. */
const createScattered = (prefix: string, count: number, perMagazine = 4) =>
  Promise.all(
    Array.from({ length: count }, (_, m) =>
      createMagazine(writes(), {
        id: `${prefix}${m}`,
        title: 'Scattered',
        created: undefined,
        tags: Array.from({ length: perMagazine }, (_, k) => tag(`t${String(m * 20 + k).padStart(4, '0')}${prefix}`)),
      }),
    ),
  );

/** Runs a fold of `TAGS` and, once it has closed `TAGS`, `meanwhile` (whose writes wait for the closing to lapse). */
const foldClosing = async (meanwhile: () => Promise<unknown>) => {
  const began = Date.now();
  const run = foldList(writes(), generation, 'TAGS', undefined, Date.now(), true);
  let until = 0;
  while (until <= Date.now() && Date.now() < began + 5_000) {
    await sleep(10);
    until = closedUntil(await writes().get(admissionKey(generation)));
  }
  expect(until).toBeGreaterThan(Date.now());
  const [folded] = await Promise.all([run, meanwhile()]);
  return { folded, until };
};

const ticketsWaiting = async () => {
  const { items } = await writes().query({
    KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
    ExpressionAttributeNames: { '#pk': 'PK', '#sk': 'SK' },
    ExpressionAttributeValues: { ':pk': listPartition(generation, 'TAGS'), ':prefix': TICKET_PREFIX },
  });
  return items.length;
};

beforeAll(async () => {
  await ensureTable(client, tableName, { stream: false });
  // 800 tags merged into `TAGS`'s blocks, `t0000` to `t0799`.
  await eightHundredTags(writes, (i) => tag(`t${String(i).padStart(4, '0')}`));
  generation = await readGeneration(writes());
});

describe('a TAGS run that closed it to new tags', () => {
  it('folds the tickets of the writes it held back, which go when its closing lapses', async () => {
    const backlog = Math.ceil(ADMIT_LOOKUPS / 4);
    await createScattered('a', backlog);
    // Made while `TAGS` is closed: each waits for the closing to lapse, then all write at once.
    const { folded, until } = await foldClosing(() => createScattered('b', FLOW_TICKETS));
    expect(folded).toBe(backlog + FLOW_TICKETS);
    expect(await ticketsWaiting()).toBe(0);
    // And it ended, caught up, soon after: its watch is bounded.
    expect(Date.now()).toBeLessThan(closingEnd(until) + ADMISSION_CLOSED_MS + WATCH_AFTER_MS + 4_000);
  });

  it('folds a few held-back tickets that name many tags, rather than wait for more with TAGS closed', async () => {
    const backlog = Math.ceil(ADMIT_LOOKUPS / 4);
    await createScattered('c', backlog);
    // Fewer tickets than a flowing fold takes, naming more tags than close TAGS: waiting for more,
    // the run renewed the closing at each read, and kept them out, till its deadline.
    const few = 4;
    const perMagazine = Math.ceil(ADMIT_LOOKUPS / few) + 1;
    expect(few).toBeLessThan(FLOW_TICKETS);
    const { folded, until } = await foldClosing(() => createScattered('d', few, perMagazine));
    expect(folded).toBe(backlog + few);
    expect(await ticketsWaiting()).toBe(0);
    expect(Date.now()).toBeLessThan(closingEnd(until) + ADMISSION_CLOSED_MS + WATCH_AFTER_MS + 4_000);
  });
});
