import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { localDynamoDbClient } from '../../../local/dynamodb-local';
import { ensureTable } from '../../../local/ensure-table';
import type { PageQuery } from '../../../shared/domain/paging';
import { createRepository } from '../../../shared/stores';

/** Paging on the real DynamoDB Local: every offset and cursor gives the page a client expects. */
const client = localDynamoDbClient(inject('dynamoDbEndpoint'));
const documentClient = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
const tableName = `paging-${randomUUID()}`;
const store = () => createRepository(documentClient, tableName)(Date.now() + 30_000);

/** Every key-range read: how many entries it asked for. */
const queries: { limit: number | undefined }[] = [];
documentClient.middlewareStack.add(
  (next) => async (args) => {
    const input = args.input as { KeyConditionExpression?: string; Limit?: number };
    if (input.KeyConditionExpression) queries.push({ limit: input.Limit });
    return next(args);
  },
  { step: 'initialize', name: 'countQueries' },
);

const TOTAL = 23;
const ids = Array.from({ length: TOTAL }, (_, i) => `m${String(i).padStart(2, '0')}`);
const at = (offset: number, limit: number, sort: 'asc' | 'desc'): PageQuery => ({ start: { offset }, limit, sort });

beforeAll(async () => {
  await ensureTable(client, tableName);
  // Two magazines per second of `created`, one day apart every six: order is by created, then id.
  await store().replaceAllMagazines(
    ids.map((id, i) => ({
      id,
      title: `T ${id}`,
      tags: i % 2 ? [{ id: 'odd', name: 'Odd' }] : [],
      created: 1_600_000_000 + Math.floor(i / 6) * 86_400 + Math.floor(i / 2),
    })),
    undefined,
  );
});

describe('pages of a list on DynamoDB Local', () => {
  it.each([
    [0, 5, 'asc'],
    [5, 5, 'asc'],
    [20, 5, 'asc'],
    [18, 10, 'desc'],
    [22, 1, 'asc'],
    [11, 7, 'desc'],
  ] as const)('offset %i limit %i %s is the matching slice', async (offset, limit, sort) => {
    const page = await store().listMagazines({}, at(offset, limit, sort));
    const expected = (sort === 'asc' ? ids : [...ids].reverse()).slice(offset, offset + limit);
    expect(page.items.map((m) => m.id)).toEqual(expected);
    expect(page).toMatchObject({ count: TOTAL, offset });
  });

  it('seeks a deep page by its day: it reads no more entries than that day holds before the page', async () => {
    queries.length = 0;
    await store().listMagazines({}, at(20, 3, 'asc'));
    const entryReads = queries.filter((q) => q.limit !== undefined && q.limit <= 10);
    expect(entryReads.length).toBeGreaterThan(0);
    // The fourth day holds m18…m22: two entries before m20, then the page of three.
    expect(Math.max(...entryReads.map((q) => q.limit ?? 0))).toBeLessThanOrEqual(2 + 3);
  });

  it('resumes from a cursor position exactly after the last item of the page', async () => {
    const first = await store().listMagazines({}, at(0, 4, 'desc'));
    expect(first.next).toBeDefined();
    const second = await store().listMagazines(
      {},
      { start: { after: first.next ?? '', offset: 4 }, limit: 4, sort: 'desc' },
    );
    expect(second.items.map((m) => m.id)).toEqual([...ids].reverse().slice(4, 8));
    expect(second.offset).toBe(4);
  });

  it('reads nothing past the end', async () => {
    const page = await store().listMagazines({}, at(5_000_000, 10, 'asc'));
    expect(page).toMatchObject({ items: [], count: TOTAL });
  });

  it('pages a tag and a year the same way', async () => {
    const odd = ids.filter((_, i) => i % 2);
    const page = await store().listMagazines({ tag: 'odd', year: 2020 }, at(9, 3, 'asc'));
    expect(page.items.map((m) => m.id)).toEqual(odd.slice(9, 12));
    expect(page.count).toBe(odd.length);
  });

  it('finds nothing in a year before any magazine could exist', async () => {
    expect(await store().listMagazines({ year: 99 }, at(0, 5, 'asc'))).toMatchObject({ items: [], count: 0 });
  });
});
