import { StoreUnavailable } from '../domain/errors';
import type { Magazine } from '../domain/magazine';
import { countChanges, type Delta, type ListCounts, netted, type Ticket, withTickets } from './counts';
import { readInGeneration } from './generation';
import {
  decodeBlock,
  decodeCounts,
  decodeDirectory,
  decodeStamp,
  decodeTicket,
  encodeDeltas,
  tagCountAt,
} from './items';
import {
  attr,
  blockKey,
  COUNTS_SK,
  type CountedList,
  DIRECTORY_SK,
  END_MARK_SK,
  listPartition,
  TICKET_PREFIX,
  tagCountKey,
  ticketKey,
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
import type { TableAccess, TransactItem } from './table-access';

/**
 * Reading a counted list: one Query of its partition gives its folded counts, the tickets not
 * folded yet and (to find a page) its directory, as one snapshot; the page's blocks then come in
 * one BatchGetItem. A read therefore costs the same few calls however long the list, however deep
 * the page and however many writes came before it; only the tickets not yet folded add bytes, and
 * the folder keeps them few.
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
}

/** A fold landing during the Query makes its start and end disagree; the Query is made again, at most this often. */
const SNAPSHOT_ATTEMPTS = 3;

/**
 * The list's counts, tickets and (with `directory`) its directory, as of one fold: the Query reads
 * from the counts item to the end mark (or the directory), which every fold writes together, so
 * a fold that lands halfway through shows as two stamps, and the Query is made again.
 */
export const readList = async (
  access: TableAccess,
  generation: string,
  list: CountedList,
  options: { readonly directory?: boolean } = {},
): Promise<ListSnapshot> => {
  for (let attempt = 1; ; attempt++) {
    const items = await access.queryAll({
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
      ExpressionAttributeNames: { '#pk': 'PK', '#sk': 'SK' },
      ExpressionAttributeValues: {
        ':pk': listPartition(generation, list),
        ':from': COUNTS_SK,
        ':to': options.directory ? DIRECTORY_SK : END_MARK_SK,
      },
    });
    const bySk = (sk: string) => items.find((item) => item.SK === sk);
    const counts = bySk(COUNTS_SK);
    const { counts: folded, stamp } = decodeCounts(counts);
    const stamps = [stamp, decodeStamp(bySk(END_MARK_SK))];
    const directoryItem = options.directory ? bySk(DIRECTORY_SK) : undefined;
    if (options.directory) stamps.push(decodeStamp(directoryItem));
    if (stamps.some((other) => other !== stamp)) {
      if (attempt < SNAPSHOT_ATTEMPTS) continue;
      throw new StoreUnavailable('collection-busy');
    }
    const tickets = items.filter((item) => String(item.SK).startsWith(TICKET_PREFIX)).map(decodeTicket);
    return {
      generation,
      list,
      stamp,
      folded,
      tickets,
      directory: directoryItem ? decodeDirectory(directoryItem) : emptyDirectory,
      pending: netted(tickets.flatMap((ticket) => ticket.deltas)),
    };
  }
};

/** A magazine list's counts with its tickets added: exact as of the snapshot. */
export const countsOf = (snapshot: ListSnapshot): ListCounts => withTickets(snapshot.folded, snapshot.tickets);

/** Which members a page takes: ranks `[from, to)` counted from the first, or `take` after (or before) a key. */
export type Window =
  | { readonly from: number; readonly to: number }
  | { readonly after: string; readonly take: number; readonly forward: boolean };

const readBlocks = async (
  access: TableAccess,
  snapshot: ListSnapshot,
  refs: readonly BlockRef[],
  extraKeys: readonly { PK: string; SK: string }[] = [],
) => {
  const { generation, items } = await readInGeneration(access, (g) => [
    ...refs.map((ref) => blockKey(g, snapshot.list, ref.id)),
    ...extraKeys,
  ]);
  if (generation !== snapshot.generation) throw new GenerationMoved();
  const entries = (ref: BlockRef): Entry[] => {
    const item = items.get(blockKey(generation, snapshot.list, ref.id));
    // A directory names only blocks that exist (replaced ones are kept while a reader may hold it).
    if (!item) throw new StoreUnavailable('collection-busy');
    return decodeBlock(item);
  };
  return { entries, items };
};

/** The collection was switched by a bulk write while the list was read: read it again under the new generation. */
export class GenerationMoved extends Error {
  override readonly name = 'GenerationMoved';
}

/** The block indexes whose members `window` needs, given each block's size, and the rank of the first. */
const blocksFor = (blocks: readonly BlockRef[], sizes: readonly number[], window: Window) => {
  if ('from' in window) return blocksForRanks(blocks, sizes, window.from, window.to);
  const start = blockIndexOf(blocks, window.after);
  const indexes = [start];
  let gathered = 0;
  for (let index = start + (window.forward ? 1 : -1); index >= 0 && index < blocks.length; ) {
    if (gathered >= window.take) break;
    indexes.push(index);
    gathered += sizes[index] ?? 0;
    index += window.forward ? 1 : -1;
  }
  return { indexes: indexes.filter((index) => index < blocks.length).sort((a, b) => a - b), startRank: 0 };
};

/**
 * The members of a page, in ascending key order, and the block read's items (for the caller's
 * own keys, read in the same call). `sizes` are the blocks' sizes with the pending changes in;
 * `pending` the changes themselves.
 */
export const pageMembers = async (
  access: TableAccess,
  snapshot: ListSnapshot,
  window: Window,
  sizes: readonly number[],
  pending: readonly Delta[],
): Promise<{ readonly members: Entry[]; readonly headChecked: boolean }> => {
  const { blocks } = snapshot.directory;
  const { indexes, startRank } = blocksFor(blocks, sizes, window);
  const refs = indexes.flatMap((index) => blocks[index] ?? []);
  const { entries } = refs.length > 0 ? await readBlocks(access, snapshot, refs) : { entries: () => [] };
  const inRead = new Set(indexes);
  const changes = blocks.length === 0 ? pending : pending.filter((d) => inRead.has(blockIndexOf(blocks, d.key)));
  const members = withDeltas(
    refs.flatMap((ref) => entries(ref)),
    changes,
  ).filter((entry) => entry.n > 0);
  const headChecked = refs.length > 0;
  if ('from' in window)
    return {
      members: members.slice(Math.max(0, window.from - startRank), Math.max(0, window.to - startRank)),
      headChecked,
    };
  const after = window.after;
  return {
    members: window.forward
      ? members.filter((entry) => entry.key > after).slice(0, window.take)
      : members.filter((entry) => entry.key < after).slice(-window.take),
    headChecked,
  };
};

/** A magazine list's page: its members' keys in ascending order. */
export const magazinePage = async (access: TableAccess, snapshot: ListSnapshot, window: Window): Promise<Entry[]> =>
  (
    await pageMembers(
      access,
      snapshot,
      window,
      sizesWith(snapshot.directory.blocks, snapshot.pending),
      snapshot.pending,
    )
  ).members;

/**
 * The tags in use as of the snapshot of `TAGS`: how many, and each block's number of them. A tag's
 * pending change may bring it in or take it out; whether it does depends on its count at the fold,
 * kept for each tag in a tag count item (with the count before, for a fold that landed since).
 */
export const tagsInUse = async (
  access: TableAccess,
  snapshot: ListSnapshot,
): Promise<{ readonly count: number; readonly sizes: number[] }> => {
  const { blocks } = snapshot.directory;
  const sizes = blocks.map((block) => block.visible);
  if (snapshot.pending.length === 0) return { count: snapshot.folded.total, sizes };
  const read = await access.getMany(snapshot.pending.map((delta) => tagCountKey(snapshot.generation, delta.key)));
  let count = snapshot.folded.total;
  for (const delta of snapshot.pending) {
    const before = tagCountAt(read.get(tagCountKey(snapshot.generation, delta.key)), snapshot.stamp);
    if (before === 'changed') throw new StoreUnavailable('collection-busy');
    const change = (before + delta.n > 0 ? 1 : 0) - (before > 0 ? 1 : 0);
    if (change === 0) continue;
    count += change;
    const index = blocks.length === 0 ? -1 : blockIndexOf(blocks, delta.key);
    if (index >= 0) sizes[index] = (sizes[index] ?? 0) + change;
  }
  return { count, sizes };
};

/**
 * The tickets of one write, for its transaction: one per list it changes (see `countChanges`), each
 * in that list's own partition, so that no two writes share an item and each list's readers read
 * only their own list's tickets.
 */
export const ticketPuts = (
  tableName: string,
  generation: string,
  before: Magazine | undefined,
  after: Magazine | undefined,
  token: string,
  now = Date.now(),
): TransactItem[] =>
  [...countChanges(before, after)].map(([list, deltas]) => ({
    Put: {
      TableName: tableName,
      Item: {
        ...ticketKey(generation, list, now, token),
        [attr.at]: Math.floor(now / 1000),
        [attr.changes]: encodeDeltas(deltas),
      },
    },
  }));
