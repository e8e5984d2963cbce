import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { localDynamoDbClient } from '../../../local/dynamodb-local';
import { ensureTable } from '../../../local/ensure-table';
import { foldList } from '../../../shared/db/folder';
import { readGeneration } from '../../../shared/db/generation';
import { listMagazines } from '../../../shared/db/magazine-list';
import { createMagazine } from '../../../shared/db/magazines';
import { tableAccess } from '../../../shared/db/table-access';
import { RETIRED_BLOCK_MS } from '../../../shared/timing';

/**
 * Review finding: every fold retires the blocks it rewrites, and the first fold more than
 * RETIRED_BLOCK_MS later deletes all of them in its own transaction. After a burst of writes (about
 * a hundred folds within 30 s) and a quiet moment, that fold has more than DynamoDB's 100 items
 * even with one ticket, so it fails, and so does every later fold of the list: its tickets are
 * never folded again, and every reader adds up more of them with every write.
 */
const client = localDynamoDbClient(inject('dynamoDbEndpoint'));
const documentClient = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
const tableName = `retired-${randomUUID()}`;
const access = () => tableAccess(documentClient, tableName, Date.now() + 20_000);

const ticketsOf = async (generation: string, list: string) =>
  (
    await documentClient.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :t)',
        ExpressionAttributeValues: { ':pk': `G#${generation}#L#${list}`, ':t': '#T' },
      }),
    )
  ).Items ?? [];

beforeAll(async () => {
  await ensureTable(client, tableName, { stream: false });
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a fold after a burst of folds and a quiet moment', () => {
  it('still folds: it does not delete more retired blocks than one transaction holds', async () => {
    const generation = await readGeneration(access());
    // A burst: 105 writes, each folded at once (as the folder does under a steady trickle of writes).
    for (let i = 0; i < 105; i++) {
      await createMagazine(access(), {
        id: `m${String(i).padStart(3, '0')}`,
        title: `M ${i}`,
        tags: [],
        created: 1_600_000_000 + i,
      });
      expect(await foldList(access(), generation, 'ALL')).toBe(1);
    }
    // A quiet moment longer than a retired block is kept, then one more write.
    const now = Date.now.bind(Date);
    vi.spyOn(Date, 'now').mockImplementation(() => now() + RETIRED_BLOCK_MS + 5_000);
    await createMagazine(access(), { id: 'late', title: 'Late', tags: [], created: 1_700_000_000 });
    await expect(foldList(access(), generation, 'ALL')).resolves.toBe(1);
    expect(await ticketsOf(generation, 'ALL')).toHaveLength(0);
    const page = await listMagazines(access(), {}, { start: { offset: 100 }, limit: 10, sort: 'asc' });
    expect(page.count).toBe(106);
    expect(page.items.map((m) => m.id)).toEqual(['m100', 'm101', 'm102', 'm103', 'm104', 'late']);
  }, 60_000);
});
