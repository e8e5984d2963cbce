import { StoreUnavailable } from '../domain/errors';
import { netted, type Ticket } from './counts';
import {
  blockDeltas,
  type FoldPlan,
  OVERLAY_MOST,
  planFold,
  planTagsFold,
  TAGS_FOLD_TICKETS,
  tagStateItems,
} from './fold';
import { readGeneration } from './generation';
import { decodeBlock } from './items';
import { attr, blockKey, type CountedList } from './keys';
import { type ListSnapshot, readForFold, readTickets } from './lists';
import { blockIndexOf, blocksTouched, type Entry } from './ranked';
import { backoff, isConflict, type TableAccess } from './table-access';
import { ConditionsFailed, TRANSACTION_LIMIT, type TransactItem, transact } from './table-writes';
import { MERGE_MOST, mergePlan, OVERLAY_MERGE_AT, OVERLAY_MERGE_BYTES, overlayBytes } from './tag-states';

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

/**
 * A tag's list is first folded once it holds this many tickets. A first fold writes the list's
 * counts, end mark, directory and first block to spare its readers under 1 KB of tickets; under a
 * stream of new tags it was most of the folder's work (a fold for each of the four new tags of
 * every POST), and `TAGS` and `ALL` waited behind it: `npm run bench:scale` measured 842 tickets
 * waiting in `TAGS` without this and 297 with it.
 */
export const FIRST_FOLD_TICKETS = 8;

/**
 * A tag's list never folded that holds too few tickets to be worth its first fold. A list a bulk
 * write built is at stamp 0 too, with its blocks: it is folded as any other.
 */
const notWorthFirstFold = (list: CountedList, snapshot: ListSnapshot) =>
  list !== 'ALL' &&
  list !== 'TAGS' &&
  snapshot.stamp === 0 &&
  snapshot.directory.blocks.length === 0 &&
  snapshot.tickets.length < FIRST_FOLD_TICKETS;

/**
 * `TAGS`'s overlay holds more than a fold leaves when it has time, or tags merged whose state items
 * are still to write: merge-only folds carry on.
 */
const overlayToMerge = (snapshot: Pick<ListSnapshot, 'overlay' | 'merged'>) => {
  const { overlay, merged } = snapshot;
  if (overlay === undefined) return false;
  return (merged?.length ?? 0) > 0 || overlay.length > OVERLAY_MERGE_AT || overlayBytes(overlay) > OVERLAY_MERGE_BYTES;
};

/**
 * Tags a block must gain for a fold with tickets to rewrite it. A merge takes the blocks holding
 * most of the overlay's tags; with 100,000 tags in 250 blocks, the overlay's hundred-odd tags are
 * one or two a block, and each 10 KB block rewritten for one tag cost about 20 write units a tag.
 * Folds with no ticket left (the writes have stopped) merge whatever is left.
 */
const MERGE_BLOCK_LEAST = 4;

/** The bytes of tags one merge takes at most (they stay in the overlay, read by readers, until the next fold). */
const MERGED_MOST_BYTES = 24 * 1024;

/**
 * Writes the state items of the tags fold `stamp` merged, before a later fold drops them from the
 * overlay, a transaction of 100 at a time. Each is conditioned on the item holding an older state:
 * a folder that read the overlay before another dropped it, and writes late, cannot put back a
 * state older than one a later merge wrote. A failed condition is such a newer state: left as is.
 */
export const writeTagStates = async (
  access: TableAccess,
  generation: string,
  merged: readonly Entry[],
  stamp: number,
) => {
  const puts = tagStateItems(generation, merged, stamp).map(
    (Item): TransactItem => ({
      Put: {
        TableName: access.tableName,
        Item,
        ConditionExpression: 'attribute_not_exists(#stamp) OR #stamp < :stamp',
        ExpressionAttributeNames: { '#stamp': attr.stamp },
        ExpressionAttributeValues: { ':stamp': stamp },
      },
    }),
  );
  const chunks = Array.from({ length: Math.ceil(puts.length / TRANSACTION_LIMIT) }, (_, index) =>
    puts.slice(index * TRANSACTION_LIMIT, (index + 1) * TRANSACTION_LIMIT),
  );
  await Promise.all(
    chunks.map(async (chunk) => {
      // Named by position, so that a cancellation says which states were newer already.
      for (let left = chunk; left.length > 0; ) {
        try {
          await transact(access, Object.fromEntries(left.map((item, index) => [String(index), item])));
          return;
        } catch (error) {
          if (!(error instanceof ConditionsFailed)) throw error;
          const newer = new Set(error.failed);
          left = left.filter((_, index) => !newer.has(String(index)));
        }
      }
    }),
  );
};

/**
 * Folds the list's tickets, oldest first, one transaction at a time, while a backlog is left (a
 * read found a full fold's worth, or `TAGS`'s overlay holds more than merging leaves) or until
 * `until` (Unix ms) passes; the tickets written after its last read come back on the stream.
 * Returns how many it folded; a fold that met another stops it (the other one carries on).
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
  const readBlocks = async (ids: readonly string[]) => {
    const missing = ids.filter((id) => !blocks.has(id));
    if (missing.length === 0) return;
    const read = await access.getMany(missing.map((id) => blockKey(generation, list, id)));
    for (const id of missing) {
      const item = read.get(blockKey(generation, list, id));
      if (!item) throw new StoreUnavailable('collection-busy');
      blocks.set(id, decodeBlock(item));
    }
  };
  for (let attempt = 0; Date.now() < until; ) {
    // The tags the last fold merged: their state items, written while the next tickets are read.
    const last = known;
    const [snapshot] = await Promise.all([
      last
        ? readTickets(access, generation, list, FOLD_TICKETS).then(
            (read): ListSnapshot => ({ ...last, ...ticketsOf(read) }),
          )
        : readForFold(access, generation, list, FOLD_TICKETS),
      last?.merged?.length ? writeTagStates(access, generation, last.merged, last.stamp) : undefined,
    ]);
    if (snapshot.tickets.length === 0 && !overlayToMerge(snapshot)) return folded;
    if (!known && notWorthFirstFold(list, snapshot)) return folded;
    if (!known) {
      blocks = new Map();
      if (snapshot.merged?.length) await writeTagStates(access, generation, snapshot.merged, snapshot.stamp);
    }
    let take = Math.min(FOLD_TICKETS, snapshot.tickets.length);
    let mostMerged = MERGE_MOST;
    let plan: FoldPlan | undefined;
    for (;;) {
      const tickets = snapshot.tickets.slice(0, take);
      const deltas = netted(tickets.flatMap((ticket) => ticket.deltas));
      if (snapshot.overlay) {
        const inOverlay = new Set(snapshot.overlay.map((entry) => entry.key));
        const keys = deltas.map((delta) => delta.key);
        const merge = mergePlan(
          snapshot.directory,
          [...new Set([...inOverlay, ...keys])],
          TRANSACTION_LIMIT - 5 - tickets.length,
          undefined,
          overlayBytes(snapshot.overlay) > OVERLAY_MERGE_BYTES,
          mostMerged,
          // With tickets to fold, a block is rewritten for a few tags at least, till the overlay is large.
          take > 0 && snapshot.overlay.length <= OVERLAY_MOST ? MERGE_BLOCK_LEAST : 1,
        );
        // Nothing to fold, to merge or to drop: the overlay is as small as merging makes it.
        if (take === 0 && merge.keys.length === 0 && !snapshot.merged?.length) return folded;
        // What a tag outside the overlay was is in its block (read once: a fold keeps what it wrote).
        const outside = deltas.filter((delta) => !inOverlay.has(delta.key));
        await readBlocks([...blocksTouched(snapshot.directory, outside), ...merge.ids]);
        const { blocks: refs } = snapshot.directory;
        const before = new Map(
          outside.flatMap((delta) => {
            const block = refs[blockIndexOf(refs, delta.key)];
            const entry = block && blocks.get(block.id)?.find((other) => other.key === delta.key);
            return entry ? [[delta.key, entry] as const] : [];
          }),
        );
        plan = planTagsFold(access, snapshot, tickets, before, { ...merge, blocks }, Date.now());
        // Long ids and spellings: fewer tags merged, so that the overlay stays small.
        if ('merged' in plan.result && mostMerged > 1 && overlayBytes(plan.result.merged) > MERGED_MOST_BYTES) {
          mostMerged = Math.floor(mostMerged / 2);
          continue;
        }
      } else {
        await readBlocks(blocksTouched(snapshot.directory, blockDeltas(list, deltas)));
        plan = planFold(access, snapshot, tickets, blocks, Date.now());
      }
      // `TAGS` may go down to a fold of no ticket, which only merges its overlay.
      if ((plan.size <= TRANSACTION_LIMIT && !plan.starved) || take === (snapshot.overlay ? 0 : 1)) break;
      take = plan.starved && take > TAGS_FOLD_TICKETS ? TAGS_FOLD_TICKETS : Math.floor(take / 2);
    }
    try {
      await transact(access, plan.items, { retryConflicts: false });
      folded += plan.tickets;
      attempt = 0;
      const { result } = plan;
      known = {
        ...snapshot,
        stamp: result.stamp,
        folded: result.counts,
        directory: result.directory,
        ...('overlay' in result && { overlay: result.overlay, merged: result.merged }),
      };
      const live = new Set(result.directory.blocks.map((block) => block.id));
      for (const written of result.written) blocks.set(written.id, written.entries);
      for (const id of blocks.keys()) if (!live.has(id)) blocks.delete(id);
      const drained = snapshot.tickets.length < FOLD_TICKETS && plan.tickets === snapshot.tickets.length;
      if (drained && !overlayToMerge(known)) return folded;
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
