import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { localDynamoDbClient } from '../../../local/dynamodb-local';
import { ensureTable } from '../../../local/ensure-table';
import { FOLD_TICKETS, foldList } from '../../../shared/db/folder';
import { readGeneration } from '../../../shared/db/generation';
import { listMagazines } from '../../../shared/db/magazine-list';
import { createMagazine } from '../../../shared/db/magazines';
import { tableAccess } from '../../../shared/db/table-access';

/**
 * Found under load through the API: a folder that fell behind read the whole backlog of a list's
 * tickets to fold 80 of them, so each fold cost more the further behind it was, and the backlog
 * (which every page reads) grew to over a thousand tickets. A fold reads what it folds.
 */
const client = localDynamoDbClient(inject('dynamoDbEndpoint'));
const documentClient = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
const tableName = `backlog-${randomUUID()}`;

beforeAll(async () => {
  await ensureTable(client, tableName, { stream: false });
});

describe('a fold behind a backlog of tickets', () => {
  it('reads the tickets it folds and the list it folds them into, not the backlog', async () => {
    const writes = 3 * FOLD_TICKETS + 10;
    const writer = tableAccess(documentClient, tableName, Date.now() + 60_000);
    const generation = await readGeneration(writer);
    for (let start = 0; start < writes; start += 16)
      await Promise.all(
        Array.from({ length: Math.min(16, writes - start) }, (_, i) =>
          createMagazine(writer, {
            id: `m${String(start + i).padStart(3, '0')}`,
            title: `M ${start + i}`,
            tags: [],
            created: 1_600_000_000 + start + i,
          }),
        ),
      );
    const itemsRead: number[] = [];
    const folder = tableAccess(documentClient, tableName, Date.now() + 60_000);
    const query = folder.query;
    const counted = {
      ...folder,
      query: async (input: Parameters<typeof query>[0]) => {
        const page = await query(input);
        itemsRead.push(page.items.length);
        return page;
      },
    };
    expect(await foldList(counted, generation, 'ALL')).toBe(writes);
    // Four folds, each of two Queries: counts and its tickets, then end mark, directory and retired blocks.
    expect(itemsRead.length).toBeLessThanOrEqual(2 * (Math.ceil(writes / FOLD_TICKETS) + 1));
    expect(Math.max(...itemsRead)).toBeLessThanOrEqual(FOLD_TICKETS + 1);
    const page = await listMagazines(writer, {}, { start: { offset: writes - 5 }, limit: 10, sort: 'asc' });
    expect(page.count).toBe(writes);
    expect(page.items.map((m) => m.title)).toEqual(Array.from({ length: 5 }, (_, i) => `M ${writes - 5 + i}`));
  }, 120_000);
});
