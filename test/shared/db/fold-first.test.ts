import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { localDynamoDbClient } from '../../../local/dynamodb-local';
import { ensureTable } from '../../../local/ensure-table';
import { createRepository } from '../../../shared/bindings';
import { FIRST_FOLD_TICKETS, foldList } from '../../../shared/db/folder';
import { readGeneration } from '../../../shared/db/generation';
import { countsKey, listPartition, tagList } from '../../../shared/db/keys';
import { listMagazines } from '../../../shared/db/magazine-list';
import { createMagazine } from '../../../shared/db/magazines';
import { tableAccess } from '../../../shared/db/table-access';

/**
 * Under a stream of new tags each POST left four lists of one ticket, and folding each of them
 * first (counts, end mark, directory, block) was most of the folder's work while `TAGS` and `ALL`
 * waited. A tag's list is first folded once it holds FIRST_FOLD_TICKETS tickets; until then its
 * readers add its few tickets up, and count exactly. A list a bulk write laid out (counts,
 * directory, blocks, at stamp 0 as a list never folded) is folded as any other, or it would keep
 * up to 7 tickets once writes stop.
 */
const client = localDynamoDbClient(inject('dynamoDbEndpoint'));
const documentClient = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
const tableName = `first-fold-${randomUUID()}`;
const access = () => tableAccess(documentClient, tableName, Date.now() + 30_000);
const store = () => createRepository(documentClient, tableName)(Date.now() + 30_000);

const create = (i: number, tags: { id: string; name: string }[]) =>
  createMagazine(access(), { id: `m${i}`, title: `M ${i}`, tags, created: 1_600_000_000 + i });

const itemsOf = async (generation: string, list: 'ALL' | `TAG#${string}`) =>
  (
    await documentClient.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': listPartition(generation, list) },
      }),
    )
  ).Items ?? [];

beforeAll(async () => {
  await ensureTable(client, tableName, { stream: false });
});

describe("a tag's list with few tickets", () => {
  it('is left to its readers until it holds enough tickets to be worth a first fold', async () => {
    const generation = await readGeneration(access());
    const rare = { id: 'rare', name: 'Rare' };
    for (let i = 0; i < FIRST_FOLD_TICKETS - 1; i++) await create(i, [rare]);
    // Found to cost two Queries each, hundreds a batch under a stream of new tags: one is enough.
    const queried: string[] = [];
    const folder = access();
    const counting = {
      ...folder,
      query: (input: Parameters<typeof folder.query>[0]) => {
        queried.push(String(input.KeyConditionExpression));
        return folder.query(input);
      },
    };
    expect(await foldList(counting, generation, tagList('rare'))).toBe(0);
    expect(queried).toHaveLength(1);
    const waiting = await itemsOf(generation, tagList('rare'));
    expect(waiting.map((item) => String(item.SK).slice(0, 2))).toEqual(
      Array.from({ length: FIRST_FOLD_TICKETS - 1 }, () => '#T'),
    );
    const page = await listMagazines(access(), { tag: 'rare' }, { start: { offset: 0 }, limit: 25, sort: 'asc' });
    expect(page.count).toBe(FIRST_FOLD_TICKETS - 1);
    expect(page.items).toHaveLength(FIRST_FOLD_TICKETS - 1);

    // The collection's list is folded whatever it holds.
    expect(await foldList(access(), generation, 'ALL')).toBe(FIRST_FOLD_TICKETS - 1);

    await create(FIRST_FOLD_TICKETS, [rare]);
    expect(await foldList(access(), generation, tagList('rare'))).toBe(FIRST_FOLD_TICKETS);
    const folded = await itemsOf(generation, tagList('rare'));
    expect(folded.filter((item) => String(item.SK).startsWith('#T'))).toEqual([]);
    expect(folded.find((item) => item.SK === countsKey(generation, tagList('rare')).SK)?.total).toBe(
      FIRST_FOLD_TICKETS,
    );
  });

  it('is folded as any other once a bulk write laid it out, whatever it holds', async () => {
    const kept = { id: 'kept', name: 'Kept' };
    await store().replaceAllMagazines(
      Array.from({ length: 3 }, (_, i) => ({ id: `b${i}`, title: `B ${i}`, tags: [kept], created: 1_600_000_000 + i })),
      undefined,
    );
    const generation = await readGeneration(access());
    await createMagazine(access(), { id: 'new', title: 'New', tags: [kept], created: 1_600_000_100 });
    expect(await foldList(access(), generation, tagList('kept'))).toBe(1);
    const items = await itemsOf(generation, tagList('kept'));
    expect(items.filter((item) => String(item.SK).startsWith('#T'))).toEqual([]);
  });
});
