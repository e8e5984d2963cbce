import { randomInt } from 'node:crypto';
import { StoreUnavailable } from '../domain/errors';
import { cancellationReasons } from './failures';
import { decodeHead, switchedAtOf } from './items';
import { attr, FIRST_GENERATION, GUARD_COUNT, guardKey, HEAD_REPLICAS, headKey, type Key } from './keys';
import { backoff, type Item, type ItemsByKey, type TableAccess } from './table-access';
import { ConditionsFailed, lookAgain, sentAgain, type TransactItem, type Transaction, transact } from './table-writes';

/**
 * The collection generation: which generation readers and writers use. The head (replicated on
 * HEAD_REPLICAS items, so that no one item carries every read) names it; a function instance
 * remembers the last one it saw and checks it with every read, in the same call as the items.
 */
let known: string | undefined;

/** A head replica chosen at random for this read. */
const someHead = () => headKey(randomInt(HEAD_REPLICAS));

export const headKeys = (): Key[] => Array.from({ length: HEAD_REPLICAS }, (_, replica) => headKey(replica));

/** The command a head is read with: alone, or in a batch of one as readers read (`readInGeneration`). */
export type HeadRead = 'GetItem' | 'BatchGetItem';

/**
 * Reads the head: the generation readers see now. Every write starts here (or with
 * `readInGeneration`), never with a generation remembered from an earlier request: a bulk write
 * keeps the generation it replaces sealed for longer than any request runs after reading the head.
 */
export const readGeneration = async (access: TableAccess, by: HeadRead = 'GetItem'): Promise<string> =>
  (await readHead(access, by)).generation;

/** The head as `readGeneration` reads it, with when its generation became the collection (see `GenerationRead`). */
export const readHead = async (access: TableAccess, by: HeadRead = 'GetItem') => {
  const key = someHead();
  const head = by === 'GetItem' ? await access.get(key) : (await access.getMany([key])).get(key);
  known = decodeHead(head) ?? FIRST_GENERATION;
  return { generation: known, switchedAt: switchedAtOf(head) };
};

/**
 * The generation this instance saw last, which every read checks in its own call; read from the
 * head when it has seen none, in a batch, as readers read: a function that only reads sends no
 * GetItem (and is granted none).
 */
export const lastGeneration = async (access: TableAccess): Promise<string> =>
  known ?? readGeneration(access, 'BatchGetItem');

/** Items read with a head replica, and the generation it names. */
export interface GenerationRead {
  readonly generation: string;
  readonly items: ItemsByKey;
  /** When the generation became the collection (Unix seconds; 0 for the first): the latest change of a list it has no count of. */
  readonly switchedAt: number;
}

/**
 * Reads `keysOf(generation)` together with a head replica, in one BatchGetItem: when the head
 * names the generation the keys were made for, the items are the collection as it is; when a bulk
 * write switched generations meanwhile, they are read again under the new one.
 */
export const readInGeneration = async (
  access: TableAccess,
  keysOf: (generation: string) => readonly Key[],
  /** Only these attributes of the items (a head's generation comes too). */
  attributes?: readonly string[],
  /** An item's key from those attributes, when they tell it (see `getMany`); a head is told by its generation. */
  keyOf?: (item: Item, generation: string) => Key | undefined,
): Promise<GenerationRead> => {
  for (let attempt = 0; ; attempt++) {
    const generation = await lastGeneration(access);
    const head = someHead();
    const items = await access.getMany(
      [head, ...keysOf(generation)],
      attributes && [attr.generation, attr.switchedAt, ...attributes],
      keyOf && ((item) => (item[attr.generation] === undefined ? keyOf(item, generation) : head)),
    );
    const current = decodeHead(items.get(head)) ?? FIRST_GENERATION;
    if (current === generation) return { generation, items, switchedAt: switchedAtOf(items.get(head)) };
    known = current;
    if (attempt >= 2) throw new StoreUnavailable('collection-busy');
  }
};

/**
 * The guard a write checks in its transaction: one of GUARD_COUNT items of its generation, at random,
 * so that concurrent writes rarely meet on one. A bulk write seals every guard before it reads the
 * collection, so no write can commit into a generation it is replacing; a seal lapses at the
 * bulk's lease, so one that crashed holds writes back for its lease only.
 */
export const guardCheck = (tableName: string, generation: string): TransactItem => ({
  ConditionCheck: {
    TableName: tableName,
    Key: guardKey(generation, randomInt(GUARD_COUNT)),
    ConditionExpression: 'attribute_not_exists(#until) OR #until < :now',
    ExpressionAttributeNames: { '#until': attr.leaseUntil },
    ExpressionAttributeValues: { ':now': Date.now() },
  },
});

/**
 * A write found its generation sealed: a bulk write holds the collection. Waits a little and
 * learns the head again (the bulk may have switched meanwhile); past the deadline, the request
 * is refused with 503 and `Retry-After`.
 */
const awaitCollection = async (access: TableAccess, attempt: number) => {
  if (access.remaining() < 1_500) throw new StoreUnavailable('collection-busy', 2);
  await backoff(attempt, 100, 500);
  await readGeneration(access);
};

/** One attempt of a guarded write: its transaction, what it gives back, and how to tell whether it was made after a failure it cannot name. */
interface WriteAttempt<T> {
  /** The transaction, with a `guard` item (`guardCheck`) of the generation it was built for. */
  readonly items: Transaction;
  readonly result: T;
  /**
   * The lost-answer look: whether a failure (a lost answer, or a condition failed by the write's
   * own earlier attempt) hides a write that was made (`writerOf`), or `unknown` when the look could
   * not be made. It may throw the error the failure means to the client.
   */
  readonly made: (error: unknown) => Promise<boolean | 'unknown'>;
}

/** What `attempt` builds: a write to send, a result with no write to make (`done`), or `again` to build it anew. */
type Prepared<T> = WriteAttempt<T> | { readonly done: T } | 'again';

interface WriteRules {
  /**
   * Whether a failure that hides no write is worth another attempt (built anew, from a fresh
   * read); it may wait first, or throw the error the failure means to the client.
   */
  readonly retry: (error: unknown, attempt: number) => boolean | Promise<boolean>;
  /** `false`: a conflict comes back at once instead of being sent again after a backoff. */
  readonly retryConflicts?: boolean;
}

/**
 * The one write loop of every single write (create, replace, delete, add an article): build the
 * attempt from a fresh read, send it; when a bulk write holds the generation (the `guard` failed),
 * wait for it and build again; when the write failed, look whether it was made all the same, and
 * otherwise let the write's `retry` rule decide. Anything else is thrown, for the caller to name.
 */
export const writeLoop = async <T>(
  access: TableAccess,
  attempt: (attempt: number) => Promise<Prepared<T>>,
  { retry, retryConflicts }: WriteRules,
): Promise<T> => {
  for (let count = 0; ; count++) {
    const write = await attempt(count);
    if (write === 'again') continue;
    if ('done' in write) return write.done;
    try {
      await transact(access, write.items, { retryConflicts });
      return write.result;
    } catch (error) {
      if (error instanceof ConditionsFailed && error.has('guard')) {
        await awaitCollection(access, count);
        continue;
      }
      const made = await write.made(error);
      if (made === true) return write.result;
      // A transaction cancelled on its conditions wrote nothing, unless the SDK had sent it before
      // (`sentAgain`); any other failure may hide a write that landed, and a client told "not
      // carried out" would send it again and make it twice.
      if (made === 'unknown' && !(error instanceof ConditionsFailed && cancelled(error)))
        throw new StoreUnavailable('unconfirmed', 1, { cause: error });
      if (await retry(error, count)) continue;
      throw error;
    }
  }
};

/**
 * Who last wrote the item at `key`, looked at after a write whose answer did not come or that lost
 * a race: `this` write (the item carries its `token`), `another`, `none` (no item), or `unknown`
 * when the look failed or the request has no time left for it. The `made` of a `WriteAttempt`.
 */
export const writerOf = async (
  access: TableAccess,
  key: Key,
  token?: string,
  /** Whether the item is this write's even though a later write left its own token there (a create's incarnation). */
  own?: (item: Item) => boolean,
): Promise<'this' | 'another' | 'none' | 'unknown'> => {
  const item = await lookAgain(access, key);
  if (item === 'unknown') return 'unknown';
  if (!item) return 'none';
  return (token !== undefined && item[attr.writeToken] === token) || own?.(item) ? 'this' : 'another';
};

/**
 * A transaction DynamoDB cancelled (its conditions, a conflict, throttling) that the SDK sent once:
 * it wrote nothing. One the SDK sent again first (`sentAgain`) may have been written by an earlier send.
 */
export const cancelled = (error: unknown): boolean => {
  if (sentAgain(error)) return false;
  if (error instanceof ConditionsFailed) return true;
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return (
    cancellationReasons(cause) !== undefined || (cause as Error | undefined)?.name === 'TransactionConflictException'
  );
};

/**
 * Whether a magazine's incarnation was deleted (its deletion note is there): a create whose
 * answer was lost and whose magazine is gone made it all the same, and a delete whose answer was
 * lost and whose id was created again meanwhile was made. `unknown` when the look failed.
 */
export const wasDeleted = async (access: TableAccess, key: Key): Promise<boolean | 'unknown'> => {
  const note = await lookAgain(access, key);
  return note === 'unknown' ? note : note !== undefined;
};

/** Attempts of a write that keeps losing its item to other writes (a magazine's revision, its next article number) before it gives up with 503. */
export const RACE_ATTEMPTS = 10;

/**
 * Waits before the next attempt of a write that lost a race: writers of one item that met back
 * off with jitter, so that they take turns rather than meet again; one that lost every turn
 * (dozens of writers of one item at once), or has no time left for another, gets a 503 to retry.
 */
export const takeTurn = async (access: TableAccess, error: unknown, attempt: number, attempts = RACE_ATTEMPTS) => {
  if (attempt + 1 >= attempts || access.remaining() < 1_000)
    throw new StoreUnavailable('conflict', 1, { cause: error });
  await backoff(attempt);
};

/** A write's own item after a failure: whether `writerOf` found this write there, or could not look. */
export const isMine = (writer: Awaited<ReturnType<typeof writerOf>>): boolean | 'unknown' =>
  writer === 'unknown' ? writer : writer === 'this';

/** Points the instance at a generation it switched to itself. */
export const learnGeneration = (generation: string) => {
  known = generation;
};
