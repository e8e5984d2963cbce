import { randomBytes } from 'node:crypto';
import { StoreUnavailable } from '../domain/errors';
import { type Delta, type ListCounts, netted, type Ticket, versionWith, withTickets } from './counts';
import { readGeneration } from './generation';
import { countsAttributes, decodeBlock, directoryAttributes, retiredAttributes } from './items';
import { attr, blockKey, type CountedList, countsKey, directoryKey, endMarkKey, retiredKey } from './keys';
import { type ListSnapshot, readForFold, readTickets } from './lists';
import { applyToBlocks, type BlockChanges, blocksTouched, type Directory, type Entry, encodeEntries } from './ranked';
import { backoff, type Item, isConflict, type TableAccess } from './table-access';
import { ConditionsFailed, TRANSACTION_LIMIT, type TransactItem, type Transaction, transact } from './table-writes';

/**
 * The folder: moves a list's tickets into its counts and blocks, so that readers have few tickets
 * to add up. One fold is one transaction, conditioned on the fold it read (`stamp`), that writes
 * the counts, the end mark, the directory and the blocks it changed, and deletes the tickets it
 * took; a fold that meets another changes nothing. It runs in the background, on the table's
 * stream (functions/fold-counts.ts, and the local server's stream reader): no write waits for it,
 * and a reader is exact whether it has run or not.
 */

/** Tickets one fold takes at most (the transaction's 100 items bound it further). */
export const FOLD_TICKETS = 80;

const newBlockId = () => randomBytes(6).toString('base64url');

/** A magazine list's blocks hold positions only: a tag's spellings are counted in its counts item. */
const blockDeltas = (list: CountedList, deltas: readonly Delta[]): Delta[] =>
  list === 'TAGS' ? [...deltas] : deltas.flatMap((delta) => (delta.n === 0 ? [] : [{ key: delta.key, n: delta.n }]));

/** A list's folded state. */
export interface Folded {
  readonly stamp: number;
  readonly counts: ListCounts;
  readonly directory: Directory;
}

/** What folding tickets into a list's folded state writes: the new state and its blocks. */
interface FoldResult extends BlockChanges {
  readonly counts: ListCounts;
  readonly stamp: number;
}

/**
 * Folds `tickets` into a list's state (`blocks` holds the entries of the blocks they touch): the
 * one place a list's counts and blocks are worked out from changes, for the folder and for a bulk
 * write's new generation alike.
 */
export const foldInto = (
  list: CountedList,
  state: Folded,
  tickets: readonly Ticket[],
  blocks: ReadonlyMap<string, readonly Entry[]>,
  now: number,
  blockEntries?: number,
  maxDeleted?: number,
): FoldResult => {
  const stamp = state.stamp + 1;
  const deltas = blockDeltas(list, netted(tickets.flatMap((ticket) => ticket.deltas)));
  const changes = applyToBlocks(state.directory, blocks, deltas, {
    now,
    newId: newBlockId,
    ...(blockEntries !== undefined && { blockEntries }),
    ...(maxDeleted !== undefined && { maxDeleted }),
    keepEmpty: list === 'TAGS',
  });
  if (list !== 'TAGS') return { ...changes, counts: withTickets(state.counts, tickets), stamp };
  // A tag is in use while its count is above zero: how many are.
  const before = new Map<string, Entry>();
  for (const id of blocksTouched(state.directory, deltas))
    for (const entry of blocks.get(id) ?? []) before.set(entry.key, entry);
  const after = new Map<string, Entry>();
  for (const written of changes.written) for (const entry of written.entries) after.set(entry.key, entry);
  let inUse = state.counts.total;
  for (const delta of deltas)
    inUse += ((after.get(delta.key)?.n ?? 0) > 0 ? 1 : 0) - ((before.get(delta.key)?.n ?? 0) > 0 ? 1 : 0);
  return { ...changes, counts: { ...versionWith(state.counts, tickets), total: inUse }, stamp };
};

/** The items a fold's result puts: counts, end mark, directory, blocks. */
export const foldedItems = (generation: string, list: CountedList, result: FoldResult): Item[] => [
  { ...countsKey(generation, list), ...countsAttributes(result.counts, result.stamp) },
  { ...endMarkKey(generation, list), [attr.stamp]: result.stamp },
  { ...directoryKey(generation, list), ...directoryAttributes(result.directory, result.stamp) },
  { ...retiredKey(generation, list), ...retiredAttributes(result.directory, result.stamp) },
  ...result.written.map((block) => ({
    ...blockKey(generation, list, block.id),
    [attr.entries]: encodeEntries(block.entries),
  })),
];

interface FoldPlan {
  readonly items: Transaction;
  readonly size: number;
  readonly tickets: number;
  /** The list as the fold leaves it. */
  readonly result: FoldResult;
}

/**
 * The transaction that folds `tickets` (the oldest of the snapshot), conditioned on the fold it read.
 * It deletes as many of the retired blocks as its 100 items leave room for; the rest stay retired
 * for later folds (after a burst of folds, more than 100 can be due at once).
 */
const planFold = (
  access: TableAccess,
  snapshot: ListSnapshot,
  tickets: readonly Ticket[],
  blocks: ReadonlyMap<string, readonly Entry[]>,
  now: number,
): FoldPlan => {
  const { generation, list, stamp, tableName } = { ...snapshot, tableName: access.tableName };
  const state = { stamp, counts: snapshot.folded, directory: snapshot.directory };
  let result = foldInto(list, state, tickets, blocks, now);
  // Counts, end mark, directory and retired list, the new blocks, the tickets.
  const others = 4 + result.written.length + tickets.length;
  if (others + result.deleted.length > TRANSACTION_LIMIT)
    result = foldInto(list, state, tickets, blocks, now, undefined, TRANSACTION_LIMIT - others);
  const [counts, ...rest] = foldedItems(generation, list, result);
  const items = {
    counts: {
      Put: {
        TableName: tableName,
        Item: counts ?? {},
        ConditionExpression: stamp === 0 ? 'attribute_not_exists(#stamp) OR #stamp = :stamp' : '#stamp = :stamp',
        ExpressionAttributeNames: { '#stamp': attr.stamp },
        ExpressionAttributeValues: { ':stamp': stamp },
      },
    },
    folded: rest.map((Item): TransactItem => ({ Put: { TableName: tableName, Item } })),
    retired: result.deleted.map(
      (id): TransactItem => ({ Delete: { TableName: tableName, Key: blockKey(generation, list, id) } }),
    ),
    tickets: tickets.map(
      (ticket): TransactItem => ({
        Delete: {
          TableName: tableName,
          Key: { PK: countsKey(generation, list).PK, SK: ticket.sk },
          ConditionExpression: 'attribute_exists(#sk)',
          ExpressionAttributeNames: { '#sk': 'SK' },
        },
      }),
    ),
  } satisfies Transaction;
  return {
    items,
    size: 1 + items.folded.length + items.retired.length + items.tickets.length,
    tickets: tickets.length,
    result,
  };
};

/**
 * Folds the list's tickets, oldest first, one transaction at a time, while a backlog is left (a
 * read found a full fold's worth) or until `until` (Unix ms) passes; the tickets written after its
 * last read come back on the stream. Returns how many it folded; a fold that met another stops it
 * (the other one carries on).
 *
 * After a fold it knows the list as it left it (counts, directory, the blocks it wrote), so the
 * next fold reads only tickets: two calls a fold while it works through a backlog, where every
 * call may wait behind the writers that made the backlog. The fold's condition on `stamp` still
 * holds it to the state it assumed.
 */
export const foldList = async (
  access: TableAccess,
  generation: string,
  list: CountedList,
  until = access.deadline - 1_000,
): Promise<number> => {
  let folded = 0;
  let known: ListSnapshot | undefined;
  let blocks = new Map<string, readonly Entry[]>();
  for (let attempt = 0; Date.now() < until; ) {
    const snapshot: ListSnapshot = known
      ? { ...known, ...ticketsOf(await readTickets(access, generation, list, FOLD_TICKETS)) }
      : await readForFold(access, generation, list, FOLD_TICKETS);
    if (snapshot.tickets.length === 0) return folded;
    if (!known) blocks = new Map();
    let take = Math.min(FOLD_TICKETS, snapshot.tickets.length);
    let plan: FoldPlan | undefined;
    for (;;) {
      const tickets = snapshot.tickets.slice(0, take);
      const deltas = blockDeltas(list, netted(tickets.flatMap((ticket) => ticket.deltas)));
      const missing = blocksTouched(snapshot.directory, deltas).filter((id) => !blocks.has(id));
      if (missing.length > 0) {
        const read = await access.getMany(missing.map((id) => blockKey(generation, list, id)));
        for (const id of missing) {
          const item = read.get(blockKey(generation, list, id));
          if (!item) throw new StoreUnavailable('collection-busy');
          blocks.set(id, decodeBlock(item));
        }
      }
      plan = planFold(access, snapshot, tickets, blocks, Date.now());
      if (plan.size <= TRANSACTION_LIMIT || take === 1) break;
      take = Math.max(1, Math.floor(take / 2));
    }
    try {
      await transact(access, plan.items, { retryConflicts: false });
      folded += plan.tickets;
      attempt = 0;
      const { result } = plan;
      known = { ...snapshot, stamp: result.stamp, folded: result.counts, directory: result.directory };
      const live = new Set(result.directory.blocks.map((block) => block.id));
      for (const written of result.written) blocks.set(written.id, written.entries);
      for (const id of blocks.keys()) if (!live.has(id)) blocks.delete(id);
      if (snapshot.tickets.length < FOLD_TICKETS && plan.tickets === snapshot.tickets.length) return folded;
    } catch (error) {
      if (error instanceof ConditionsFailed) return folded;
      if (!isConflict(error)) throw error;
      known = undefined;
      await backoff(attempt++, 25, 500);
    }
  }
  return folded;
};

const ticketsOf = (tickets: readonly Ticket[]) => ({ tickets, pending: netted(tickets.flatMap((t) => t.deltas)) });

/** The lists of partitions that changed (from the stream), folded if they belong to the collection readers see. */
export const foldLists = async (
  access: TableAccess,
  lists: readonly { readonly generation: string; readonly list: CountedList }[],
  parallel = 4,
): Promise<number> => {
  const current = await readGeneration(access);
  const queue = lists.filter((entry) => entry.generation === current);
  let folded = 0;
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      folded += await foldList(access, next.generation, next.list);
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, queue.length) }, worker));
  return folded;
};
