import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { localDynamoDbClient } from '../../../local/dynamodb-local';
import { ensureTable } from '../../../local/ensure-table';
import { ADMIT_LOOKUPS, closeAdmission, closedUntil, closingEnd, HOLD_LOOKUPS } from '../../../shared/db/admission';
import { foldList } from '../../../shared/db/folder';
import { readGeneration } from '../../../shared/db/generation';
import { admissionKey, listPartition, TICKET_PREFIX } from '../../../shared/db/keys';
import { createMagazine, getMagazine, replaceMagazine } from '../../../shared/db/magazines';
import { sleep, type TableAccess, tableAccess } from '../../../shared/db/table-access';
import { AlreadyExists, StoreUnavailable } from '../../../shared/domain/errors';
import type { TagRef } from '../../../shared/domain/tag';
import {
  ADMISSION_CLOSED_MS,
  ADMISSION_OPEN_MS,
  ADMISSION_RECLOSED_MS,
  ADMISSION_WAIT_MS,
} from '../../../shared/timing';
import { eightHundredTags } from '../../support/tags-fixture';

/**
 * `TAGS`'s admission, on DynamoDB Local: found by `npm run bench:scale`, where 24 writers making
 * 100,000 tags with unrelated ids outran the folder, 3,153 tickets waited, and a `/tags` read took
 * up to 112 calls and 4.5 MB, or answered 503. The folder closes `TAGS` to new tags while the
 * tickets it reads would make a reader look up `ADMIT_LOOKUPS` tags; writes that bring tags wait
 * for the closing to lapse (their tickets are timed after it), others go at once.
 */
const client = localDynamoDbClient(inject('dynamoDbEndpoint'));
const writer = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
const tableName = `admission-${randomUUID()}`;
const writes = () => tableAccess(writer, tableName, Date.now() + 30_000);

/** A DynamoDB command as the wrapper below sees it: a transaction's items, when it is one. */
type Command = { readonly input: { readonly TransactItems?: readonly unknown[] } };

/** A table access whose every call goes through `around` (to slow it, count it, look meanwhile), then to DynamoDB Local. */
const writesAround = (around: (command: Command, send: () => Promise<unknown>) => Promise<unknown>) =>
  tableAccess(
    {
      send: (command: Command, options?: object) => around(command, () => writer.send(command as never, options)),
    } as unknown as typeof writer,
    tableName,
    Date.now() + 30_000,
  );
const tag = (id: string): TagRef => ({ id, name: id.toUpperCase() });
const merged = (i: number) => tag(`t${String(i).padStart(4, '0')}`);

let generation = '';

/** When each of the magazine's tickets in `list` was written (Unix ms, from its key). */
const ticketTimes = async (list: 'ALL' | 'TAGS', writtenAfter: number) => {
  const { items } = await writes().query({
    KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
    ExpressionAttributeNames: { '#pk': 'PK', '#sk': 'SK' },
    ExpressionAttributeValues: { ':pk': listPartition(generation, list), ':prefix': TICKET_PREFIX },
  });
  return items.map((item) => Number(String(item.SK).slice(2, 15))).filter((at) => at >= writtenAfter);
};

const closing = async () => closedUntil(await writes().get(admissionKey(generation)));

/** A table access that lets `race` write first, before each transaction on magazine `id`. */
const racedOn = (id: string, race: () => Promise<void>): TableAccess => {
  const base = writes();
  type Command = { input?: { TransactItems?: { Update?: { Key?: Record<string, unknown> } }[] } };
  return {
    ...base,
    send: (request) =>
      base.send(async (sdk, options) => {
        const wrapped = {
          send: async (command: Command) => {
            if (command.input?.TransactItems?.some((item) => item.Update?.Key?.PK === `G#${generation}#MAG#${id}`))
              await race();
            return sdk.send(command as never, options);
          },
        };
        return request(wrapped as never, options);
      }),
  };
};

beforeAll(async () => {
  await ensureTable(client, tableName, { stream: false });
  // 800 tags merged into `TAGS`'s blocks, `t0000` to `t0799`.
  await eightHundredTags(writes, merged);
  generation = await readGeneration(writes());
});

describe("TAGS's admission", () => {
  it('stays open while the tickets name tags no reader looks up: ids after every tag merged', async () => {
    for (let m = 0; m < 30; m++)
      await createMagazine(writes(), {
        id: `late${m}`,
        title: 'Late',
        created: undefined,
        tags: [0, 1, 2, 3].map((k) => tag(`z${m}-${k}`)),
      });
    await foldList(writes(), generation, 'TAGS');
    expect(await closing()).toBe(0);
  });

  it('closes while the tickets the folder reads make a reader look up ADMIT_LOOKUPS tags', async () => {
    // New tags among those merged: each may be in a block, so a reader looks each one up.
    const perPost = 4;
    for (let m = 0; m < Math.ceil(ADMIT_LOOKUPS / perPost); m++)
      await createMagazine(writes(), {
        id: `scattered${m}`,
        title: 'Scattered',
        created: undefined,
        tags: Array.from({ length: perPost }, (_, k) => tag(`t${String(m * 20 + k).padStart(4, '0')}x`)),
      });
    // The closing as the folder leaves it after each of its reads, and when it was looked at.
    const seen: [until: number, at: number][] = [];
    const watching = writes();
    const watched = {
      ...watching,
      query: async (input: Parameters<typeof watching.query>[0]) => {
        seen.push([await closing(), Date.now()]);
        return watching.query(input);
      },
    };
    await foldList(watched, generation, 'TAGS');
    // Closed while it folded the backlog, for the time a closing lasts.
    expect(seen.some(([until, at]) => until > at)).toBe(true);
    expect(Math.max(...seen.map(([until]) => until))).toBeLessThanOrEqual(Date.now() + ADMISSION_CLOSED_MS);
  });

  /**
   * `magazines` of 4 new tags among those merged (4 lookups each), then a fold whose transactions
   * (all but the closing's one Put) answer after twice a closing's life; the closing and when it
   * was looked at, halfway through each.
   */
  const slowFold = async (prefix: string, magazines: number) => {
    for (let m = 0; m < magazines; m++)
      await createMagazine(writes(), {
        id: `${prefix}${m}`,
        title: 'Slow',
        created: undefined,
        tags: Array.from({ length: 4 }, (_, k) => tag(`t${String(m * 20 + k).padStart(4, '0')}${prefix}`)),
      });
    const seen: [until: number, at: number][] = [];
    const slow = writesAround(async (command, send) => {
      if ((command.input.TransactItems?.length ?? 0) > 1) {
        await sleep(ADMISSION_CLOSED_MS);
        const at = Date.now();
        seen.push([await closing(), at]);
        await sleep(ADMISSION_CLOSED_MS);
      }
      return send();
    });
    const began = Date.now();
    await foldList(slow, generation, 'TAGS');
    return { seen, began };
  };

  it('stays closed through a fold that outlasts a closing from HOLD_LOOKUPS, and lapses once the folder is done', async () => {
    // The first read found the backlog; later ones, caught up, let it lapse.
    const {
      seen: [first],
    } = await slowFold('y', Math.ceil(HOLD_LOOKUPS / 4));
    expect(first?.[0]).toBeGreaterThan(first?.[1] ?? Number.POSITIVE_INFINITY);
    await sleep(ADMISSION_CLOSED_MS);
    expect(await closing()).toBeLessThan(Date.now());
  });

  it('stays closed through a long fold from ADMIT_LOOKUPS below HOLD_LOOKUPS, when the tags to look up are new', async () => {
    const magazines = Math.ceil(ADMIT_LOOKUPS / 4);
    expect(magazines * 4).toBeLessThan(HOLD_LOOKUPS);
    const {
      seen: [first],
      began,
    } = await slowFold('w', magazines);
    // Closed by this fold's read, and still closed when its transaction was halfway.
    expect(first?.[0]).toBeGreaterThan(began);
    expect(first?.[0]).toBeGreaterThan(first?.[1] ?? Number.POSITIVE_INFINITY);
  });

  it('holds back writes that bring tags till it lapses, and lets others through at once', async () => {
    await closeAdmission(writes(), generation);
    const until = await closing();
    const since = Date.now();
    expect(until).toBeGreaterThan(since);
    await Promise.all([
      createMagazine(writes(), { id: 'plain', title: 'No tags', tags: [], created: undefined }),
      replaceMagazine(writes(), { id: 'm0', title: 'M 0', tags: [merged(0)], created: undefined }, undefined),
      createMagazine(writes(), { id: 'tagged', title: 'Tagged', tags: [tag('fresh')], created: undefined }),
      replaceMagazine(
        writes(),
        { id: 'm1', title: 'M 1', tags: [merged(32), tag('another')], created: undefined },
        undefined,
      ),
    ]);
    // Each puts a ticket in ALL (a magazine's tags are part of its entry there), and those that
    // change tags one in TAGS: the two that bring no tag before the closing lapsed, the two that do after.
    const all = await ticketTimes('ALL', since);
    const tags = await ticketTimes('TAGS', since);
    expect(all.filter((at) => at < until)).toHaveLength(2);
    expect(all.filter((at) => at >= until)).toHaveLength(2);
    expect(tags.filter((at) => at < until)).toHaveLength(1);
    expect(tags.filter((at) => at >= until)).toHaveLength(2);
    expect((await getMagazine(writes(), 'tagged')).tags).toEqual([tag('fresh')]);
  });

  it(`refuses a write kept out for ${ADMISSION_WAIT_MS} ms with 503's error, and writes nothing`, async () => {
    await closeAdmission(writes(), generation);
    // A folder that stays behind renews the closing.
    const renewing = setInterval(() => void closeAdmission(writes(), generation).catch(() => undefined), 200);
    const since = Date.now();
    try {
      const refused = await createMagazine(writes(), {
        id: 'refused',
        title: 'Late',
        tags: [tag('late')],
        created: undefined,
      }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(StoreUnavailable);
      expect(refused).toMatchObject({ reason: 'backlog', retryAfter: 1 });
    } finally {
      clearInterval(renewing);
    }
    await expect(getMagazine(writes(), 'refused')).rejects.toMatchObject({ kind: 'not-found' });
    expect(await ticketTimes('ALL', since)).toEqual([]);
  });

  it('answers a create whose chosen id is taken at once (405), not after waiting', async () => {
    const renewing = setInterval(() => void closeAdmission(writes(), generation).catch(() => undefined), 200);
    try {
      await closeAdmission(writes(), generation);
      const taken = createMagazine(writes(), { id: 'm2', title: 'Taken', tags: [tag('newer')], created: undefined });
      await expect(taken).rejects.toBeInstanceOf(AlreadyExists);
    } finally {
      clearInterval(renewing);
    }
  });

  it("waits without spending a replace's retries of lost races", async () => {
    // Kept out for about 2 s: reads of the closing, which used to count as attempts of the write.
    const renewing = setInterval(() => void closeAdmission(writes(), generation).catch(() => undefined), 100);
    setTimeout(() => clearInterval(renewing), 1_000);
    await closeAdmission(writes(), generation);
    // Then it loses eight races (a replace retries ten): another replace lands between its read and its transaction.
    let races = 0;
    const raced = racedOn('m3', async () => {
      if (races >= 8) return;
      races += 1;
      await replaceMagazine(
        writes(),
        { id: 'm3', title: `Race ${races}`, tags: [merged(96)], created: undefined },
        undefined,
      );
    });
    await replaceMagazine(
      raced,
      { id: 'm3', title: 'M 3', tags: [merged(96), tag('won')], created: undefined },
      undefined,
    );
    expect(races).toBe(8);
    expect((await getMagazine(writes(), 'm3')).tags).toEqual([merged(96), tag('won')]);
  });

  it('takes a closing further ahead than any folder sets as a clock far ahead: writes go on, a folder replaces it', async () => {
    await writer.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...admissionKey(generation), closedUntil: Date.now() + 3_600_000 },
      }),
    );
    const since = Date.now();
    await createMagazine(writes(), { id: 'skewed', title: 'Skewed', tags: [tag('skew')], created: undefined });
    expect(Math.min(...(await ticketTimes('TAGS', since)))).toBeLessThan(since + ADMISSION_CLOSED_MS);
    expect(await closeAdmission(writes(), generation)).toBeGreaterThan(since);
    expect(await closing()).toBeLessThanOrEqual(Date.now() + ADMISSION_CLOSED_MS);
  });

  /** A closing that lapsed `ago` ms before now (ahead, if negative), as a folder that stopped renewing it leaves it. */
  const lapsed = async (ago: number) => {
    const until = Date.now() - ago;
    await writer.send(
      new PutCommand({ TableName: tableName, Item: { ...admissionKey(generation), closedUntil: until } }),
    );
    return until;
  };

  it('lets the writes it held through when a closing lapses, not after the closing that follows', async () => {
    const until = await lapsed(-200);
    await createMagazine(writes(), { id: 'opening', title: 'In time', tags: [tag('opening')], created: undefined });
    const [written, ...more] = await ticketTimes('TAGS', until - 200);
    expect(more).toEqual([]);
    expect(written).toBeGreaterThanOrEqual(until);
    expect(written).toBeLessThan(until + ADMISSION_OPEN_MS + ADMISSION_RECLOSED_MS);
  });

  it('holds back a write that comes after the opening till the closing after it lapses', async () => {
    // The writers let through in the opening, come back for more, wait for the folder to see what
    // the first brought: let in at once, 64 writers left up to 245 tickets for every `/tags` read.
    const until = await lapsed(ADMISSION_OPEN_MS + 1);
    const since = Date.now();
    await createMagazine(writes(), { id: 'after-opening', title: 'Late', tags: [tag('later')], created: undefined });
    const held = await ticketTimes('TAGS', since);
    expect(held).toHaveLength(1);
    expect(held[0]).toBeGreaterThanOrEqual(until + ADMISSION_OPEN_MS + ADMISSION_RECLOSED_MS);
    // Once that lapsed too, writes go at once.
    await lapsed(closingEnd(0) + 1);
    const after = Date.now();
    await createMagazine(writes(), { id: 'open', title: 'Open', tags: [tag('open')], created: undefined });
    const open = await ticketTimes('TAGS', after);
    expect(open).toHaveLength(1);
    expect(open[0]).toBeLessThan(after + ADMISSION_CLOSED_MS);
  });

  it('does not hold back again a write it let in that lost a race after the opening', async () => {
    const until = await lapsed(-200);
    const ownTags = Array.from({ length: 32 }, (_, k) => merged(160 + k));
    // The write's first transaction waits till the opening is over, then loses to another replace.
    let raced = false;
    const racing = racedOn('m5', async () => {
      if (raced) return;
      raced = true;
      await sleep(until + ADMISSION_OPEN_MS - Date.now() + 50);
      await replaceMagazine(writes(), { id: 'm5', title: 'Raced', tags: ownTags, created: undefined }, undefined);
    });
    await replaceMagazine(
      racing,
      { id: 'm5', title: 'M 5', tags: [...ownTags, tag('again')], created: undefined },
      undefined,
    );
    expect(raced).toBe(true);
    const written = await ticketTimes('TAGS', until - 200);
    expect(written).toHaveLength(1);
    expect(written[0]).toBeLessThan(until + ADMISSION_OPEN_MS + ADMISSION_RECLOSED_MS);
  });
});
