import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { localDynamoDbClient } from '../../../local/dynamodb-local';
import { ensureTable } from '../../../local/ensure-table';
import { FLOW_PAUSE_MS, FLOW_TICKETS, FOLD_TICKETS, foldList, foldLists } from '../../../shared/db/folder';
import { readGeneration } from '../../../shared/db/generation';
import { decodeOverlay } from '../../../shared/db/items';
import { overlayKey, tagList } from '../../../shared/db/keys';
import { readList } from '../../../shared/db/lists';
import { createMagazine } from '../../../shared/db/magazines';
import { type TableAccess, tableAccess } from '../../../shared/db/table-access';
import { OVERLAY_MERGE_AT } from '../../../shared/db/tag-states';
import { FLOW_STINT_MS } from '../../../shared/timing';

/**
 * Found under a stream of new tags through the API: a folder that took every ticket it found went
 * back to the stream for the next ones, and waited 1.3 to 2.6 s for them while `/tags` readers
 * added up to 245 tickets. While writes flow, the folder reads again; when they ebb, it stops. And
 * a folder that never stopped held its lane, and on `npm start` the whole stream, for a minute:
 * past its batch's stint it gives the lane back, when a later batch is sure to bring the list.
 */
const client = localDynamoDbClient(inject('dynamoDbEndpoint'));
const documentClient = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });

let made = 0;
const createSome = (writer: TableAccess, count: number, tags: { id: string; name: string }[] = []) =>
  Promise.all(
    Array.from({ length: count }, () => {
      const n = made++;
      return createMagazine(writer, { id: `m${n}`, title: `M ${n}`, tags, created: 1_600_000_000 + n });
    }),
  );

/** The clock as the folder and the writers see it: stopped, moved on only by `clock.pass(ms)`. */
const stoppedClock = () => {
  let now = Date.now();
  vi.spyOn(Date, 'now').mockImplementation(() => now);
  return {
    pass: (ms: number) => {
      now += ms;
    },
  };
};

/** A folder's access that runs `afterFold(n)` after its n-th fold's transaction (the only call it sends but for `TAGS`). */
const watched = (access: TableAccess, afterFold: (fold: number) => Promise<unknown>): TableAccess => {
  let folds = 0;
  return {
    ...access,
    send: async (request) => {
      const answer = await access.send(request);
      await afterFold(++folds);
      return answer;
    },
  };
};

const setUp = async () => {
  const tableName = `flow-${randomUUID()}`;
  await ensureTable(client, tableName, { stream: false });
  const writer = tableAccess(documentClient, tableName, Date.now() + 120_000);
  return { tableName, writer, generation: await readGeneration(writer) };
};

beforeAll(() => {
  made = 0;
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a folder meeting writes that still flow', () => {
  it('folds the tickets written after it read, while each fold finds enough, and leaves a trickle to the stream', async () => {
    const { tableName, writer, generation } = await setUp();
    await createSome(writer, 20);
    // After each fold: a flow (12), then a trickle under FLOW_TICKETS, left to the stream's next batch.
    const next = [12, FLOW_TICKETS - 5];
    const folder = watched(tableAccess(documentClient, tableName, Date.now() + 60_000), (fold) =>
      createSome(writer, next[fold - 1] ?? 0),
    );
    expect(await foldList(folder, generation, 'ALL')).toBe(20 + 12);
    const left = await readList(writer, generation, 'ALL');
    expect(left.tickets).toHaveLength(FLOW_TICKETS - 5);
    expect(left.folded.total).toBe(20 + 12);
  }, 60_000);

  it('waits a pause between folds while writes flow, so that a fast table is not folded in a tight loop', async () => {
    const { tableName, writer, generation } = await setUp();
    await createSome(writer, FLOW_TICKETS);
    const access = watched(tableAccess(documentClient, tableName, Date.now() + 60_000), (fold) =>
      createSome(writer, fold < 4 ? FLOW_TICKETS : 0),
    );
    const reads: number[] = [];
    const folder: TableAccess = {
      ...access,
      query: (input) => {
        reads.push(performance.now());
        return access.query(input);
      },
    };
    expect(await foldList(folder, generation, 'ALL')).toBe(4 * FLOW_TICKETS);
    // A fold's reads go out together (a first fold's two Queries); folds are a pause apart at least.
    const folds = reads.filter((at, index) => index === 0 || at - (reads[index - 1] ?? 0) > 50);
    expect(folds).toHaveLength(5);
    for (let index = 1; index < folds.length; index++)
      expect((folds[index] ?? 0) - (folds[index - 1] ?? 0)).toBeGreaterThanOrEqual(FLOW_PAUSE_MS - 5);
  }, 60_000);

  it('gives the lane back at the stint while writes still flow, a later batch bringing the list back', async () => {
    const { tableName, writer, generation } = await setUp();
    const clock = stoppedClock();
    await createSome(writer, FLOW_TICKETS);
    // Each fold is followed by as many tickets again, a second later.
    const folder = watched(tableAccess(documentClient, tableName, Date.now() + 60_000), async () => {
      clock.pass(1_000);
      await createSome(writer, FLOW_TICKETS);
    });
    expect(await foldList(folder, generation, 'ALL')).toBe(FLOW_TICKETS * (FLOW_STINT_MS / 1_000));
    expect((await readList(writer, generation, 'ALL')).tickets).toHaveLength(FLOW_TICKETS);
  }, 60_000);

  it('folds a backlog to its end past the stint: no later batch may bring it back', async () => {
    const { tableName, writer, generation } = await setUp();
    const clock = stoppedClock();
    await createSome(writer, 5 * FOLD_TICKETS);
    const folder = watched(tableAccess(documentClient, tableName, Date.now() + 60_000), async () => {
      clock.pass(4_000);
    });
    expect(await foldList(folder, generation, 'ALL')).toBe(5 * FOLD_TICKETS);
    expect((await readList(writer, generation, 'ALL')).tickets).toHaveLength(0);
  }, 60_000);

  it("counts the stint from its batch's start, not from each list's", async () => {
    const { tableName, writer, generation } = await setUp();
    const clock = stoppedClock();
    const tag = { id: 'flowing', name: 'Flowing' };
    await createSome(writer, FLOW_TICKETS, [tag]);
    // Both lists flow, 3 s a fold; one worker folds the collection's list, then the tag's.
    const folder = watched(tableAccess(documentClient, tableName, Date.now() + 60_000), async () => {
      clock.pass(3_000);
      await createSome(writer, FLOW_TICKETS, [tag]);
    });
    const lists = [
      { generation, list: 'ALL' as const },
      { generation, list: tagList(tag.id) },
    ];
    await foldLists(folder, lists, 1);
    const folds = Math.ceil(FLOW_STINT_MS / 3_000);
    expect((await readList(writer, generation, 'ALL')).folded.total).toBe(FLOW_TICKETS * folds);
    // Begun past the batch's stint, the tag's list is folded once: what it held, not 4 folds more.
    const tagged = await readList(writer, generation, tagList(tag.id));
    expect(tagged.folded.total).toBe(FLOW_TICKETS * (folds + 1));
    expect(tagged.tickets).toHaveLength(FLOW_TICKETS);
  }, 60_000);

  it("merges `TAGS`'s overlay on when no ticket came in the pause: no later batch would", async () => {
    const { writer, generation } = await setUp();
    // 30 POSTs of 4 new tags: 120 tags in the overlay, more than a quiet fold leaves.
    for (let i = 0; i < 30; i++)
      await createMagazine(writer, {
        id: `n${i}`,
        title: `N ${i}`,
        tags: Array.from({ length: 4 }, (_, k) => ({ id: `n${i}-${k}`, name: `N ${i} ${k}` })),
        created: 1_600_000_000 + i,
      });
    await foldList(writer, generation, 'TAGS');
    const { entries, merged } = decodeOverlay((await writer.get(overlayKey(generation))) ?? {});
    expect(entries.length).toBeLessThanOrEqual(OVERLAY_MERGE_AT);
    expect(merged).toEqual([]);
  }, 60_000);
});
