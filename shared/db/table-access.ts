import {
  BatchGetCommand,
  GetCommand,
  type NativeAttributeValue,
  QueryCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { StoreUnavailable } from '../domain/errors';
import type { DocumentClient } from './client';
import { storeFailure } from './failures';
import type { Key } from './keys';

export type Item = Record<string, NativeAttributeValue>;

/** DynamoDB's limit: keys in one BatchGetItem. */
const BATCH_GET_LIMIT = 100;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A transaction cancelled because another touched one of its items at the same moment. */
export const isConflict = (error: unknown) => error instanceof StoreUnavailable && error.reason === 'conflict';

/** Full jitter: concurrent writers that met once spread out instead of meeting again. */
export const backoff = (attempt: number, base = 15, cap = 400) =>
  sleep(Math.random() * Math.min(cap, base * 2 ** attempt));

/**
 * Items found by a batch read, by their key: by partition key, then sort key. Finding one makes
 * no string of the whole key (joining and hashing one per item and per look-up was a tenth of a
 * list of 25).
 */
export class ItemsByKey {
  private readonly byPartition = new Map<unknown, Map<unknown, Item>>();

  get(key: Key | Item): Item | undefined {
    return this.byPartition.get(key.PK)?.get(key.SK);
  }

  has(key: Key | Item): boolean {
    return this.get(key) !== undefined;
  }

  /** Adds an item under its own key, or under `key`. */
  set(item: Item, key: Key | Item = item): this {
    let bySortKey = this.byPartition.get(key.PK);
    if (!bySortKey) {
      bySortKey = new Map();
      this.byPartition.set(key.PK, bySortKey);
    }
    bySortKey.set(key.SK, item);
    return this;
  }

  *values(): IterableIterator<Item> {
    for (const bySortKey of this.byPartition.values()) yield* bySortKey.values();
  }
}

/**
 * The DynamoDB calls the repository is built from, for one request: every call gives up at the
 * request's deadline (so that a store that does not answer becomes a 503 in time, not a gateway
 * timeout), failures a retry may cure become `StoreUnavailable`, batches are cut to DynamoDB's
 * limits and their unprocessed rest is asked again. Every read is strongly consistent. The writes
 * (table-writes.ts) send through `send`, on the same deadline.
 */
export const tableAccess = (client: DocumentClient, tableName: string, deadline: number) => {
  const remaining = () => deadline - Date.now();

  /**
   * The request's deadline: one abort signal for all its calls rather than one per call (a list
   * makes three; an AbortController per call was a tenth of its cost), and one timer that runs only
   * while a call is waited for. The timer is cleared when the last call in flight settles, so
   * nothing of a request outlives it, and armed again for the time left by the next call.
   */
  let controller: AbortController | undefined;
  /** How to give up each call still waited for: nothing a settled call needs is kept past it. */
  const waiting = new Set<(reason: unknown) => void>();
  let timer: NodeJS.Timeout | undefined;
  const deadlinePassed = () => {
    timer = undefined;
    controller?.abort();
    for (const giveUp of waiting) giveUp(new StoreUnavailable('timeout'));
    waiting.clear();
  };
  const abortSignal = (): AbortSignal => {
    controller ??= new AbortController();
    return controller.signal;
  };
  const wait = (giveUp: (reason: unknown) => void, left: number) => {
    waiting.add(giveUp);
    timer ??= setTimeout(deadlinePassed, left);
  };
  const stopWaiting = (giveUp: (reason: unknown) => void) => {
    waiting.delete(giveUp);
    if (waiting.size === 0 && timer) {
      clearTimeout(timer);
      timer = undefined;
    }
  };

  /**
   * One call, given up at the deadline (the SDK is told to abort, and the answer is not waited
   * for past it whatever the SDK does); its failure in the domain's terms.
   */
  const call = async <Output>(
    send: (options: { readonly abortSignal: AbortSignal }) => Promise<Output>,
  ): Promise<Output> => {
    const left = remaining();
    if (left <= 0) throw new StoreUnavailable('timeout');
    const signal = abortSignal();
    try {
      return await new Promise<Output>((resolve, reject) => {
        const settled = () => stopWaiting(reject);
        wait(reject, left);
        let sent: Promise<Output>;
        try {
          // As Promise.race did: a send that answers with a plain value (a test double) is answered.
          sent = Promise.resolve(send({ abortSignal: signal }));
        } catch (error) {
          settled();
          throw error;
        }
        sent.then(
          (output) => {
            settled();
            resolve(output);
          },
          (error: unknown) => {
            settled();
            reject(error);
          },
        );
      });
    } catch (error) {
      throw storeFailure(error);
    }
  };

  const get = async (key: Key): Promise<Item | undefined> =>
    (
      await call((options) =>
        client.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }), options),
      )
    ).Item;

  /** The items of `keys` that exist, by key; BatchGetItem in chunks of 100, their unprocessed rest asked again. */
  /**
   * `attributes`: only these, for the bytes of a page, and the sort key by which an item is found;
   * the partition key too only when two keys asked share a sort key (a block's or a tag state's is
   * a fifth of its item's bytes, over a hundred lookups). With `keyOf`, which tells an item's key
   * from those attributes (a magazine's from its id), neither key comes back: a fifth of a
   * magazine's bytes on a page. An item it tells no asked key of is not found.
   */
  const getMany = async (
    keys: readonly Key[],
    attributes?: readonly string[],
    keyOf?: (item: Item) => Key | undefined,
  ): Promise<ItemsByKey> => {
    const found = new ItemsByKey();
    // DynamoDB refuses a batch that names a key twice.
    const asked = new ItemsByKey();
    const unique: Key[] = [];
    for (const key of keys)
      if (!asked.has(key)) {
        asked.set(key, key);
        unique.push(key);
      }
    // A whole item carries its keys: only a projection needs them told (not on a GET's hot path).
    const bySortKey = attributes && !keyOf ? new Map<unknown, Key>(unique.map((key) => [key.SK, key])) : undefined;
    const sortKeyTells = bySortKey !== undefined && bySortKey.size === unique.length;
    const keysNamed = keyOf ? [] : sortKeyTells ? ['SK'] : ['PK', 'SK'];
    const named = attributes && [...keysNamed, ...attributes];
    const told = (attributes && keyOf) || (sortKeyTells && ((item: Item) => bySortKey.get(item.SK))) || undefined;
    const projection = named && {
      ProjectionExpression: named.map((_, index) => `#p${index}`).join(', '),
      ExpressionAttributeNames: Object.fromEntries(named.map((name, index) => [`#p${index}`, name])),
    };
    const chunks = [];
    for (let start = 0; start < unique.length; start += BATCH_GET_LIMIT)
      chunks.push(unique.slice(start, start + BATCH_GET_LIMIT));
    await Promise.all(
      chunks.map(async (chunk) => {
        let pending: Key[] = chunk;
        for (let attempt = 0; pending.length > 0; attempt++) {
          if (attempt > 0) await backoff(attempt, 25, 1000);
          const keys = pending;
          const result = await call((options) =>
            client.send(
              new BatchGetCommand({
                RequestItems: { [tableName]: { Keys: keys, ConsistentRead: true, ...projection } },
              }),
              options,
            ),
          );
          for (const item of result.Responses?.[tableName] ?? []) {
            if (told) {
              const key = told(item);
              if (key === undefined || !asked.has(key)) continue;
              item.PK = key.PK;
              item.SK = key.SK;
            }
            found.set(item);
          }
          pending = (result.UnprocessedKeys?.[tableName]?.Keys ?? []) as Key[];
        }
      }),
    );
    return found;
  };

  /** One page of a key range (strongly consistent), and where the next one starts. */
  const query = async (input: Omit<QueryCommandInput, 'TableName' | 'ConsistentRead'>) => {
    const result = await call((options) =>
      client.send(new QueryCommand({ ...input, TableName: tableName, ConsistentRead: true }), options),
    );
    return { items: result.Items ?? [], next: result.LastEvaluatedKey as Key | undefined };
  };

  /** Every item of a partition (its keys only, with `keysOnly`). */
  const partition = async (pk: string, keysOnly = false) =>
    (
      await queryAll(query, {
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': 'PK', ...(keysOnly && { '#sk': 'SK' }) },
        ExpressionAttributeValues: { ':pk': pk },
        ...(keysOnly && { ProjectionExpression: '#pk, #sk' }),
      })
    ).items;

  /**
   * One call of the client, given up at the deadline, its failure in the domain's terms: what the
   * writes (table-writes.ts) are built on, apart, so that a function that only reads carries none
   * of them, nor their SDK commands.
   */
  const send = <Output>(
    request: (client: DocumentClient, options: { readonly abortSignal: AbortSignal }) => Promise<Output>,
  ): Promise<Output> => call((options) => request(client, options));

  return {
    tableName,
    deadline,
    remaining,
    /** The same table with at least `ms` from now to answer in: for what must be done even when the deadline was what failed. */
    extended: (ms: number) => tableAccess(client, tableName, Math.max(deadline, Date.now() + ms)),
    get,
    getMany,
    query,
    queryAll,
    partition,
    send,
  };
};

export type TableAccess = ReturnType<typeof tableAccess>;

/** Every item of a key range, following the pages of `query` (a table access's), and how many pages it took. */
export const queryAll = async (
  query: (input: Omit<QueryCommandInput, 'TableName' | 'ConsistentRead'>) => Promise<{ items: Item[]; next?: Key }>,
  input: Omit<QueryCommandInput, 'TableName' | 'ConsistentRead' | 'ExclusiveStartKey'>,
) => {
  const items: Item[] = [];
  let pages = 0;
  let start: Key | undefined;
  do {
    const page = await query({ ...input, ...(start && { ExclusiveStartKey: start }) });
    items.push(...page.items);
    pages++;
    start = page.next;
  } while (start);
  return { items, pages };
};
