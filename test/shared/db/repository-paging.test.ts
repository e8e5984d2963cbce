import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { localDynamoDbClient } from '../../../local/dynamodb-local';
import { ensureTable } from '../../../local/ensure-table';
import { createRepository } from '../../../shared/bindings';
import type { PageQuery } from '../../../shared/domain/paging';

/** Paging on the real DynamoDB Local: every offset and cursor gives the page a client expects. */
const client = localDynamoDbClient(inject('dynamoDbEndpoint'));
const documentClient = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
const tableName = `paging-${randomUUID()}`;
const store = () => createRepository(documentClient, tableName)(Date.now() + 30_000);

/** Every call the repository sends, by command. */
const calls: string[] = [];
documentClient.middlewareStack.add(
  (next, context) => async (args) => {
    calls.push(String(context.commandName));
    return next(args);
  },
  { step: 'initialize', name: 'countCalls' },
);

const TOTAL = 23;
const ids = Array.from({ length: TOTAL }, (_, i) => `m${String(i).padStart(2, '0')}`);
const at = (offset: number, limit: number, sort: 'asc' | 'desc'): PageQuery => ({ start: { offset }, limit, sort });

beforeAll(async () => {
  await ensureTable(client, tableName, { stream: false });
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

  it('reads a deep page in the calls of the first: its list (counts, directory), its blocks, its magazines', async () => {
    const callsOf = async (offset: number) => {
      calls.length = 0;
      await store().listMagazines({}, at(offset, 3, 'asc'));
      return [...calls];
    };
    const first = await callsOf(0);
    expect(first).toEqual(['QueryCommand', 'BatchGetItemCommand', 'BatchGetItemCommand']);
    expect(await callsOf(20)).toEqual(first);
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
