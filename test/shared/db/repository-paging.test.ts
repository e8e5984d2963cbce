import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { localDynamoDbClient } from '../../../local/dynamodb-local';
import { ensureTable } from '../../../local/ensure-table';
import { createRepository } from '../../../shared/db/repository';

/** Paging on the real DynamoDB Local: every offset gives the page a client expects. */
const client = localDynamoDbClient(inject('dynamoDbEndpoint'));
const documentClient = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
const tableName = `paging-${randomUUID()}`;
const repository = createRepository(documentClient, tableName);

const queries: { forward: boolean | undefined; projection: boolean }[] = [];
documentClient.middlewareStack.add(
  (next) => async (args) => {
    const input = args.input as {
      ScanIndexForward?: boolean;
      ProjectionExpression?: string;
      KeyConditionExpression?: string;
    };
    if (input.KeyConditionExpression)
      queries.push({ forward: input.ScanIndexForward, projection: input.ProjectionExpression !== undefined });
    return next(args);
  },
  { step: 'initialize', name: 'countQueries' },
);

const TOTAL = 23;
const ids = Array.from({ length: TOTAL }, (_, i) => `m${String(i).padStart(2, '0')}`);

beforeAll(async () => {
  await ensureTable(client, tableName);
  // Two magazines per second of `created`, so that order is by created, then id.
  await repository.replaceAllMagazines(
    ids.map((id, i) => ({
      id,
      title: `T ${id}`,
      tags: i % 2 ? [{ id: 'odd', name: 'Odd' }] : [],
      created: 1_600_000_000 + Math.floor(i / 2),
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
  ] as const)(
    'offset %i limit %i %s is the matching slice, whichever end it is read from',
    async (offset, limit, sort) => {
      const page = await repository.listMagazines({ offset, limit, sort });
      const expected = (sort === 'asc' ? ids : [...ids].reverse()).slice(offset, offset + limit);
      expect(page.items.map((m) => m.id)).toEqual(expected);
      expect(page.count).toBe(TOTAL);
    },
  );

  it('reads a deep page backwards from the nearer end', async () => {
    queries.length = 0;
    await repository.listMagazines({ offset: 20, limit: 5, sort: 'asc' });
    expect(queries.every((q) => q.forward === false)).toBe(true);
    expect(queries.filter((q) => q.projection)).toHaveLength(0);
  });

  it('reads nothing past the end', async () => {
    queries.length = 0;
    const page = await repository.listMagazines({ offset: 5_000_000, limit: 10, sort: 'asc' });
    expect(page).toMatchObject({ items: [], count: TOTAL });
    expect(queries).toHaveLength(0);
  });

  it('pages a tag and a year the same way', async () => {
    const odd = ids.filter((_, i) => i % 2);
    const page = await repository.listMagazines({ offset: 9, limit: 3, sort: 'asc', tag: 'odd', year: 2020 });
    expect(page.items.map((m) => m.id)).toEqual(odd.slice(9, 12));
    expect(page.count).toBe(odd.length);
  });

  it('finds nothing in a year before any magazine could exist, without querying', async () => {
    queries.length = 0;
    expect(await repository.listMagazines({ offset: 0, limit: 5, sort: 'asc', year: 99 })).toMatchObject({
      items: [],
      count: 0,
    });
    expect(queries).toHaveLength(0);
  });
});
