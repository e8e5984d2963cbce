import { RETIRED_BLOCK_MS } from '../timing';
import { type Delta, type NameCounts, netted } from './counts';

/**
 * A counted list's members in order, with no I/O: a directory of blocks (each block's id, first
 * key and size) and the blocks (sorted entries). A page at any offset is found from the directory
 * alone and read from one or two blocks, whatever the list's length; a fold rewrites only the
 * blocks its changes fall in, into blocks with new ids, so a reader holding an older directory
 * still finds the blocks it names (they are deleted a while after they are replaced).
 */

/** A member: its key, its count (1 for a magazine, the magazines carrying it for a tag), its spellings. */
export interface Entry {
  readonly key: string;
  readonly n: number;
  readonly names?: NameCounts;
}

export interface BlockRef {
  readonly id: string;
  readonly first: string;
  /** The sum of its entries' counts (a magazine list's members: linear in changes). */
  readonly size: number;
  /** Its entries with a count above zero (the tags in use). */
  readonly visible: number;
}

export interface Directory {
  readonly blocks: readonly BlockRef[];
  /** Blocks replaced by a fold, and when (Unix ms): deleted once no reader can still hold them. */
  readonly retired: readonly (readonly [string, number])[];
  /**
   * `TAGS`: the last tag merged into its blocks, at or after every tag they hold, so a tag after it
   * that the overlay does not hold is at zero (no block or state item to look it up in); unknown
   * when absent.
   */
  readonly high?: string;
}

export const emptyDirectory: Directory = { blocks: [], retired: [] };

/** Entries a block holds at most; a fuller one is split in two. */
export const BLOCK_ENTRIES = 400;

/**
 * Bytes a block holds at most as stored, whatever its entries: a page reads one or two blocks
 * whole, and ids and spellings of 64 characters would make 400 entries 30 to 70 KB.
 */
export const BLOCK_BYTES = 16 * 1024;

/** The block a key falls in: the last whose first key is not after it (the first block for keys before all). */
export const blockIndexOf = (blocks: readonly BlockRef[], key: string): number => {
  let low = 0;
  let high = blocks.length - 1;
  let found = 0;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if ((blocks[middle]?.first ?? '') <= key) {
      found = middle;
      low = middle + 1;
    } else high = middle - 1;
  }
  return found;
};

const byKey = (a: { key: string }, b: { key: string }) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/**
 * Entries with changes added (counts and spellings); an entry that holds nothing any more is
 * dropped, or with `keepEmpty` kept at zero (`TAGS` remembers every tag a generation had, so that
 * its lists can be found and cleared when it is replaced).
 */
export const withDeltas = (entries: readonly Entry[], deltas: readonly Delta[], keepEmpty = false): Entry[] => {
  if (deltas.length === 0) return [...entries];
  const merged = new Map(entries.map((entry) => [entry.key, entry]));
  for (const delta of netted(deltas)) {
    const entry = merged.get(delta.key);
    const [sum] = netted([{ key: delta.key, n: entry?.n ?? 0, ...(entry?.names && { names: entry.names }) }, delta]);
    if (sum) merged.set(delta.key, sum);
    else if (keepEmpty) merged.set(delta.key, { key: delta.key, n: 0 });
    else merged.delete(delta.key);
  }
  // Changes that net to nothing leave no delta above; a key they name that no entry held is still one to keep.
  if (keepEmpty)
    for (const delta of deltas) if (!merged.has(delta.key)) merged.set(delta.key, { key: delta.key, n: 0 });
  return [...merged.values()].sort(byKey);
};

/**
 * The shortest prefix of `first` that sorts after `last`: a block's bound in the directory. Any
 * key of the block before is below it and any of this block at or above it, so it finds keys as
 * well as the block's first key would, in a fraction of the directory's bytes.
 */
export const separator = (last: string, first: string): string => first.slice(0, sharedPrefixLength(last, first) + 1);

/** How many leading characters `a` and `b` have in common, up to `most`. */
export const sharedPrefixLength = (a: string, b: string, most = Number.POSITIVE_INFINITY): number => {
  let shared = 0;
  while (shared < most && shared < a.length && shared < b.length && a[shared] === b[shared]) shared++;
  return shared;
};

const FRONT_DIGITS = 36;

/**
 * A key front-coded after the key before it: one base-36 digit, the length of the prefix the two
 * share (35 at most), then the rest. Blocks' members and directories' bounds are stored so.
 */
export const frontCoded = (before: string, key: string): string => {
  const shared = sharedPrefixLength(before, key, FRONT_DIGITS - 1);
  return shared.toString(FRONT_DIGITS) + key.slice(shared);
};

/** The key `coded` stands for after `before`; undefined if its digit is none, or claims more than `before` has. */
export const frontDecoded = (before: string, coded: string): string | undefined => {
  const digit = coded.slice(0, 1);
  const shared = Number.parseInt(digit, FRONT_DIGITS);
  if (!/^[0-9a-z]$/.test(digit) || shared > before.length) return undefined;
  return before.slice(0, shared) + coded.slice(1);
};

const refOf = (id: string, entries: readonly Entry[], first: string): BlockRef => ({
  id,
  first,
  size: entries.reduce((sum, entry) => sum + entry.n, 0),
  visible: entries.reduce((sum, entry) => sum + (entry.n > 0 ? 1 : 0), 0),
});

/**
 * Entries in blocks of at most `most` entries and `mostBytes` bytes as stored: the first block
 * about half of either, and so on while the rest is over, so that a split block has room to grow
 * before it splits again (a block still over, of entries longer than the rest, is split again).
 * A bulk write splits a whole list at once, so the rest's bytes are estimated from the entries'
 * lengths rather than encoded again for every block (which made 100,000 members 7 s of CPU), and
 * each block is encoded once, to check it.
 */
export const blockSplit = (entries: readonly Entry[], most: number, mostBytes: number): Entry[][] => {
  if (entries.length === 0) return []; // A block left with no entry is dropped.
  const total = storedBytes(entries);
  if (entries.length === 1 || (entries.length <= most && total <= mostBytes)) return [[...entries]];
  const weights = [0];
  for (const entry of entries) weights.push((weights.at(-1) ?? 0) + weightOf(entry));
  const whole = weights.at(-1) || 1;
  const split: Entry[][] = [];
  for (let start = 0; start < entries.length; ) {
    const left = entries.length - start;
    const bytes = (total * (whole - (weights[start] ?? 0))) / whole;
    const pieces = Math.max(
      left > most ? Math.ceil(left / Math.max(1, Math.floor(most / 2))) : 1,
      bytes > mostBytes && left > 1 ? Math.max(2, Math.ceil(bytes / Math.max(1, Math.floor(mostBytes / 2)))) : 1,
    );
    const take = Math.ceil(left / pieces);
    const chunk = entries.slice(start, start + take);
    if (take > 1 && storedBytes(chunk) > mostBytes) split.push(...blockSplit(chunk, most, mostBytes));
    else split.push(chunk);
    start += take;
  }
  return split;
};

/** Entries' bytes as stored (UTF-8): a block's or the overlay's; none for none. */
export const storedBytes = (entries: readonly Entry[]): number =>
  entries.length === 0 ? 0 : Buffer.byteLength(encodeEntries(entries), 'utf8');

/** About an entry's share of its block's bytes: its key, its spellings and their counts. */
const weightOf = (entry: Entry) =>
  entry.key.length + 4 + (entry.names?.reduce((sum, [name]) => sum + name.length + 6, 0) ?? 0);

/** A fold's changes to the blocks: the new directory, the blocks to write, the blocks it may delete now. */
export interface BlockChanges {
  readonly directory: Directory;
  readonly written: readonly { readonly id: string; readonly entries: readonly Entry[] }[];
  readonly deleted: readonly string[];
}

/** Which blocks `deltas` fall in: the blocks a fold must read. */
export const blocksTouched = (directory: Directory, deltas: readonly Pick<Delta, 'key'>[]): string[] => {
  const ids = new Set<string>();
  for (const delta of deltas) {
    const block = directory.blocks[blockIndexOf(directory.blocks, delta.key)];
    if (block) ids.add(block.id);
  }
  return [...ids];
};

/**
 * Adds `deltas` to the blocks they fall in (`read` holds those blocks' entries), splitting a block
 * that grows past BLOCK_ENTRIES and dropping one left empty. Changed blocks get new ids from
 * `newId`; the ones they replace are retired at `now`, and those retired long enough are deleted.
 */
export const applyToBlocks = (
  directory: Directory,
  read: ReadonlyMap<string, readonly Entry[]>,
  deltas: readonly Delta[],
  options: {
    readonly now: number;
    readonly newId: () => string;
    /** Keep members whose count fell to zero (see `withDeltas`). */
    readonly keepEmpty?: boolean;
    /** Entries a block holds at most (BLOCK_ENTRIES unless a test makes blocks small to see them split). */
    readonly blockEntries?: number;
    /**
     * Retired blocks this fold may delete at most (its transaction holds 100 items): the rest stay
     * retired, for later folds to delete.
     */
    readonly maxDeleted?: number;
  },
): BlockChanges => {
  const most = options.blockEntries ?? BLOCK_ENTRIES;
  const byBlock = new Map<number, Delta[]>();
  for (const delta of deltas) {
    const index = directory.blocks.length === 0 ? -1 : blockIndexOf(directory.blocks, delta.key);
    const group = byBlock.get(index) ?? [];
    byBlock.set(index, group);
    group.push(delta);
  }
  const blocks: BlockRef[] = [];
  const written: { id: string; entries: Entry[] }[] = [];
  const retired: (readonly [string, number])[] = [];
  // A rewritten block keeps its bound (its keys are all at or above it: that is how they were
  // routed to it); the blocks it splits into after the first get bounds between their neighbours.
  const rewrite = (entries: readonly Entry[], first: string) => {
    let before: Entry | undefined;
    for (const chunk of blockSplit(entries, most, BLOCK_BYTES)) {
      const id = options.newId();
      written.push({ id, entries: chunk });
      const bound = before === undefined ? first : separator(before.key, chunk[0]?.key ?? '');
      blocks.push(refOf(id, chunk, blocks.length === 0 ? '' : bound));
      before = chunk.at(-1);
    }
  };
  if (directory.blocks.length === 0) rewrite(withDeltas([], byBlock.get(-1) ?? [], options.keepEmpty), '');
  directory.blocks.forEach((block, index) => {
    const group = byBlock.get(index);
    if (!group) {
      blocks.push(block);
      return;
    }
    const entries = read.get(block.id);
    if (!entries) throw new Error(`Block ${block.id} was not read before its fold.`);
    retired.push([block.id, options.now]);
    rewrite(withDeltas(entries, group, options.keepEmpty), block.first);
  });
  const expired = new Set(
    directory.retired
      .filter(([, at]) => options.now - at >= RETIRED_BLOCK_MS)
      .slice(0, Math.max(0, options.maxDeleted ?? Number.POSITIVE_INFINITY))
      .map(([id]) => id),
  );
  return {
    directory: { blocks, retired: [...directory.retired.filter(([id]) => !expired.has(id)), ...retired] },
    written,
    deleted: [...expired],
  };
};

/** Blocks that hold the entries of ranks [from, to) (0-based, by `size`), with the rank each block starts at. */
export const blocksForRanks = (
  blocks: readonly BlockRef[],
  sizes: readonly number[],
  from: number,
  to: number,
): { readonly indexes: number[]; readonly startRank: number } => {
  const indexes: number[] = [];
  let rank = 0;
  let startRank = 0;
  for (let index = 0; index < blocks.length; index++) {
    const size = sizes[index] ?? 0;
    // A block with no member (a block of tags no longer in use) holds none of the page: not read.
    if (size > 0 && rank + size > from && rank < to) {
      if (indexes.length === 0) startRank = rank;
      indexes.push(index);
    }
    rank += size;
  }
  return { indexes, startRank };
};

/** Each block's size with pending deltas added, by the block each delta falls in. */
export const sizesWith = (blocks: readonly BlockRef[], deltas: readonly Delta[]): number[] => {
  const sizes = blocks.map((block) => block.size);
  for (const delta of deltas) {
    const index = blockIndexOf(blocks, delta.key);
    if (index < sizes.length) sizes[index] = (sizes[index] ?? 0) + delta.n;
  }
  return sizes;
};

type Encoded = string | [string, number, NameCounts?];

/** Characters no key holds (keys are identifiers, digits and `#`): the compact form's separators. */
const ENTRY_SEPARATOR = ' ';
const COUNT_SEPARATOR = ',';

/**
 * Members or count changes as stored. Keys without spellings are front-coded, one per member:
 * the length of the prefix shared with the key before (one base-36 digit), the rest of the key,
 * and `,n` unless the count is 1, separated by spaces. A block of 400 magazine keys is a third
 * smaller so, and a page reads a block whole. Anything with spellings (tags' names are the users'
 * text) is a JSON array, in which a plain key is an entry of count 1, as every block once was.
 */
export const encodeEntries = (
  entries: readonly { readonly key: string; readonly n: number; readonly names?: NameCounts }[],
): string => {
  const compact = entries.length > 0 && entries.every((entry) => !entry.names && !/[ ,[]/.test(entry.key));
  if (!compact)
    return JSON.stringify(
      entries.map((entry): Encoded => {
        if (entry.n === 1 && !entry.names) return entry.key;
        return entry.names ? [entry.key, entry.n, entry.names] : [entry.key, entry.n];
      }),
    );
  let previous = '';
  return entries
    .map((entry) => {
      const coded = frontCoded(previous, entry.key);
      previous = entry.key;
      const count = entry.n === 1 ? '' : `${COUNT_SEPARATOR}${entry.n}`;
      return `${coded}${count}`;
    })
    .join(ENTRY_SEPARATOR);
};

const isNameCounts = (value: unknown): value is NameCounts =>
  Array.isArray(value) &&
  value.every((pair) => Array.isArray(pair) && typeof pair[0] === 'string' && typeof pair[1] === 'number');

export const decodeEntries = (text: string): Entry[] => {
  if (!text.startsWith('[')) {
    let previous = '';
    return text.split(ENTRY_SEPARATOR).map((coded): Entry => {
      const [keyCoded = '', count] = coded.split(COUNT_SEPARATOR);
      const key = frontDecoded(previous, keyCoded);
      const n = count === undefined ? 1 : Number(count);
      if (key === undefined || !Number.isFinite(n)) throw new Error('A block entry is malformed.');
      previous = key;
      return { key, n };
    });
  }
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed)) throw new Error('Block entries are not a list.');
  return parsed.map((value: unknown): Entry => {
    if (typeof value === 'string') return { key: value, n: 1 };
    if (!Array.isArray(value) || typeof value[0] !== 'string' || typeof value[1] !== 'number')
      throw new Error('A block entry is malformed.');
    const [key, n, names] = value as [string, number, unknown];
    return { key, n, ...(isNameCounts(names) && names.length > 0 && { names }) };
  });
};
