import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { localDynamoDbClient } from '../../../local/dynamodb-local';
import { ensureTable } from '../../../local/ensure-table';
import { ADMIT_LOOKUPS, admissionKeeper, closedUntil, closingEnd, HOLD_LOOKUPS } from '../../../shared/db/admission';
import { admissionKey } from '../../../shared/db/keys';
import { sleep, type TableAccess, tableAccess } from '../../../shared/db/table-access';
import { ADMISSION_CLOSED_MS, ADMISSION_RENEW_MS } from '../../../shared/timing';

/**
 * The folder's keeper of `TAGS`'s closing (admission.ts), told what each read found: how many tags
 * a reader would look up, how many of them are new, and how fast the new ones came. On DynamoDB
 * Local, every Put through `writesAround`, to slow it or count it.
 */
const client = localDynamoDbClient(inject('dynamoDbEndpoint'));
const writer = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
const tableName = `admission-keeper-${randomUUID()}`;
const generation = 'g1';

const writesAround = (around: (send: () => Promise<unknown>) => Promise<unknown>): TableAccess =>
  tableAccess(
    {
      send: (command: never, options?: object) => around(() => writer.send(command, options)),
    } as unknown as typeof writer,
    tableName,
    Date.now() + 30_000,
  );
const counting = () => {
  const counted = { puts: 0, access: undefined as unknown as TableAccess };
  counted.access = writesAround((send) => {
    counted.puts += 1;
    return send();
  });
  return counted;
};
const closing = async () =>
  closedUntil(await tableAccess(writer, tableName, Date.now() + 5_000).get(admissionKey(generation)));

/** `count` tags a reader would look up, named after `prefix` (each test its own: the keeper remembers the last read's). */
const lookups = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${i}`);
/** Tickets written long ago: their new tags came at no pace worth a closing. */
const longAgo = () => Date.now() - 3_600_000;

beforeAll(async () => {
  await ensureTable(client, tableName, { stream: false });
});

describe("the folder's keeper of TAGS's closing", () => {
  it('renews one closing at a time, however slow DynamoDB answers, and leaves none in flight once stopped', async () => {
    let inFlight = 0;
    let most = 0;
    const slow = writesAround(async (send) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      try {
        await sleep(3 * ADMISSION_RENEW_MS);
        return await send();
      } finally {
        inFlight -= 1;
      }
    });
    const keeper = admissionKeeper(slow, generation);
    await keeper.found(lookups('a', HOLD_LOOKUPS), longAgo());
    await sleep(4 * ADMISSION_RENEW_MS);
    await keeper.stop();
    expect(most).toBe(1);
    expect(inFlight).toBe(0);
  });

  it('keeps TAGS closed from HOLD_LOOKUPS even when each renewal takes longer than the renewal period', async () => {
    const slow = writesAround(async (send) => {
      await sleep(ADMISSION_RENEW_MS + 100);
      return send();
    });
    const keeper = admissionKeeper(slow, generation);
    await keeper.found(lookups('b', HOLD_LOOKUPS), longAgo());
    // The first closing lands late by a Put's time; the next ones know it.
    await sleep(ADMISSION_CLOSED_MS);
    const open: number[] = [];
    for (const end = Date.now() + 3 * ADMISSION_CLOSED_MS; Date.now() < end; await sleep(100)) {
      const at = Date.now();
      if ((await closing()) <= at) open.push(at);
    }
    await keeper.stop();
    expect(open).toEqual([]);
  });

  it('renews at most once a period at reads, and stops once a read finds fewer than ADMIT_LOOKUPS, none new', async () => {
    const counted = counting();
    const keeper = admissionKeeper(counted.access, generation);
    const found = lookups('c', HOLD_LOOKUPS);
    await keeper.found(found, longAgo());
    await keeper.found(found, longAgo());
    expect(counted.puts).toBe(1);
    // The tags most in use, found at every read: as many lookups as ever, no more work for readers.
    await keeper.found(found.slice(0, ADMIT_LOOKUPS - 1), longAgo());
    await sleep(3 * ADMISSION_RENEW_MS);
    expect(counted.puts).toBe(1);
    await keeper.stop();
  });

  it('keeps TAGS closed through a fold below ADMIT_LOOKUPS, once new tags at their pace would make as many', async () => {
    const counted = counting();
    const keeper = admissionKeeper(counted.access, generation);
    // 20 new tags in the last 200 ms: 50 in about 600 ms, if writes go on.
    const began = Date.now();
    await keeper.found(lookups('d', 20), began - 200);
    expect(counted.puts).toBe(0);
    await sleep(3 * ADMISSION_RENEW_MS);
    await keeper.stop();
    expect(counted.puts).toBeGreaterThanOrEqual(1);
    // Closed by its timer, not at the read.
    expect(await closing()).toBeGreaterThanOrEqual(began + ADMISSION_RENEW_MS + ADMISSION_CLOSED_MS);
  });

  it('tells a later run of the instance till when the run before kept TAGS closed', async () => {
    const first = admissionKeeper(tableAccess(writer, tableName, Date.now() + 5_000), generation);
    await first.found(lookups('f', ADMIT_LOOKUPS), longAgo());
    await first.stop();
    const until = await closing();
    expect(until).toBeGreaterThan(Date.now());
    // The closing after its opening too: the writes that come back in it are held till then.
    expect(admissionKeeper(tableAccess(writer, tableName, Date.now() + 5_000), generation).closedTill()).toBe(
      closingEnd(until),
    );
    expect(admissionKeeper(tableAccess(writer, tableName, Date.now() + 5_000), 'g2').closedTill()).toBe(0);
  });

  it('lets it lapse when the new tags came slowly', async () => {
    const counted = counting();
    const keeper = admissionKeeper(counted.access, generation);
    // 20 new tags in the last 10 s: 2 a second.
    await keeper.found(lookups('e', 20), Date.now() - 10_000);
    await sleep(3 * ADMISSION_RENEW_MS);
    await keeper.stop();
    expect(counted.puts).toBe(0);
  });
});
