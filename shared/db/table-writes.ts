import {
  BatchWriteCommand,
  DeleteCommand,
  type DeleteCommandInput,
  TransactWriteCommand,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { countForRequest } from '../metrics';
import { cancellationReasons } from './failures';
import type { Key } from './keys';
import { backoff, type Item, isConflict, type TableAccess } from './table-access';
import { ConditionsFailed, itemsOf, type Transaction } from './transaction';

export type { TransactItem, Transaction } from './transaction';
export { ConditionsFailed, TRANSACTION_LIMIT } from './transaction';

/**
 * The DynamoDB calls that change the table, on a request's table access (so given up at its
 * deadline like its reads): apart from the reads, so that the bundle of a function that only
 * reads carries none of them, nor their SDK commands.
 */

/** DynamoDB's limit: requests in one BatchWriteItem. */
const BATCH_WRITE_LIMIT = 25;

/** Puts and deletes by BatchWriteItem, 25 a call (`parallel` calls at once), the unprocessed rest sent again with backoff. */
export const writeMany = async (
  access: TableAccess,
  puts: readonly Item[],
  deletes: readonly Key[] = [],
  parallel = 8,
) => {
  const requests = [
    ...puts.map((Item) => ({ PutRequest: { Item } })),
    ...deletes.map((Key) => ({ DeleteRequest: { Key } })),
  ];
  const chunks: (typeof requests)[] = [];
  for (let start = 0; start < requests.length; start += BATCH_WRITE_LIMIT)
    chunks.push(requests.slice(start, start + BATCH_WRITE_LIMIT));
  let next = 0;
  const worker = async () => {
    while (next < chunks.length) {
      let pending = chunks[next++] ?? [];
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt > 0) await backoff(attempt, 25, 1000);
        const requests = pending;
        const result = await access.send((client, options) =>
          client.send(new BatchWriteCommand({ RequestItems: { [access.tableName]: requests } }), options),
        );
        pending = (result.UnprocessedItems?.[access.tableName] ?? []) as typeof pending;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, chunks.length) }, worker));
};

/** Failures of transactions that an earlier send may have written all the same (`sentAgain`). */
const unsure = new WeakSet<object>();

/**
 * Whether `error` ends a transaction that the SDK sent more than once (with the same token) before
 * it failed: an earlier send may have landed, its answer lost, so a cancellation of a later one
 * (a conflict with that very send, or a condition it left unmet) does not show that nothing was written.
 */
export const sentAgain = (error: unknown): boolean => error instanceof Object && unsure.has(error);

/**
 * One TransactWriteItems. A transaction that lost a race with another on a shared item is sent
 * again after a jittered backoff, until the deadline; one whose conditions failed raises
 * `ConditionsFailed` with the names of the items whose conditions did not hold. A failure after
 * the SDK sent one of its sends twice is marked (`sentAgain`).
 */
export const transact = async (
  access: TableAccess,
  transaction: Transaction,
  { retryConflicts = true }: { readonly retryConflicts?: boolean } = {},
): Promise<{ readonly retries: number }> => {
  const { items, names } = itemsOf(transaction);
  let resent = false;
  const marked = (error: unknown) => {
    if (resent && error instanceof Object) unsure.add(error);
    return error;
  };
  for (let attempt = 0; ; attempt++) {
    try {
      await access.send((client, options) => client.send(new TransactWriteCommand({ TransactItems: items }), options));
      return { retries: attempt };
    } catch (error) {
      const cause = (error as { cause?: unknown }).cause ?? error;
      // The SDK's retries of one send (after a lost answer, a timeout, a 5xx) resend its token: `attempts` says how many.
      resent ||= ((cause as { $metadata?: { attempts?: number } }).$metadata?.attempts ?? 1) > 1;
      const reasons = cancellationReasons(cause);
      const failed = [
        ...new Set(
          reasons?.flatMap((code, index) => (code === 'ConditionalCheckFailed' ? [names[index] ?? `${index}`] : [])),
        ),
      ];
      if (failed.length > 0) throw marked(new ConditionsFailed(failed));
      if (!isConflict(error) || !retryConflicts || access.remaining() < 100) throw marked(error);
      countForRequest('StoreConflictsRetried');
      await backoff(attempt);
    }
  }
};

/**
 * One conditional write; `false` when its condition did not hold. Lost races are retried until
 * the deadline, and counted.
 */
const conditionalWrite = async (access: TableAccess, request: Parameters<TableAccess['send']>[0]): Promise<boolean> => {
  for (let attempt = 0; ; attempt++) {
    try {
      await access.send(request);
      return true;
    } catch (error) {
      if (error instanceof Error && error.name === 'ConditionalCheckFailedException') return false;
      if (!isConflict(error) || access.remaining() < 100) throw error;
      countForRequest('StoreConflictsRetried');
      await backoff(attempt);
    }
  }
};

/** One conditional UpdateItem; `false` when its condition did not hold. */
export const update = (access: TableAccess, input: Omit<UpdateCommandInput, 'TableName'>): Promise<boolean> =>
  conditionalWrite(access, (client, options) =>
    client.send(new UpdateCommand({ ...input, TableName: access.tableName }), options),
  );

/** One conditional DeleteItem; `false` when its condition did not hold. */
export const remove = (access: TableAccess, input: Omit<DeleteCommandInput, 'TableName'>): Promise<boolean> =>
  conditionalWrite(access, (client, options) =>
    client.send(new DeleteCommand({ ...input, TableName: access.tableName }), options),
  );

/**
 * The item at `key` as it is now, looked at after a write whose answer did not come or that lost a
 * race: `unknown` when the look failed too, or the request has no time left for it.
 */
export const lookAgain = async (access: TableAccess, key: Key): Promise<Item | undefined | 'unknown'> => {
  if (access.remaining() < 500) return 'unknown';
  try {
    return await access.get(key);
  } catch {
    return 'unknown';
  }
};
