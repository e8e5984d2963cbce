import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { localDynamoDbClient } from '../../../local/dynamodb-local';
import { ensureTable } from '../../../local/ensure-table';
import { createRepository } from '../../../shared/bindings';
import { foldList } from '../../../shared/db/folder';
import { readGeneration } from '../../../shared/db/generation';
import { listPartition, type MagazineList, TICKET_PREFIX, tagList } from '../../../shared/db/keys';
import { createMagazine } from '../../../shared/db/magazines';
import { tableAccess } from '../../../shared/db/table-access';

/**
 * FIRST_FOLD_TICKETS spares a tag's list its first fold, not the folds of a list already laid out:
 * a bulk write builds every list folded (counts, directory, blocks) at stamp 0, and such a list
 * must be folded as any other, or it keeps up to 7 tickets once writes stop.
 */
const client = localDynamoDbClient(inject('dynamoDbEndpoint'));
const documentClient = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
const tableName = `first-fold-bulk-${randomUUID()}`;
const access = () => tableAccess(documentClient, tableName, Date.now() + 30_000);
const store = () => createRepository(documentClient, tableName)(Date.now() + 30_000);

const kept = { id: 'kept', name: 'Kept' };

const ticketsOf = async (generation: string, list: MagazineList) =>
  (
    (
      await documentClient.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :t)',
          ExpressionAttributeValues: { ':pk': listPartition(generation, list), ':t': TICKET_PREFIX },
        }),
      )
    ).Items ?? []
  ).length;

beforeAll(async () => {
  await ensureTable(client, tableName, { stream: false });
  await store().replaceAllMagazines(
    Array.from({ length: 3 }, (_, i) => ({ id: `b${i}`, title: `B ${i}`, tags: [kept], created: 1_600_000_000 + i })),
    undefined,
  );
});

describe("a tag's list a bulk write laid out", () => {
  it('is folded like any folded list: its tickets do not wait for FIRST_FOLD_TICKETS', async () => {
    const generation = await readGeneration(access());
    await createMagazine(access(), { id: 'new', title: 'New', tags: [kept], created: 1_600_000_100 });
    expect(await foldList(access(), generation, tagList('kept'))).toBe(1);
    expect(await ticketsOf(generation, tagList('kept'))).toBe(0);
  });
});
