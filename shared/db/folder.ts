import { StoreUnavailable } from '../domain/errors';
import { FLOW_STINT_MS, LATER_BATCH_MS } from '../timing';
import { admissionKeeper } from './admission';
import { netted, type Ticket } from './counts';
import { blockDeltas, type FoldPlan, planFold, planTagsFold } from './fold';
import { readGeneration } from './generation';
import { decodeBlock } from './items';
import { blockKey, type CountedList, ticketWrittenMs } from './keys';
import { type ListSnapshot, readForFold, readTickets } from './lists';
import { blockIndexOf, blocksTouched, type Entry, storedBytes } from './ranked';
import { backoff, isConflict, sleep, type TableAccess } from './table-access';
import { ConditionsFailed, TRANSACTION_LIMIT, transact } from './table-writes';
import { writeTagStates } from './tag-state-writes';
import {
  MERGE_BLOCK_LEAST,
  MERGE_MOST,
  MERGE_MOST_BYTES,
  mergePlan,
  OVERLAY_MERGE_AT,
  OVERLAY_MERGE_BYTES,
  OVERLAY_MOST,
  OVERLAY_MOST_BYTES,
  storedOverlay,
  TAGS_FOLD_TICKETS,
} from './tag-states';
import { toLookUp } from './tags';

/**
 * The folder: moves a list's tickets into its counts and blocks, so that readers have few tickets
 * to add up. One fold is one transaction, conditioned on the fold it read (`stamp`), that writes
 * the counts, the end mark, the directory and the blocks it changed, and deletes the tickets it
 * took (in `TAGS`, the state items of the tags a fold merged are written before the next fold:
 * tag-state-writes.ts); a fold that meets another changes nothing. It runs in the background, on
 * the table's stream (functions/fold-counts.ts, and the local server's stream reader): no write
 * waits for it, and a reader is exact whether it has run or not.
 */

/** Tickets one fold takes at most (the transaction's 100 items bound it further). */
export const FOLD_TICKETS = 80;

/**
 * Writes still flowing: a fold that took this many tickets, all it found, is followed by another
 * read, `FLOW_PAUSE_MS` after the last fold's read began, rather than wait for the stream to bring
 * the next tickets (a second's batching window, then a turn among the shard's batches, after the
 * slowest list of this one): under a stream of new tags on `npm run bench:scale`, those waits were
 * 1.3 to 2.6 s, and up to 245 tickets waited in `TAGS` for every `/tags` reader to add up. The
 * pause bounds what a tight loop would cost where a fold takes a few milliseconds (each `TAGS` fold
 * rewrites its overlay, up to 24 KB: at most 4 a second); fewer than this many found after it are
 * left to the later batch their records are in.
 *
 * Whatever is left (writes flowing, a backlog, `TAGS`'s merges), a folder gives its lane back
 * `FLOW_STINT_MS` after its batch began, once it has read a ticket written `LATER_BATCH_MS` or
 * more after that: that ticket's record is in a later batch, which brings the list back
 * (shared/timing.ts). A batch that runs on holds back its lane's next batches, and on `npm start`
 * (as a shard's batches wait for their handler) a lane far behind holds back the reading of the
 * stream: `TAGS` merging for a whole minute under 100,000 new tags stopped every other list of
 * the table for 12 to 15 s at a time, and the collection's list piled up 1,941 tickets.
 */
export const FLOW_TICKETS = 8;
export const FLOW_PAUSE_MS = 250;

/**
 * A stream batch's `TAGS` run keeps reading, a read every `FLOW_PAUSE_MS`, till this long after
 * the last closing its instance set lapses for good, past its openings and the closings after them
 * (`closingEnd`; within its stint), even caught up, and folds whatever tickets it finds: the writes
 * it held back go when the closing lapses, and those held after an opening when the next one
 * comes. Ended when it caught up, it left them to the stream's next batch, a second or more later:
 * on `npm run bench:scale`, under 100,000 scattered new tags, 50 to 62 tickets (200 to 248
 * lookups) waited at the next run's second read, and readers that came first met up to 137.
 */
export const WATCH_AFTER_MS = 1_000;

/**
 * A tag's list is first folded once it holds this many tickets. A first fold writes the list's
 * counts, end mark, directory and first block to spare its readers under 1 KB of tickets; under a
 * stream of new tags it was most of the folder's work (a fold for each of the four new tags of
 * every POST), and `TAGS` and `ALL` waited behind it: `npm run bench:scale` measured 842 tickets
 * waiting in `TAGS` without this and 297 with it.
 */
export const FIRST_FOLD_TICKETS = 8;

/** `TAGS`'s overlay in two: the tags still to merge, and those its fold merged (state items still to write). */
const overlayParts = (snapshot: Pick<ListSnapshot, 'overlay' | 'merged' | 'firsts'>) => {
  const merged = new Set(snapshot.merged ?? []);
  const overlay = snapshot.overlay ?? [];
  return {
    live: overlay.filter((entry) => !merged.has(entry.key)),
    merged: overlay.filter((entry) => merged.has(entry.key)),
    firsts: new Set(snapshot.firsts ?? []),
  };
};

/** Writes the state items of the tags the fold `snapshot` is of merged. */
const writeStatesOf = (access: TableAccess, snapshot: ListSnapshot) => {
  const { merged, firsts } = overlayParts(snapshot);
  return writeTagStates(access, snapshot.generation, merged, snapshot.stamp, firsts);
};

/**
 * `TAGS`'s overlay holds more than a fold leaves when it has time, or tags merged whose state items
 * are still to write: merge-only folds carry on.
 */
const overlayToMerge = (snapshot: Pick<ListSnapshot, 'overlay' | 'merged'>) => {
  if (snapshot.overlay === undefined) return false;
  const { live, merged } = overlayParts(snapshot);
  return merged.length > 0 || live.length > OVERLAY_MERGE_AT || storedBytes(live) > OVERLAY_MERGE_BYTES;
};

/** One run of `foldList`, the closing of `TAGS` kept by `admission`. */
const foldRun = async (
  access: TableAccess,
  generation: string,
  list: CountedList,
  until: number,
  batchBegan: number,
  admission: ReturnType<typeof admissionKeeper> | undefined,
  watches: boolean,
): Promise<number> => {
  let folded = 0;
  const stint = batchBegan + FLOW_STINT_MS;
  const laterBatch = batchBegan + LATER_BATCH_MS;
  // Whether a ticket read was written after the batch was formed, so that a later batch names the list.
  let comesBack = false;
  const givesBack = () => comesBack && Date.now() >= stint;
  const watching = () =>
    watches && admission !== undefined && Date.now() < Math.min(stint, admission.closedTill() + WATCH_AFTER_MS);
  const pause = (began: number) => sleep(Math.max(0, began + FLOW_PAUSE_MS - Date.now()));
  let known: ListSnapshot | undefined;
  // The snapshot whose merged tags' state items were written: a watching run reads on it again.
  let statesOf: ListSnapshot | undefined;
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
  // After a pause for writes to flow in: fewer than FLOW_TICKETS are left to a later batch (below).
  let paused = false;
  for (let attempt = 0; Date.now() < until; ) {
    const began = Date.now();
    // The state items of the tags the last fold merged, written while the next tickets are read.
    const last = known;
    const states = last !== statesOf ? last : undefined;
    statesOf = last;
    const [read] = await Promise.all([
      last
        ? readTickets(access, generation, list, FOLD_TICKETS).then(
            (tickets): ListSnapshot => ({ ...last, ...ticketsOf(tickets) }),
          )
        : readForFold(
            access,
            generation,
            list,
            FOLD_TICKETS,
            list === 'ALL' || list === 'TAGS' ? 0 : FIRST_FOLD_TICKETS,
          ),
      states && writeStatesOf(access, states),
    ]);
    if (read === undefined) return folded;
    // Readers would look up too many tags: writes that bring more wait (admission.ts).
    if (read.overlay)
      await admission?.found(
        toLookUp({ ...read, overlay: read.overlay }),
        Math.min(began, ...read.tickets.map((ticket) => ticketWrittenMs(ticket.sk) ?? ticket.at * 1000)),
      );
    comesBack ||= read.tickets.some((ticket) => ticket.at * 1000 > laterBatch);
    if (read.tickets.length === 0 && !overlayToMerge(read)) {
      if (!watching()) return folded;
      // Caught up, watching: the next reads are of tickets only, on the list as read.
      if (!known) {
        known = read;
        statesOf = read;
        blocks = new Map();
      }
      await pause(began);
      continue;
    }
    // Written since the last read, which found fewer than a full fold: their records are in a later
    // batch, which folds them with the next ones (a fold of a few would double the folds at 10 a
    // second). With none, `TAGS`'s merges go on: no batch would come for them. Watching, they are
    // folded: held back by the closing they come in a few at a time, and a few naming many tags
    // would renew it at every read while the run waited for more.
    if (paused && read.tickets.length > 0 && read.tickets.length < FLOW_TICKETS && !watching()) return folded;
    paused = false;
    const parts = overlayParts(read);
    if (!known) {
      blocks = new Map();
      await writeStatesOf(access, read);
    }
    // Planned on the tags still to merge: this fold drops those merged, their state items written.
    const snapshot: ListSnapshot = read.overlay ? { ...read, overlay: parts.live } : read;
    const dropping = parts.merged.length > 0;
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
          storedBytes(snapshot.overlay) > OVERLAY_MERGE_BYTES,
          mostMerged,
          // With tickets to fold, a block is rewritten for a few tags at least, till the overlay is large.
          take > 0 && snapshot.overlay.length <= OVERLAY_MOST && storedBytes(snapshot.overlay) <= OVERLAY_MOST_BYTES
            ? MERGE_BLOCK_LEAST
            : 1,
        );
        // Nothing to fold, to merge or to drop: the overlay is as small as merging makes it.
        if (take === 0 && merge.keys.length === 0 && !dropping) return folded;
        // What a tag outside the overlay was is in its block (read once: a fold keeps what it wrote);
        // a tag whose changes net to nothing too, as a new one is kept at zero (tag-states.ts).
        const named = [...new Set(tickets.flatMap((ticket) => ticket.deltas.map((delta) => delta.key)))];
        const outside = named.filter((key) => !inOverlay.has(key)).map((key) => ({ key }));
        await readBlocks([...blocksTouched(snapshot.directory, outside), ...merge.ids]);
        const { blocks: refs } = snapshot.directory;
        const before = new Map(
          outside.flatMap((delta) => {
            const block = refs[blockIndexOf(refs, delta.key)];
            const entry = block && blocks.get(block.id)?.find((other) => other.key === delta.key);
            return entry ? [[delta.key, entry] as const] : [];
          }),
        );
        const dropped = parts.merged.map((entry) => entry.key);
        const full = snapshot.tickets.length >= FOLD_TICKETS;
        plan = planTagsFold(access, snapshot, tickets, before, { ...merge, blocks }, Date.now(), dropped, full);
        // Long ids and spellings, or blocks split in more than two: fewer tags merged.
        const tooMuch =
          ('merged' in plan.result && storedBytes(plan.result.merged) > MERGE_MOST_BYTES) ||
          (take === 0 && plan.size > TRANSACTION_LIMIT);
        if (tooMuch && mostMerged > 1) {
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
        ...('overlay' in result && {
          overlay: storedOverlay(result),
          merged: result.merged.map((entry) => entry.key),
          firsts: result.firsts,
          left: result.left,
        }),
      };
      const live = new Set(result.directory.blocks.map((block) => block.id));
      for (const written of result.written) blocks.set(written.id, written.entries);
      for (const id of blocks.keys()) if (!live.has(id)) blocks.delete(id);
      const drained = snapshot.tickets.length < FOLD_TICKETS && plan.tickets === snapshot.tickets.length;
      const flowing = plan.tickets >= FLOW_TICKETS;
      if (givesBack()) return folded;
      if (drained && !flowing && !overlayToMerge(known) && !watching()) return folded;
      // Caught up while writes flow (merges too wait), or held back: more come in the pause.
      if (drained && (flowing || watching())) {
        await pause(began);
        paused = true;
      }
    } catch (error) {
      if (error instanceof ConditionsFailed) return folded;
      if (!isConflict(error)) throw error;
      if (givesBack()) return folded;
      known = undefined;
      await backoff(attempt++, 25, 500);
    }
  }
  return folded;
};

/**
 * Folds the list's tickets, oldest first, one transaction at a time, while a backlog is left (a
 * read found a full fold's worth, or `TAGS`'s overlay holds more than merging leaves, or tags
 * merged whose state items are still to write) or writes still flow (`FLOW_TICKETS`), until
 * `until` (Unix ms) passes or its batch's stint ends with a later batch to bring the list back.
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
  /** When the folder's batch began (Unix ms). */
  batchBegan = Date.now(),
  /**
   * Whether a `TAGS` run reads on after a closing (`WATCH_AFTER_MS`): a stream batch's run does
   * (`foldLists`); a fold made on purpose (a test, a tool) is over when it caught up.
   */
  watches = false,
): Promise<number> => {
  // The run owns `TAGS`'s closing (admission.ts): none of its renewals outlives it, however it ends.
  const admission = list === 'TAGS' ? admissionKeeper(access, generation) : undefined;
  try {
    return await foldRun(access, generation, list, until, batchBegan, admission, watches);
  } finally {
    await admission?.stop();
  }
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
  const began = Date.now();
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      // Not `folded += await …`, which reads `folded` before the wait and loses the other workers' folds.
      const tickets = await foldList(access, next.generation, next.list, undefined, began, true);
      folded += tickets;
    }
  };
  // Every worker done before the batch fails: none may run on beside the stream's retry of it.
  const done = await Promise.allSettled(Array.from({ length: Math.min(parallel, queue.length) }, worker));
  for (const worker of done) if (worker.status === 'rejected') throw worker.reason;
  return folded;
};
