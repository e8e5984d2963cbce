import {
  BatchGetCommand,
  BatchWriteCommand,
  GetCommand,
  QueryCommand,
  type QueryCommandInput,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import type { SortOrder } from '../domain/paging';

export interface PageQuery {
  readonly offset: number;
  readonly limit: number;
  readonly sort: SortOrder;
}

import { StoreUnavailable } from '../domain/errors';
import type { TransactItem } from './catalogue';
import type { DocumentClient } from './client';

type Key = Record<string, unknown>;
export type Item = Record<string, unknown>;

const BATCH_WRITE_LIMIT = 25;
const BATCH_GET_LIMIT = 100;
export const MAX_ATTEMPTS = 5;
/** Every magazine write updates the collection item, so concurrent writes conflict there and wait their turn. */
const CONFLICT_ATTEMPTS = 8;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export const backoff = (attempt: number) => sleep(Math.min(1000, 25 * 2 ** attempt) * (0.5 + Math.random() / 2));

const THROTTLING = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded']);

/** Why each item of a cancelled transaction failed, in the order the items were sent. */
export const cancellationReasons = (error: unknown): string[] | undefined => {
  if (!(error instanceof Error) || error.name !== 'TransactionCanceledException') return undefined;
  const reasons = (error as Error & { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
  return reasons.map((reason) => reason.Code ?? 'None');
};

export const isConditionFailure = (error: unknown, index = 0) =>
  cancellationReasons(error)?.[index] === 'ConditionalCheckFailed';

/**
 * The DynamoDB calls the repository is built from: retries, paging and batching done once.
 * Throttling that outlasts the SDK's own retries becomes the API's 503.
 */
export const tableAccess = (client: DocumentClient, tableName: string) => {
  const send = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      if (error instanceof Error && THROTTLING.has(error.name)) throw new StoreUnavailable('throttled');
      throw error;
    }
  };

  /** Retries transactions that lost a race with another transaction on the same item. */
  const transact = async (items: TransactItem[]): Promise<void> => {
    for (let attempt = 1; ; attempt++) {
      try {
        await send(() => client.send(new TransactWriteCommand({ TransactItems: items })));
        return;
      } catch (error) {
        const reasons = cancellationReasons(error);
        const retryable =
          reasons?.some((code) => code === 'TransactionConflict' || code === 'ThrottlingError') &&
          !reasons.includes('ConditionalCheckFailed');
        if (!retryable) throw error;
        if (attempt >= CONFLICT_ATTEMPTS)
          throw reasons?.includes('ThrottlingError')
            ? new StoreUnavailable('throttled')
            : new StoreUnavailable('conflict');
        await backoff(attempt);
      }
    }
  };

  const getItem = async (
    key: Key,
    options: { consistent?: boolean; attributes?: readonly string[] } = {},
  ): Promise<Item | undefined> => {
    const names = options.attributes && Object.fromEntries(options.attributes.map((a, i) => [`#a${i}`, a]));
    const result = await send(() =>
      client.send(
        new GetCommand({
          TableName: tableName,
          Key: key,
          ConsistentRead: options.consistent,
          ...(names && { ProjectionExpression: Object.keys(names).join(', '), ExpressionAttributeNames: names }),
        }),
      ),
    );
    return result.Item;
  };

  /** Every item of a key range, following LastEvaluatedKey. */
  const queryAll = async (input: Omit<QueryCommandInput, 'TableName'>): Promise<Item[]> => {
    const items: Item[] = [];
    let startKey: Key | undefined;
    do {
      const result = await send(() =>
        client.send(new QueryCommand({ ...input, TableName: tableName, ExclusiveStartKey: startKey })),
      );
      items.push(...(result.Items ?? []));
      startKey = result.LastEvaluatedKey;
    } while (startKey);
    return items;
  };

  /**
   * `take` items of a key range after the first `skip`. DynamoDB has no offset: the skipped items
   * are stepped over reading keys only (ProjectionExpression), page by page, then the items are
   * read from the one after them.
   */
  const skipAndRead = async (
    input: QueryCommandInput,
    keyAttributes: readonly string[],
    skip: number,
    take: number,
  ): Promise<Item[]> => {
    let startKey: Key | undefined;
    let skipped = 0;
    while (skipped < skip) {
      const names = Object.fromEntries(keyAttributes.map((a, i) => [`#k${i}`, a]));
      const result = await send(() =>
        client.send(
          new QueryCommand({
            ...input,
            ProjectionExpression: Object.keys(names).join(', '),
            ExpressionAttributeNames: { ...input.ExpressionAttributeNames, ...names },
            Limit: skip - skipped,
            ExclusiveStartKey: startKey,
          }),
        ),
      );
      skipped += result.Count ?? 0;
      startKey = result.LastEvaluatedKey;
      if (!startKey) return [];
    }
    const items: Item[] = [];
    do {
      const result = await send(() =>
        client.send(new QueryCommand({ ...input, Limit: take - items.length, ExclusiveStartKey: startKey })),
      );
      items.push(...(result.Items ?? []));
      startKey = result.LastEvaluatedKey;
    } while (startKey && items.length < take);
    return items;
  };

  /**
   * A page past the first of a range holding `total` items: an offset beyond the end reads
   * nothing, and the items before the page are stepped over from whichever end is nearer, so a
   * deep offset costs at most half the list in key reads.
   */
  const laterPage = async (
    input: QueryCommandInput,
    keyAttributes: readonly string[],
    { offset, limit }: PageQuery,
    total: number,
  ) => {
    if (offset >= total) return [];
    const end = Math.min(offset + limit, total);
    const afterPage = total - end;
    if (afterPage >= offset) return skipAndRead(input, keyAttributes, offset, limit);
    const backwards = await skipAndRead(
      { ...input, ScanIndexForward: input.ScanIndexForward === false },
      keyAttributes,
      afterPage,
      end - offset,
    );
    return backwards.reverse();
  };

  /** The first page is read beside its count; a later one needs the count to choose its way in. */
  const pageWithCount = async <T>(
    input: QueryCommandInput,
    keyAttributes: readonly string[],
    page: PageQuery,
    counted: Promise<T>,
    totalOf: (counted: T) => number,
  ): Promise<[T, Item[]]> => {
    if (page.offset === 0) return Promise.all([counted, skipAndRead(input, keyAttributes, 0, page.limit)]);
    const result = await counted;
    return [result, await laterPage(input, keyAttributes, page, totalOf(result))];
  };

  /** BatchWriteItem in chunks of 25, retrying UnprocessedItems with exponential backoff. */
  const deleteAll = async (keys: readonly Key[]) => {
    for (let start = 0; start < keys.length; start += BATCH_WRITE_LIMIT) {
      let pending = keys.slice(start, start + BATCH_WRITE_LIMIT).map((Key) => ({ DeleteRequest: { Key } }));
      for (let attempt = 1; pending.length > 0; attempt++) {
        if (attempt > MAX_ATTEMPTS + 3) throw new StoreUnavailable('throttled');
        if (attempt > 1) await backoff(attempt);
        const result = await send(() => client.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } })));
        pending = (result.UnprocessedItems?.[tableName] ?? []) as typeof pending;
      }
    }
  };

  /** Strongly consistent BatchGetItem in chunks of 100, retrying UnprocessedKeys with exponential backoff. */
  const getAll = async (keys: readonly Key[]): Promise<Item[]> => {
    const items: Item[] = [];
    for (let start = 0; start < keys.length; start += BATCH_GET_LIMIT) {
      let pending: Key[] = keys.slice(start, start + BATCH_GET_LIMIT);
      for (let attempt = 1; pending.length > 0; attempt++) {
        if (attempt > MAX_ATTEMPTS + 3) throw new StoreUnavailable('throttled');
        if (attempt > 1) await backoff(attempt);
        const result = await send(() =>
          client.send(new BatchGetCommand({ RequestItems: { [tableName]: { Keys: pending, ConsistentRead: true } } })),
        );
        items.push(...(result.Responses?.[tableName] ?? []));
        pending = (result.UnprocessedKeys?.[tableName]?.Keys ?? []) as Key[];
      }
    }
    return items;
  };

  return { send, transact, getItem, getAll, queryAll, pageWithCount, deleteAll };
};
