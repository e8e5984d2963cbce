import { StoreUnavailable } from '../domain/errors';
import { noteTicketsRead } from '../metrics';
import { type Delta, type ListCounts, netted, type Ticket, withTickets } from './counts';
import type { Left } from './fresh-tags';
import { readInGeneration } from './generation';
import { decodeBlock, decodeCounts, decodeDirectory, decodeOverlay, decodeStamp, decodeTicket } from './items';
import {
  attr,
  blockKey,
  COUNTS_SK,
  type CountedList,
  DIRECTORY_SK,
  END_MARK_SK,
  type Key,
  listPartition,
  OVERLAY_SK,
  RETIRED_SK,
  TICKET_PREFIX,
} from './keys';
import {
  type BlockRef,
  blockIndexOf,
  blocksForRanks,
  type Directory,
  type Entry,
  emptyDirectory,
  sizesWith,
  withDeltas,
} from './ranked';
import { type Item, type ItemsByKey, queryAll, type TableAccess } from './table-access';
import { withOverlay } from './tag-states';

/**
 * Reading a counted list: one Query of its partition gives its folded counts, the tickets not
 * folded yet and (to find a page) its directory, as one snapshot; the page's blocks then come in
 * one BatchGetItem. A read therefore costs the same few calls however long the list, however deep
 * the page and however many writes came before it; only the tickets not yet folded add bytes (each
 * request notes them, `TicketsRead`), and the folder keeps them few.
 */

export interface ListSnapshot {
  readonly generation: string;
  readonly list: CountedList;
  /** The fold the snapshot is of. */
  readonly stamp: number;
  readonly folded: ListCounts;
  readonly tickets: readonly Ticket[];
  readonly directory: Directory;
  /** The tickets' deltas, added up by key. */
  readonly pending: readonly Delta[];
  /** `TAGS` only, folded with an overlay (see tag-states.ts): the tags changed since their blocks were written. */
  readonly overlay?: readonly Entry[];
  /** `TAGS`, read by the folder: the overlay's tags its fold merged, their state items perhaps not written yet. */
  readonly merged?: readonly string[];
  /** Those of them merged for the first time. */
  readonly firsts?: readonly string[];
  /** `TAGS`: the tags the folds since a floor dropped from the overlay (fresh-tags.ts). */
  readonly left?: Left;
}

/** What the items of a list's partition hold (counts, tickets, directory, retired blocks). */
const LIST_ATTRIBUTES = [
  attr.stamp,
  attr.total,
  attr.years,
  attr.names,
  attr.writes,
  attr.lastModified,
  attr.at,
  attr.changes,
  attr.high,
  attr.blocks,
  attr.retired,
  attr.entries,
  attr.fresh,
  attr.left,
] as const;

/** A fold landing during the Query makes its start and end disagree; the Query is made again, at most this often. */
const SNAPSHOT_ATTEMPTS = 3;
/** What the folder reads besides: the overlay's merged tags (readers read them as the rest of the overlay). */
const FOLDER_ATTRIBUTES = [...LIST_ATTRIBUTES, attr.merged] as const;

/** A key range of a list's partition, every attribute but the partition key (which each item would repeat). */
const rangeOf = (
  generation: string,
  list: CountedList,
  from: string,
  to: string,
  limit?: number,
  attributes: readonly string[] = LIST_ATTRIBUTES,
) => ({
  KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
  ProjectionExpression: ['#sk', ...attributes.map((_, index) => `#a${index}`)].join(', '),
  ExpressionAttributeNames: {
    '#pk': 'PK',
    '#sk': 'SK',
    ...Object.fromEntries(attributes.map((name, index) => [`#a${index}`, name])),
  },
  ExpressionAttributeValues: { ':pk': listPartition(generation, list), ':from': from, ':to': to },
  ...(limit !== undefined && { Limit: limit }),
});

/**
 * The snapshot the items of a list's partition make, or undefined when a fold landed while they
 * were read: every fold writes the counts, the end mark, the directory and the retired list with
 * one `stamp`, so their stamps disagree.
 */
const snapshotOf = (
  generation: string,
  list: CountedList,
  items: readonly Item[],
  options: { readonly directory?: boolean; readonly retired?: boolean },
): ListSnapshot | undefined => {
  const bySk = (sk: string) => items.find((item) => item.SK === sk);
  const { counts: folded, stamp } = decodeCounts(bySk(COUNTS_SK));
  const stamps = [stamp, decodeStamp(bySk(END_MARK_SK))];
  const directoryItem = options.directory || options.retired ? bySk(DIRECTORY_SK) : undefined;
  if (directoryItem !== undefined || options.directory) stamps.push(decodeStamp(directoryItem));
  const retiredItem = options.retired ? bySk(RETIRED_SK) : undefined;
  if (retiredItem !== undefined) stamps.push(decodeStamp(retiredItem));
  const overlayItem = list === 'TAGS' ? bySk(OVERLAY_SK) : undefined;
  if (overlayItem !== undefined) stamps.push(decodeStamp(overlayItem));
  if (stamps.some((other) => other !== stamp)) return undefined;
  const tickets = items.filter((item) => String(item.SK).startsWith(TICKET_PREFIX)).map(decodeTicket);
  const directory = directoryItem ? decodeDirectory(directoryItem, retiredItem) : emptyDirectory;
  // A `TAGS` folded before overlays has blocks and no overlay: its tickets are looked up in its blocks.
  const { entries: overlay, ...merges } =
    overlayItem !== undefined
      ? decodeOverlay(overlayItem)
      : { entries: list === 'TAGS' && stamp === 0 ? [] : undefined, merged: [], firsts: [] };
  return {
    generation,
    list,
    stamp,
    folded,
    tickets,
    directory,
    pending: netted(tickets.flatMap((ticket) => ticket.deltas)),
    ...(overlay && (overlayItem !== undefined || directory.blocks.length === 0) && { overlay, ...merges }),
  };
};

/**
 * The list's counts, tickets and (with `directory`) its directory, as of one fold: the Query reads
 * from the counts item to the end mark (or the directory), which every fold writes together, so
 * a fold that lands halfway through shows as two stamps, and the Query is made again.
 */
export const readList = async (
  access: TableAccess,
  generation: string,
  list: CountedList,
  /** `directory`: the directory too (a page). `garbage`: a replaced generation's, whose tickets no fold or reader takes. */
  options: { readonly directory?: boolean; readonly garbage?: boolean } = {},
): Promise<ListSnapshot> => {
  const range = rangeOf(generation, list, COUNTS_SK, options.directory ? DIRECTORY_SK : END_MARK_SK);
  for (let attempt = 1; ; attempt++) {
    const { items, pages } = await queryAll(access.query, range);
    // More than one page is no snapshot: a ticket committed between pages may land behind the
    // read (its time taken before) while a later one lands ahead. Collected again (keys and
    // stamps only) and found the same, the partition was, between the two, as first read.
    if (pages > 1) {
      const again = await queryAll(access.query, {
        ...range,
        ProjectionExpression: '#sk, #stamp',
        ExpressionAttributeNames: { '#pk': 'PK', '#sk': 'SK', '#stamp': attr.stamp },
      });
      const signature = (found: readonly Item[]) =>
        found.map((item) => `${item.SK} ${item[attr.stamp] ?? ''}`).join('\n');
      if (signature(again.items) !== signature(items)) {
        if (attempt < SNAPSHOT_ATTEMPTS) continue;
        throw new StoreUnavailable('collection-busy');
      }
    }
    const snapshot = snapshotOf(generation, list, items, options);
    if (snapshot) {
      if (!options.garbage) noteTicketsRead(snapshot.tickets.length);
      return snapshot;
    }
    if (attempt >= SNAPSHOT_ATTEMPTS) throw new StoreUnavailable('collection-busy');
  }
};

/** The list's oldest `most` tickets. */
export const readTickets = async (access: TableAccess, generation: string, list: CountedList, most: number) =>
  (await access.query(rangeOf(generation, list, TICKET_PREFIX, `${TICKET_PREFIX}~`, most))).items.map(decodeTicket);

/**
 * What a fold needs of a list: its counts with the oldest `most` tickets, and its end mark,
 * directory and retired blocks, in two Queries that cost the same however many tickets wait (not
 * the whole backlog to fold 80 of it). A fold landing between the two shows as their stamps
 * disagreeing (the fold's own write is conditioned on the counts' stamp besides). With
 * `firstFoldAt`, a list no fold or bulk write reached (no counts item) holding fewer tickets is
 * left after one Query (undefined): under a stream of new tags, most of the folder's checks.
 */
export const readForFold = async (
  access: TableAccess,
  generation: string,
  list: CountedList,
  most: number,
  firstFoldAt = 0,
): Promise<ListSnapshot | undefined> => {
  const readTail = () => access.query(rangeOf(generation, list, END_MARK_SK, RETIRED_SK, undefined, FOLDER_ATTRIBUTES));
  for (let attempt = 1; ; attempt++) {
    const early = firstFoldAt > 0 ? undefined : readTail();
    early?.catch(() => undefined); // Met when awaited below: a failed head must not leave it unhandled.
    const head = await access.query(rangeOf(generation, list, COUNTS_SK, `${TICKET_PREFIX}~`, most + 1));
    const tickets = head.items.filter((item) => String(item.SK).startsWith(TICKET_PREFIX)).length;
    if (tickets < firstFoldAt && !head.items.some((item) => item.SK === COUNTS_SK)) return undefined;
    const tail = await (early ?? readTail());
    const snapshot = snapshotOf(generation, list, [...head.items, ...tail.items], { retired: true });
    if (snapshot) return snapshot;
    if (attempt >= SNAPSHOT_ATTEMPTS) throw new StoreUnavailable('collection-busy');
  }
};

/** A magazine list's counts with its tickets added: exact as of the snapshot. */
export const countsOf = (snapshot: ListSnapshot): ListCounts => withTickets(snapshot.folded, snapshot.tickets);

/** Which members a page takes: ranks `[from, to)` counted from the first, or `take` after (or before) a key. */
export type Window =
  | { readonly from: number; readonly to: number }
  | { readonly after: string; readonly take: number; readonly forward: boolean };

/** Blocks' entries by block id, as read. */
export type BlocksRead = ReadonlyMap<string, readonly Entry[]>;

/**
 * The entries of `refs` (blocks the snapshot's directory names), in one BatchGetItem with a head
 * replica, which proves the generation still the snapshot's; those in `known` are not read again.
 */
export const readBlocks = async (
  access: TableAccess,
  snapshot: ListSnapshot,
  refs: readonly BlockRef[],
  known: BlocksRead = new Map(),
  /** Other keys to read in the same call (a `/tags` reader's tag states), by the generation. */
  others: (generation: string) => readonly Key[] = () => [],
): Promise<{ readonly blocks: BlocksRead; readonly others?: ItemsByKey }> => {
  const missing = refs.filter((ref) => !known.has(ref.id));
  const blocks = new Map(known);
  if (missing.length === 0 && others(snapshot.generation).length === 0) return { blocks };
  const { generation, items } = await readInGeneration(
    access,
    (g) => [...missing.map((ref) => blockKey(g, snapshot.list, ref.id)), ...others(g)],
    [attr.entries, attr.states],
  );
  if (generation !== snapshot.generation) throw new GenerationMoved();
  for (const ref of missing) {
    const item = items.get(blockKey(generation, snapshot.list, ref.id));
    // A directory names only blocks that exist (replaced ones are kept while a reader may hold it).
    if (!item) throw new StoreUnavailable('collection-busy');
    blocks.set(ref.id, decodeBlock(item));
  }
  return { blocks, others: items };
};

/** The collection was switched by a bulk write while the list was read: read it again under the new generation. */
export class GenerationMoved extends Error {
  override readonly name = 'GenerationMoved';
}

/** The block indexes whose members `window` needs, given each block's size, and the rank of the first. */
export const blocksFor = (blocks: readonly BlockRef[], sizes: readonly number[], window: Window) => {
  if ('from' in window) return blocksForRanks(blocks, sizes, window.from, window.to);
  const start = blockIndexOf(blocks, window.after);
  const indexes = [start];
  let gathered = 0;
  for (let index = start + (window.forward ? 1 : -1); index >= 0 && index < blocks.length; ) {
    if (gathered >= window.take) break;
    // A block with no member (a block of tags no longer in use) holds none of the page: not read.
    if ((sizes[index] ?? 0) > 0) indexes.push(index);
    gathered += sizes[index] ?? 0;
    index += window.forward ? 1 : -1;
  }
  return { indexes: indexes.filter((index) => index < blocks.length).sort((a, b) => a - b), startRank: 0 };
};

/**
 * The members of a page, in ascending key order, the rank of the first of them in the whole list
 * (`firstRank`), and whether a head replica came with its blocks (now or in `known`'s read).
 * `sizes` are the blocks' sizes with the snapshot's pending changes in.
 */
export const pageMembers = async (
  access: TableAccess,
  snapshot: ListSnapshot,
  window: Window,
  sizes: readonly number[],
  known: BlocksRead = new Map(),
): Promise<{ readonly members: Entry[]; readonly firstRank: number; readonly headChecked: boolean }> => {
  const { blocks } = snapshot.directory;
  const { pending } = snapshot;
  const { indexes, startRank } = blocksFor(blocks, sizes, window);
  const refs = indexes.flatMap((index) => blocks[index] ?? []);
  const { blocks: read } = await readBlocks(access, snapshot, refs, known);
  const inRead = new Set(indexes);
  const inReadBlocks = (d: { readonly key: string }) => blocks.length === 0 || inRead.has(blockIndexOf(blocks, d.key));
  const changes = pending.filter(inReadBlocks);
  const folded = refs.flatMap((ref) => read.get(ref.id) ?? []);
  const members = withDeltas(
    snapshot.overlay ? withOverlay(folded, snapshot.overlay.filter(inReadBlocks)) : folded,
    changes,
  ).filter((entry) => entry.n > 0);
  const headChecked = refs.some((ref) => !known.has(ref.id)) || known.size > 0;
  if ('from' in window)
    return {
      members: members.slice(Math.max(0, window.from - startRank), Math.max(0, window.to - startRank)),
      firstRank: window.from,
      headChecked,
    };
  const after = window.after;
  const page = window.forward
    ? members.filter((entry) => entry.key > after).slice(0, window.take)
    : members.filter((entry) => entry.key < after).slice(-window.take);
  // Ranked from the list as it is now, not from the offset the cursor was made at: members
  // before the cursor may have gone or come since, and the page's offset and `next` follow them.
  const below = membersBelow(blocks, sizes, members, after);
  return {
    members: page,
    firstRank: window.forward ? below + (members.some((entry) => entry.key === after) ? 1 : 0) : below - page.length,
    headChecked,
  };
};

/** Where a cursor's page of `taken` stands now, as its order counts, from its lowest member's rank (past a filter's `before`). */
export const cursorPageOffset = (sort: 'asc' | 'desc', firstRank: number, taken: number, total: number, before = 0) =>
  sort === 'asc' ? firstRank - before : before + total - firstRank - taken;

/** How many members of the whole list sort before `key`: the blocks before its block by their sizes, and its block's members as read. */
const membersBelow = (
  blocks: readonly BlockRef[],
  sizes: readonly number[],
  members: readonly Entry[],
  key: string,
) => {
  const start = blockIndexOf(blocks, key);
  const low = start === 0 ? undefined : blocks[start]?.first;
  const high = blocks[start + 1]?.first;
  let below = 0;
  for (let index = 0; index < start; index++) below += sizes[index] ?? 0;
  for (const entry of members)
    if (entry.key < key && (low === undefined || entry.key >= low) && (high === undefined || entry.key < high)) below++;
  return below;
};

/** A magazine list's page: its members' keys in ascending order, and the rank of the first. */
export const magazinePage = (access: TableAccess, snapshot: ListSnapshot, window: Window) =>
  pageMembers(access, snapshot, window, sizesWith(snapshot.directory.blocks, snapshot.pending));
