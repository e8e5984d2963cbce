import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { localDynamoDbClient } from '../../../local/dynamodb-local';
import { ensureTable } from '../../../local/ensure-table';
import { FLOW_STINT_MS, FLOW_TICKETS, FOLD_TICKETS, foldList, foldLists } from '../../../shared/db/folder';
import { readGeneration } from '../../../shared/db/generation';
import { tagList } from '../../../shared/db/keys';
import { readList } from '../../../shared/db/lists';
import { createMagazine } from '../../../shared/db/magazines';
import { type TableAccess, tableAccess } from '../../../shared/db/table-access';

/**
 * Found under a stream of new tags through the API: a folder that took every ticket it found went
 * back to the stream for the next ones, and waited 1.3 to 2.6 s for them while `/tags` readers
 * added up to 245 tickets. While writes flow, the folder reads again; when they ebb, it stops.
 */
const client = localDynamoDbClient(inject('dynamoDbEndpoint'));
const documentClient = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });

let made = 0;
const createSome = (writer: TableAccess, count: number) =>
  Promise.all(
    Array.from({ length: count }, () => {
      const n = made++;
      return createMagazine(writer, { id: `m${n}`, title: `M ${n}`, tags: [], created: 1_600_000_000 + n });
    }),
  );

/** A folder's access that runs `afterFold(n)` after its n-th fold's transaction (the only call it sends for `ALL`). */
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
    // After each fold: a flow (12), then a trickle (3) under FLOW_TICKETS, then tickets it must leave.
    const next = [12, FLOW_TICKETS - 5, 5];
    const folder = watched(tableAccess(documentClient, tableName, Date.now() + 60_000), (fold) =>
      createSome(writer, next[fold - 1] ?? 0),
    );
    expect(await foldList(folder, generation, 'ALL')).toBe(20 + 12 + FLOW_TICKETS - 5);
    const left = await readList(writer, generation, 'ALL');
    expect(left.tickets).toHaveLength(5);
    expect(left.folded.total).toBe(20 + 12 + FLOW_TICKETS - 5);
  }, 60_000);

  it('gives the stream back its turn after a stint, though writes still flow', async () => {
    const { tableName, writer, generation } = await setUp();
    await createSome(writer, FLOW_TICKETS);
    // Each fold is followed by as many tickets again, and a second passes.
    let skew = 0;
    const now = Date.now.bind(Date);
    vi.spyOn(Date, 'now').mockImplementation(() => now() + skew);
    const folder = watched(tableAccess(documentClient, tableName, Date.now() + 60_000), async () => {
      skew += 1_000;
      await createSome(writer, FLOW_TICKETS);
    });
    const folded = await foldList(folder, generation, 'ALL');
    expect(folded).toBeGreaterThanOrEqual(FLOW_TICKETS * (FLOW_STINT_MS / 1_000 - 1));
    expect(folded).toBeLessThanOrEqual(FLOW_TICKETS * (FLOW_STINT_MS / 1_000 + 1));
    expect((await readList(writer, generation, 'ALL')).tickets).toHaveLength(FLOW_TICKETS);
  }, 60_000);

  it('gives the stream back its turn after a stint, though a backlog is left', async () => {
    const { tableName, writer, generation } = await setUp();
    await createSome(writer, 5 * FOLD_TICKETS);
    let skew = 0;
    const now = Date.now.bind(Date);
    vi.spyOn(Date, 'now').mockImplementation(() => now() + skew);
    const folder = watched(tableAccess(documentClient, tableName, Date.now() + 60_000), async () => {
      skew += 4_000;
    });
    expect(await foldList(folder, generation, 'ALL')).toBe(FOLD_TICKETS * Math.ceil(FLOW_STINT_MS / 4_000));
    expect((await readList(writer, generation, 'ALL')).tickets.length).toBeGreaterThan(0);
  }, 60_000);

  it('goes on past its stint while other lists of the batch wait for a worker', async () => {
    const { tableName, writer, generation } = await setUp();
    await createSome(writer, FLOW_TICKETS);
    const quiet = Array.from({ length: 12 }, (_, i) => tagList(`quiet-${i}`));
    for (const [i, list] of quiet.entries())
      await createMagazine(writer, {
        id: `q${i}`,
        title: `Q ${i}`,
        tags: [{ id: list.slice(4), name: `Quiet ${i}` }],
        created: 1_600_000_000,
      });
    // The collection's list keeps flowing, 3 s passing with each of its folds; each check of a
    // quiet list waits for one of them, so the batch's other worker takes one quiet list a fold.
    let skew = 0;
    const now = Date.now.bind(Date);
    vi.spyOn(Date, 'now').mockImplementation(() => now() + skew);
    let folded: () => void = () => {};
    let nextFold = new Promise<void>((done) => {
      folded = done;
    });
    const access = watched(tableAccess(documentClient, tableName, Date.now() + 60_000), async () => {
      skew += 3_000;
      await createSome(writer, FLOW_TICKETS);
      folded();
      nextFold = new Promise<void>((done) => {
        folded = done;
      });
    });
    const folder: TableAccess = {
      ...access,
      query: async (input) => {
        // At most a second: a folder that left early must not hang the batch.
        if (String(input.ExpressionAttributeValues?.[':pk']).includes('#TAG#'))
          await Promise.race([nextFold, new Promise((done) => setTimeout(done, 1_000))]);
        return access.query(input);
      },
    };
    await foldLists(folder, [{ generation, list: 'ALL' }, ...quiet.map((list) => ({ generation, list }))], 2);
    const left = await readList(writer, generation, 'ALL');
    // The stint alone would have stopped it after 4 folds; the batch held quiet lists for 11.
    expect(left.folded.total).toBeGreaterThanOrEqual(FLOW_TICKETS * 10 + quiet.length);
  }, 60_000);
});
