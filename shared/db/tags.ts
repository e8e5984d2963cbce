import { NotFound, StoreUnavailable } from '../domain/errors';
import { isIdentifier } from '../domain/fields';
import type { Page, PageQuery } from '../domain/paging';
import type { TagSummary } from '../domain/tag';
import { listVersion, shownName, versionWith, withTickets } from './counts';
import { provenNew } from './fresh-tags';
import { lastGeneration, readInGeneration } from './generation';
import { decodeTagStates } from './items';
import { tagList, tagStateKey } from './keys';
import {
  type BlocksRead,
  blocksFor,
  cursorPageOffset,
  GenerationMoved,
  type ListSnapshot,
  pageMembers,
  readBlocks,
  readList,
  type Window,
} from './lists';
import { blockIndexOf, type Entry } from './ranked';
import type { TableAccess } from './table-access';
import { type Known, stateAt, useChange } from './tag-states';

/**
 * Tags in use: the `TAGS` list holds each tag id with how many magazines carry it and the
 * spellings of its name, in id order; a tag's own list (`TAG#<id>`) holds its counts. A tag is in
 * use from its first magazine's write to its last one's, at once: readers add the tickets in.
 */

/** One tag: its list's counts with the tickets in, and the head in a second call (two calls). */
export const getTag = async (access: TableAccess, id: string): Promise<TagSummary> => {
  if (!isIdentifier(id)) throw new NotFound('tag', id);
  for (let attempt = 0; ; attempt++) {
    const generation = await lastGeneration(access);
    const [snapshot, head] = await Promise.all([
      readList(access, generation, tagList(id)),
      readInGeneration(access, () => []),
    ]);
    if (head.generation !== generation) {
      if (attempt < 2) continue;
      throw new StoreUnavailable('collection-busy');
    }
    const counts = withTickets(snapshot.folded, snapshot.tickets);
    const name = shownName(counts.names);
    if (counts.total <= 0 || name === undefined) throw new NotFound('tag', id);
    return {
      id,
      name,
      magazineCount: counts.total,
      lastModified: counts.lastModified,
      revision: `${generation}.${counts.writes}`,
    };
  }
};

/**
 * One page of the tags in use, by id: the `TAGS` snapshot, the counts of the tags its tickets
 * change (only when there are tickets), then the page's blocks with the head: two calls, more
 * while tickets wait (`LOOKUPS`).
 */
export const listTags = async (access: TableAccess, page: PageQuery): Promise<Page<TagSummary>> => {
  const offset = page.start.offset;
  for (let attempt = 0; ; attempt++) {
    const generation = await lastGeneration(access);
    try {
      const snapshot = await readList(access, generation, 'TAGS', { directory: true });
      const windowOf = (count: number): Window | undefined => {
        if ('after' in page.start) return { after: page.start.after, take: page.limit, forward: page.sort === 'asc' };
        if (offset >= count) return undefined;
        return page.sort === 'asc'
          ? { from: offset, to: Math.min(count, offset + page.limit) }
          : { from: Math.max(0, count - offset - page.limit), to: count - offset };
      };
      const { count, sizes, read } = await tagsInUse(access, snapshot, windowOf);
      const window = windowOf(count);
      const { members, firstRank, headChecked } = window
        ? await pageMembers(access, snapshot, window, sizes, read)
        : { members: [], firstRank: 0, headChecked: false };
      const at = 'after' in page.start ? cursorPageOffset(page.sort, firstRank, members.length, count) : offset;
      // Its blocks came with a head when the page has members; an empty page reads one now.
      const head = headChecked ? undefined : await readInGeneration(access, () => []);
      if (head && head.generation !== generation) throw new GenerationMoved();
      if (page.sort === 'desc') members.reverse();
      const counts = versionWith(snapshot.folded, snapshot.tickets);
      const tags = members.map((member) => ({
        id: member.key,
        name: shownName(member.names ?? []) ?? member.key,
        magazineCount: member.n,
      }));
      const last = tags.at(-1);
      return {
        items: tags,
        count,
        offset: Math.max(0, at),
        ...(last !== undefined && at + tags.length < count && { next: last.id }),
        ...listVersion(generation, counts, head?.switchedAt ?? 0),
      };
    } catch (error) {
      if (!(error instanceof GenerationMoved)) throw error;
      if (attempt >= 2) throw new StoreUnavailable('collection-busy');
    }
  }
};

/**
 * Keys a `/tags` reader reads in four BatchGetItem calls of 100 (state items, the page's blocks,
 * the head replica), a page's fifth call with its Query. Past them, the one block that holds the
 * most of the tags to look up is read whole instead of their state items if it holds
 * WHOLE_BLOCK_KEYS of them, and the rest are looked up, a hundred more to a call: a state lookup
 * of a new tag reads nothing, a block is 10 to 20 KB. Under 100,000 new tags in `npm run
 * bench:scale`, a block read whole past three calls made pages of 63-69 KB; and reading every
 * block that held two made the read grow with the backlog in bytes: with 1,900 tickets of
 * scattered new tags waiting, 5.4 MB a page.
 */
const LOOKUPS = 399;
const WHOLE_BLOCK_KEYS = 100;

/** The tags in use, and each block's number of them, with the pending tickets in: each tag as `before` says it was at the snapshot. */
const withPending = (snapshot: ListSnapshot, before: (key: string) => Known) => {
  const { blocks } = snapshot.directory;
  const sizes = blocks.map((block) => block.visible);
  let count = snapshot.folded.total;
  for (const delta of snapshot.pending) {
    const change = useChange(before(delta.key), delta);
    const index = blockIndexOf(blocks, delta.key);
    count += change;
    if (change !== 0 && index < sizes.length) sizes[index] = (sizes[index] ?? 0) + change;
  }
  return { count, sizes };
};

const NEVER_MERGED: Known = { n: 0 };

/**
 * The tags a reader of `snapshot` looks up: those its tickets name that the overlay does not hold.
 * A tag past the last tag ever merged (with no block yet, any tag) is at zero, with no state item
 * to look up: under a stream of new tags whose ids sort last, every one.
 */
export const toLookUp = (
  snapshot: Pick<ListSnapshot, 'pending' | 'directory'> & { readonly overlay: readonly Entry[] },
) => {
  const inOverlay = new Set(snapshot.overlay.map((entry) => entry.key));
  const { blocks, high } = snapshot.directory;
  const mayBeInBlock = (key: string) => blocks.length > 0 && (high === undefined || key <= high);
  return snapshot.pending
    .filter((delta) => !inOverlay.has(delta.key) && mayBeInBlock(delta.key))
    .map((delta) => delta.key);
};

/**
 * The tags in use as of the snapshot of `TAGS`: how many, each block's number of them, and the
 * blocks read meanwhile. A pending ticket brings its tag into use or out of it depending on the
 * tag's count at the snapshot's fold: in the overlay, or else in the tag's state item, read (a
 * hundred to a call) with the blocks the page most likely needs. A `TAGS` folded before overlays
 * holds it only in the block the tag falls in, which is read instead.
 */
const tagsInUse = async (
  access: TableAccess,
  snapshot: ListSnapshot,
  windowOf: (count: number) => Window | undefined,
): Promise<{ readonly count: number; readonly sizes: number[]; readonly read: BlocksRead }> => {
  const { blocks } = snapshot.directory;
  if (snapshot.pending.length === 0) return { ...withPending(snapshot, () => NEVER_MERGED), read: new Map() };
  const { overlay, pending, generation, stamp } = snapshot;
  if (!overlay) {
    const touched = new Set(pending.map((delta) => blockIndexOf(blocks, delta.key)));
    const { blocks: read } = await readBlocks(
      access,
      snapshot,
      [...touched].flatMap((index) => blocks[index] ?? []),
    );
    const folded = new Map([...read.values()].flat().map((entry) => [entry.key, entry]));
    return { ...withPending(snapshot, (key) => folded.get(key) ?? NEVER_MERGED), read };
  }
  const inOverlay = new Map(overlay.map((entry) => [entry.key, entry]));
  // A fresh tag no fold since its ticket dropped was in no block: at zero, nothing to read.
  const proven = provenNew(snapshot.tickets, snapshot.left);
  const unknown = toLookUp({ ...snapshot, overlay }).filter((key) => !proven.has(key));
  // The page's blocks, guessed before the lookups with each tag they are for taken as new (under a
  // stream of new tags, most are): a guess that missed cost a call and a block more.
  const guessed = withPending(snapshot, (key) => inOverlay.get(key) ?? NEVER_MERGED);
  const guess = windowOf(guessed.count);
  const pageRefs = guess ? blocksFor(blocks, guessed.sizes, guess).indexes.flatMap((index) => blocks[index] ?? []) : [];
  // A tag outside the overlay is as its block at the snapshot says.
  const [most] = [...Map.groupBy(unknown, (key) => blockIndexOf(blocks, key))].sort(
    ([, a], [, b]) => b.length - a.length,
  );
  const whole =
    most && unknown.length + pageRefs.length > LOOKUPS && most[1].length >= WHOLE_BLOCK_KEYS ? most[0] : undefined;
  const wholeRef = whole === undefined ? undefined : blocks[whole];
  const inWhole = (key: string) => whole !== undefined && blockIndexOf(blocks, key) === whole;
  const looked = unknown.filter((key) => !inWhole(key));
  const { blocks: read, others } = await readBlocks(
    access,
    snapshot,
    [...pageRefs, ...(wholeRef ? [wholeRef] : [])],
    new Map(),
    (g) => looked.map((key) => tagStateKey(g, key)),
  );
  const before = new Map<string, Known | 'moved'>();
  for (const key of unknown) {
    const item = others?.get(tagStateKey(generation, key));
    before.set(key, inWhole(key) ? 'moved' : stateAt(item && decodeTagStates(item), stamp));
  }
  // Read from their blocks (those merged again since the snapshot, rarely, too: the snapshot's
  // blocks are kept a while after they are replaced).
  const moved = unknown.filter((key) => before.get(key) === 'moved');
  const refs = [...new Set(moved.map((key) => blockIndexOf(blocks, key)))].flatMap((index) => blocks[index] ?? []);
  const all = moved.length > 0 ? (await readBlocks(access, snapshot, refs, read)).blocks : read;
  const fromBlock = (key: string) =>
    all.get(blocks[blockIndexOf(blocks, key)]?.id ?? '')?.find((entry) => entry.key === key) ?? NEVER_MERGED;
  const known = (key: string): Known => {
    const found = inOverlay.get(key) ?? before.get(key) ?? NEVER_MERGED;
    return found === 'moved' ? fromBlock(key) : found;
  };
  return { ...withPending(snapshot, known), read: all };
};
