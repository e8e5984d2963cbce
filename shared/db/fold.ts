import { randomBytes } from 'node:crypto';
import { type Delta, type ListCounts, netted, noCounts, type Ticket, versionWith, withTickets } from './counts';
import { leftAfter } from './fresh-tags';
import {
  countsAttributes,
  directoryAttributes,
  overlayAttributes,
  retiredAttributes,
  tagStateAttributes,
} from './items';
import {
  attr,
  blockKey,
  type CountedList,
  countsKey,
  directoryKey,
  endMarkKey,
  overlayKey,
  retiredKey,
  tagStateKey,
} from './keys';
import type { ListSnapshot } from './lists';
import {
  applyToBlocks,
  type BlockChanges,
  blocksTouched,
  type Directory,
  type Entry,
  emptyDirectory,
  encodeEntries,
  storedBytes,
} from './ranked';
import type { Item, TableAccess } from './table-access';
import { TRANSACTION_LIMIT, type TransactItem, type Transaction } from './table-writes';
import {
  foldTags,
  type Known,
  type Merge,
  mergedStates,
  OVERLAY_MOST,
  OVERLAY_MOST_BYTES,
  TAGS_FOLD_TICKETS,
  type TagsFold,
} from './tag-states';

/**
 * What a fold writes, with no I/O: a list's counts and blocks worked out from tickets, and the
 * transaction that writes them (the folder, folder.ts, reads and sends it; a bulk write builds a
 * new generation's lists with it).
 */

const newBlockId = () => randomBytes(6).toString('base64url');

/** A magazine list's blocks hold positions only: a tag's spellings are counted in its counts item. */
export const blockDeltas = (list: CountedList, deltas: readonly Delta[]): Delta[] =>
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

/** The items a fold's result puts: counts, end mark, directory, blocks (and `TAGS`'s overlay). */
export const foldedItems = (generation: string, list: CountedList, result: FoldResult | TagsFold): Item[] => [
  { ...countsKey(generation, list), ...countsAttributes(result.counts, result.stamp) },
  {
    ...endMarkKey(generation, list),
    [attr.stamp]: result.stamp,
    // For creates, which read it to mark fresh tags: none past it is ever looked up (tickets.ts).
    ...('overlay' in result && result.directory.high !== undefined && { [attr.high]: result.directory.high }),
  },
  { ...directoryKey(generation, list), ...directoryAttributes(result.directory, result.stamp) },
  { ...retiredKey(generation, list), ...retiredAttributes(result.directory, result.stamp) },
  ...result.written.map((block) => ({
    ...blockKey(generation, list, block.id),
    [attr.entries]: encodeEntries(block.entries),
  })),
  ...('overlay' in result ? [{ ...overlayKey(generation), ...overlayAttributes(result) }] : []),
];

/** The state items of the tags fold `stamp` merged (written after it: tag-states.ts); `firsts`, those merged for the first time. */
export const tagStateItems = (
  generation: string,
  merged: readonly Entry[],
  stamp: number,
  firsts: ReadonlySet<string> = new Set(),
): Item[] =>
  merged.map((entry) => ({
    ...tagStateKey(generation, entry.key),
    ...tagStateAttributes(mergedStates(entry, stamp, firsts.has(entry.key))),
  }));

/**
 * A new generation's list folded at once from `deltas` (a bulk write): `TAGS` with every tag's
 * state item and an empty overlay, as the folder leaves it once it has written them.
 */
export const builtList = (generation: string, list: CountedList, deltas: readonly Delta[], now: number): Item[] => {
  const tickets = [{ sk: '', at: Math.floor(now / 1000), deltas }];
  const empty = { stamp: -1, counts: noCounts, directory: emptyDirectory };
  if (list !== 'TAGS') return foldedItems(generation, list, foldInto(list, empty, tickets, new Map(), now));
  // Every tag in its blocks has its state item, below: the folds after it note what they drop.
  const result = foldTags(
    { ...empty, overlay: [], left: { floor: 0, filters: [] } },
    tickets,
    new Map(),
    { ids: [], keys: netted(deltas).map((delta) => delta.key), blocks: new Map() },
    { now, newId: newBlockId },
  );
  return [
    ...foldedItems(generation, list, { ...result, merged: [], firsts: [] }),
    ...tagStateItems(generation, result.merged, result.stamp),
  ];
};

export interface FoldPlan {
  readonly items: Transaction;
  readonly size: number;
  /** A fold of `TAGS` that leaves its overlay too big, for want of room to merge it: fewer tickets, then. */
  readonly starved: boolean;
  readonly tickets: number;
  /** The list as the fold leaves it. */
  readonly result: FoldResult | TagsFold;
}

/** Whether a fold of `TAGS` that leaves `after` of an overlay it found as `before` must take fewer tickets. */
const starved = (before: readonly Entry[], after: readonly Entry[], tickets: number) => {
  const bytes = storedBytes(after);
  const over = (times: number) => after.length > times * OVERLAY_MOST || bytes > times * OVERLAY_MOST_BYTES;
  const grows = after.length > before.length || bytes > storedBytes(before);
  return over(1) && (tickets > TAGS_FOLD_TICKETS || (over(2) && grows));
};

/** The fold's transaction: its counts conditioned on the fold it read, every other item put or deleted. */
const foldTransaction = (
  access: TableAccess,
  snapshot: ListSnapshot,
  tickets: readonly Ticket[],
  result: FoldResult | TagsFold,
) => {
  const { generation, list, stamp } = snapshot;
  const { tableName } = access;
  const [counts, ...rest] = foldedItems(generation, list, result);
  return {
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
};

const sizeOf = (items: ReturnType<typeof foldTransaction>) =>
  1 + items.folded.length + items.retired.length + items.tickets.length;

/**
 * The transaction that folds `tickets` into `TAGS`'s overlay and merges `merge` into its blocks
 * (tag-states.ts): `before` holds what the tags outside the overlay were, `merge.blocks` the blocks read.
 */
export const planTagsFold = (
  access: TableAccess,
  snapshot: ListSnapshot,
  tickets: readonly Ticket[],
  before: ReadonlyMap<string, Known>,
  merge: Merge & { readonly blocks: ReadonlyMap<string, readonly Entry[]> },
  now: number,
  /** The tags it drops from the overlay (their state items written): noted for fresh tickets' readers (fresh-tags.ts). */
  dropped: readonly string[] = [],
  /** Whether tickets wait past those the snapshot read (its read was full). */
  unread = false,
): FoldPlan => {
  const stamp = snapshot.stamp + 1;
  // Tickets not read may be fresh, of any stamp: one unmarked among those left stands for them.
  const waiting = [...snapshot.tickets.slice(tickets.length), ...(unread ? [{}] : [])];
  const state = {
    stamp: snapshot.stamp,
    counts: snapshot.folded,
    directory: snapshot.directory,
    overlay: snapshot.overlay ?? [],
    left: leftAfter(snapshot.left, stamp, dropped, waiting),
  };
  let result = foldTags(state, tickets, before, merge, { now, newId: newBlockId });
  // Counts, end mark, directory, retired list, overlay, the new blocks, the tickets.
  const others = 5 + result.written.length + tickets.length;
  if (others + result.deleted.length > TRANSACTION_LIMIT)
    result = foldTags(state, tickets, before, merge, {
      now,
      newId: newBlockId,
      maxDeleted: TRANSACTION_LIMIT - others,
    });
  const items = foldTransaction(access, snapshot, tickets, result);
  return {
    items,
    size: sizeOf(items),
    starved: starved(state.overlay, result.overlay, tickets.length),
    tickets: tickets.length,
    result,
  };
};

/**
 * The transaction that folds `tickets` (the oldest of the snapshot), conditioned on the fold it read.
 * It deletes as many of the retired blocks as its 100 items leave room for; the rest stay retired
 * for later folds (after a burst of folds, more than 100 can be due at once).
 */
export const planFold = (
  access: TableAccess,
  snapshot: ListSnapshot,
  tickets: readonly Ticket[],
  blocks: ReadonlyMap<string, readonly Entry[]>,
  now: number,
): FoldPlan => {
  const { list, stamp } = snapshot;
  const state = { stamp, counts: snapshot.folded, directory: snapshot.directory };
  let result = foldInto(list, state, tickets, blocks, now);
  // Counts, end mark, directory and retired list, the new blocks, the tickets.
  const others = 4 + result.written.length + tickets.length;
  if (others + result.deleted.length > TRANSACTION_LIMIT)
    result = foldInto(list, state, tickets, blocks, now, undefined, TRANSACTION_LIMIT - others);
  const items = foldTransaction(access, snapshot, tickets, result);
  return { items, size: sizeOf(items), starved: false, tickets: tickets.length, result };
};
