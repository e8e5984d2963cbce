import { type Delta, type ListCounts, type NameCounts, netted, type Ticket, versionWith } from './counts';
import type { Left } from './fresh-tags';
import { applyToBlocks, type BlockChanges, blockIndexOf, type Directory, type Entry } from './ranked';

/**
 * `TAGS` folded in two steps, with no I/O. A fold adds its tickets to the overlay: each tag it
 * changes, with its new count and spellings. Only once the overlay holds more than OVERLAY_MERGE_AT
 * tags are they merged into their blocks. A stream of new tags, each falling in a block of its
 * own, so costs a fold a few blocks rather than a rewrite of most of them, and a reader finds what
 * a pending ticket's tag was at the snapshot in the overlay or, a hundred to a call, in the tags'
 * state items, never in their blocks.
 *
 * A tag's state item is written after the merge that made it, not in its transaction, whose 100
 * items it would take from the tickets (docs/data-model.md). So the tags a merge took stay among
 * the overlay's entries, as readers and older folders read them, and the overlay names them
 * (`merged`); the next fold writes their state items (tag-state-writes.ts) before it drops them
 * from the overlay.
 */

/** A tag as of the fold `stamp` (the one that last merged it into its block): its count and spellings. */
export interface TagState {
  readonly stamp: number;
  readonly n: number;
  readonly names?: NameCounts;
}

/** A tag's count and spellings. */
export type Known = Pick<TagState, 'n' | 'names'>;

const NONE: Known = { n: 0 };

/** The overlay's size from which a fold merges it into the blocks (about 35 bytes a tag, in every `/tags` read). */
export const OVERLAY_MERGE_AT = 100;

/** The overlay's bytes from which a fold merges it, however few its tags (ids and spellings may be long). */
export const OVERLAY_MERGE_BYTES = 8 * 1024;

/**
 * What a tag outside the overlay was as of fold `stamp`, from its state item (written when the tag
 * was last merged into its block): nothing for a tag never merged; `moved` when it was merged
 * again since, and only the snapshot's block still tells.
 */
export const stateAt = (states: readonly TagState[] | undefined, stamp: number): Known | 'moved' => {
  if (!states || states.length === 0) return NONE;
  // Newest first: a tag's first merge also says it was at zero before (a state at stamp 0).
  return states.find((state) => state.stamp <= stamp) ?? 'moved';
};

const inUse = (n: number) => (n > 0 ? 1 : 0);

/** A tag's change of use (+1 into use, −1 out of it, 0) when `delta` is added to `before`. */
export const useChange = (before: Known, delta: Delta) => inUse(before.n + delta.n) - inUse(before.n);

/** `before` with `delta` added (count and spellings), kept at zero: `TAGS` remembers every tag. */
const added = (key: string, before: Known, delta: Delta): Entry =>
  netted([{ key, n: before.n, ...(before.names && { names: before.names }) }, delta])[0] ?? { key, n: 0 };

const negated = (entry: Entry): Delta => ({
  key: entry.key,
  n: -entry.n,
  ...(entry.names && { names: entry.names.map(([name, count]) => [name, -count] as const) }),
});

/** Block entries with the overlay's entries in their place (those in the blocks' range). */
export const withOverlay = (entries: readonly Entry[], overlay: readonly Entry[]): Entry[] => {
  const merged = new Map(entries.map((entry) => [entry.key, entry]));
  for (const entry of overlay) merged.set(entry.key, entry);
  return [...merged.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
};

/** The overlay's tags a fold merges into their blocks, and the blocks they fall in (none when the list has no block yet). */
export interface Merge {
  readonly ids: readonly string[];
  readonly keys: readonly string[];
}

/** Tags one merge takes at most: the next fold writes their state items (a transaction of 100 each) before it drops them. */
export const MERGE_MOST = 400;

/** The bytes of tags one merge takes at most: they stay in the overlay, which every `/tags` read reads, till the next fold. */
export const MERGE_MOST_BYTES = 24 * 1024;

/**
 * Tags a block must gain for a fold with tickets to rewrite it, till the overlay holds
 * OVERLAY_MOST. A merge takes the blocks holding most of the overlay's tags; with 100,000 tags in
 * 250 blocks, a few hundred tags in the overlay are one or two a block, and a 10 KB block
 * rewritten for one tag costs about 20 write units. Waiting longer makes every `/tags` read under
 * a flood pay for a bigger overlay. A fold that finds no ticket waiting (the folder caught up)
 * merges whatever is left.
 */
export const MERGE_BLOCK_LEAST = 4;

/**
 * Past this many tags (or bytes) in `TAGS`'s overlay, not counting a merge's, a fold takes at most
 * TAGS_FOLD_TICKETS tickets, so that merging keeps up; past twice as many, fewer still, down to
 * none (a fold that only merges), until it leaves the overlay no bigger than it found it. So the
 * overlay holds at most twice this, one fold's and one merge's tags, however many new tags a
 * ticket brings and however long their ids and spellings: far under an item's 400 KB.
 */
export const OVERLAY_MOST = 4 * OVERLAY_MERGE_AT;
export const OVERLAY_MOST_BYTES = 24 * 1024;
export const TAGS_FOLD_TICKETS = 30;

/**
 * What a fold with `room` items to spare merges: nothing while the overlay holds at most
 * `mergeAt` tags; else the blocks holding most of its tags first (at least `least` of them), each
 * counted as two items (a block split in more is caught when the fold is planned), up to `most`
 * tags, the last block perhaps in part.
 */
export const mergePlan = (
  directory: Directory,
  overlayKeys: readonly string[],
  room: number,
  mergeAt = OVERLAY_MERGE_AT,
  /** Merge whatever the number of tags (the overlay's bytes are past OVERLAY_MERGE_BYTES). */
  force = false,
  most = MERGE_MOST,
  /** Tags a block must gain to be rewritten (a block is about 10 KB, rewritten whole). */
  least = 1,
): Merge => {
  const { blocks } = directory;
  if (overlayKeys.length <= mergeAt && !force) return { ids: [], keys: [] };
  const perBlock = Map.groupBy(overlayKeys, (key) => (blocks.length === 0 ? -1 : blockIndexOf(blocks, key)));
  const ids: string[] = [];
  const keys: string[] = [];
  let left = room;
  for (const [index, inBlock] of [...perBlock].sort(([, a], [, b]) => b.length - a.length)) {
    const take = Math.min(inBlock.length, most - keys.length);
    if (take < Math.max(1, least) || left < 2) break;
    const id = blocks[index]?.id;
    if (id !== undefined) ids.push(id);
    keys.push(...inBlock.sort().slice(0, take));
    left -= 2;
  }
  return { ids, keys };
};

/** What a fold of `TAGS` writes: its counts, directory and blocks, and overlay (the tags it merged apart, stored among it). */
export interface TagsFold extends BlockChanges {
  readonly stamp: number;
  readonly counts: ListCounts;
  readonly overlay: readonly Entry[];
  /** The tags it merged into their blocks, as merged: their state items are written before the next fold. */
  readonly merged: readonly Entry[];
  /** Those of them that were in no block before (their first merge). */
  readonly firsts: readonly string[];
  /** The tags this fold and those before it dropped from the overlay (fresh-tags.ts), as the fold found them plus its own. */
  readonly left?: Left | undefined;
}

/**
 * The directory's `high` once `merged` are merged: known from a list's first merge on or, for one
 * folded before directories kept it, from its last block's last tag once a fold has read it.
 */
const highest = (
  directory: Directory,
  blocks: ReadonlyMap<string, readonly Entry[]>,
  merged: readonly Entry[],
): string | undefined => {
  const last = directory.blocks.at(-1);
  const known = last === undefined ? '' : (directory.high ?? blocks.get(last.id)?.at(-1)?.key);
  if (known === undefined) return undefined;
  let high = known;
  for (const { key } of merged) if (key > high) high = key;
  return high === '' ? undefined : high;
};

/** The overlay as stored and read: the tags a fold merged stay among its entries till the next fold drops them. */
export const storedOverlay = (fold: Pick<TagsFold, 'overlay' | 'merged'>): Entry[] =>
  withOverlay(fold.overlay, fold.merged);

/**
 * The states a tag merged by fold `stamp` leaves in its state item; on its first merge, also that
 * it was at zero before: a reader whose snapshot is older than the merge (a stream of new tags
 * merges them within a second) then needs no block.
 */
export const mergedStates = (entry: Entry, stamp: number, first: boolean): TagState[] => [
  { stamp, n: entry.n, ...(entry.names && { names: entry.names }) },
  ...(first ? [{ stamp: 0, n: 0 }] : []),
];

/**
 * Folds `tickets` into `TAGS`'s overlay and merges `merge` (see `mergePlan`) into its blocks:
 * `current` holds what the tags the tickets name that the overlay does not hold were (their
 * blocks' entries, for every such tag a block holds); `blocks` the entries of the blocks merged
 * into. A tag the tickets name that neither holds enters the overlay at zero, even if its changes
 * net to nothing (tagged and untagged between two folds): `TAGS` keeps every tag it had.
 */
export const foldTags = (
  state: {
    readonly stamp: number;
    readonly counts: ListCounts;
    readonly directory: Directory;
    readonly overlay: readonly Entry[];
    /** The overlay's `left` once this fold's drops are added. */
    readonly left?: Left | undefined;
  },
  tickets: readonly Ticket[],
  current: ReadonlyMap<string, Known>,
  merge: Merge & { readonly blocks: ReadonlyMap<string, readonly Entry[]> },
  options: {
    readonly now: number;
    readonly newId: () => string;
    readonly maxDeleted?: number;
    /** Entries a block holds at most (small in a test, to see blocks split). */
    readonly blockEntries?: number;
  },
): TagsFold => {
  const stamp = state.stamp + 1;
  const overlay = new Map(state.overlay.map((entry) => [entry.key, entry]));
  const refs = [...state.directory.blocks];
  let total = state.counts.total;
  for (const delta of netted(tickets.flatMap((ticket) => ticket.deltas))) {
    const before: Known = overlay.get(delta.key) ?? current.get(delta.key) ?? NONE;
    overlay.set(delta.key, added(delta.key, before, delta));
    const change = useChange(before, delta);
    total += change;
    const index = blockIndexOf(refs, delta.key);
    const ref = refs[index];
    if (change !== 0 && ref) refs[index] = { ...ref, visible: ref.visible + change };
  }
  for (const ticket of tickets)
    for (const { key } of ticket.deltas) if (!overlay.has(key) && !current.has(key)) overlay.set(key, { key, n: 0 });
  // The tags merged: as the changes that make their blocks' entries the overlay's.
  const merging = new Set(merge.keys);
  const deltas: Delta[] = [];
  const merged: Entry[] = [];
  const firsts: string[] = [];
  const kept: Entry[] = [];
  for (const entry of overlay.values()) {
    if (!merging.has(entry.key)) {
      kept.push(entry);
      continue;
    }
    const block = refs[blockIndexOf(refs, entry.key)];
    const old = block && merge.blocks.get(block.id)?.find((other) => other.key === entry.key);
    deltas.push(...netted([entry, ...(old ? [negated(old)] : [])]));
    // A tag at zero joins its block all the same (`TAGS` remembers every tag it had).
    if (!old && entry.n === 0) deltas.push({ key: entry.key, n: 0 });
    merged.push(entry);
    if (!old) firsts.push(entry.key);
  }
  const changes = applyToBlocks({ ...state.directory, blocks: refs }, merge.blocks, deltas, {
    now: options.now,
    newId: options.newId,
    keepEmpty: true,
    ...(options.maxDeleted !== undefined && { maxDeleted: options.maxDeleted }),
    ...(options.blockEntries !== undefined && { blockEntries: options.blockEntries }),
  });
  // A block merged in part still has tags of its range in the overlay: they count in its `visible`.
  const written = new Map(changes.written.map((block) => [block.id, block.entries]));
  const blocks = changes.directory.blocks;
  const overlayIn = Map.groupBy(kept, (entry) => blockIndexOf(blocks, entry.key));
  const high = highest(state.directory, merge.blocks, merged);
  const directory = {
    ...changes.directory,
    ...(high !== undefined && { high }),
    blocks: blocks.map((ref, index) => {
      const entries = written.get(ref.id);
      if (!entries) return ref;
      return { ...ref, visible: withOverlay(entries, overlayIn.get(index) ?? []).filter((e) => e.n > 0).length };
    }),
  };
  return {
    ...changes,
    directory,
    stamp,
    counts: { ...versionWith(state.counts, tickets), total },
    overlay: withOverlay([], kept),
    merged: withOverlay([], merged),
    firsts,
    ...(state.left && { left: state.left }),
  };
};
