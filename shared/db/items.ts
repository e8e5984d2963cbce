import type { Article } from '../domain/article';
import type { Magazine } from '../domain/magazine';
import type { TagRef } from '../domain/tag';
import { type Delta, type ListCounts, noCounts, type Ticket } from './counts';
import { decodeFresh, decodeLeft, encodeLeft } from './fresh-tags';
import { attr, ticketWrittenMs } from './keys';
import {
  type BlockRef,
  type Directory,
  decodeEntries,
  type Entry,
  emptyDirectory,
  encodeEntries,
  frontCoded,
  frontDecoded,
} from './ranked';
import { decodeTags } from './stored-tags';
import type { Item } from './table-access';
import { storedOverlay, type TagState, type TagsFold } from './tag-states';

/**
 * One decoder per item type: what the table holds, checked and typed as the data layer uses it.
 * An item that does not decode is a defect (a 500 naming no internal detail), never read as
 * something it is not.
 */

class CorruptItem extends Error {
  override readonly name = 'CorruptItem';
}

const field = <T>(item: Item, name: string, check: (value: unknown) => value is T, what: string): T => {
  const value = item[name];
  if (!check(value)) throw new CorruptItem(`Item ${String(item.PK)} / ${String(item.SK)}: ${name} is not ${what}.`);
  return value;
};

const isString = (value: unknown): value is string => typeof value === 'string';
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** `tags` in either stored form (stored-tags.ts); anything else is refused as `field` refuses. */
const tagsOf = (item: Item): TagRef[] =>
  decodeTags(item[attr.tags]) ?? field(item, attr.tags, (_): _ is never => false, 'a list of tags');

const string = (item: Item, name: string) => field(item, name, isString, 'a string');
const number = (item: Item, name: string) => field(item, name, isNumber, 'a number');
const optionalNumber = (item: Item, name: string) => (item[name] === undefined ? undefined : number(item, name));
const numberOr = (item: Item, name: string, fallback: number) => optionalNumber(item, name) ?? fallback;

/** A magazine item: the magazine, and what only the store needs about its articles. */
export interface MagazineRecord {
  readonly magazine: Magazine;
  /** Made anew each time the id is created; its articles are listed under it. */
  readonly incarnation: string;
  /** Number of articles: also the number of the last one (articles are never deleted one by one). */
  readonly articles: number;
  readonly lastArticleCreated: number;
  readonly articlesModified: number | undefined;
  /** When its deletion began (Unix ms), if it has. */
  readonly closing: number | undefined;
  readonly writeToken: string | undefined;
}

/** What a magazine's representation needs of its item: a list page reads only these. */
export const MAGAZINE_VIEW = [attr.id, attr.title, attr.tags, attr.created, attr.updated, attr.revision] as const;

/** A magazine item's id: what tells its key when its keys were not read (`getMany`'s `keyOf`). */
export const magazineIdOf = (item: Item): string => string(item, attr.id);

export const decodeMagazineView = (item: Item): Magazine => ({
  id: string(item, attr.id),
  title: string(item, attr.title),
  tags: tagsOf(item),
  created: number(item, attr.created),
  updated: number(item, attr.updated),
  revision: string(item, attr.revision),
});

export const decodeMagazine = (item: Item): MagazineRecord => ({
  magazine: decodeMagazineView(item),
  incarnation: string(item, attr.incarnation),
  articles: numberOr(item, attr.articles, 0),
  lastArticleCreated: numberOr(item, attr.lastArticleCreated, 0),
  articlesModified: optionalNumber(item, attr.articlesModified),
  closing: optionalNumber(item, attr.closing),
  writeToken: item[attr.writeToken] === undefined ? undefined : string(item, attr.writeToken),
});

export const decodeArticle = (item: Item): Article & { readonly writeToken: string | undefined } => ({
  id: string(item, attr.id),
  magazineId: string(item, 'magazineId'),
  title: string(item, attr.title),
  author_first_name: string(item, 'author_first_name'),
  author_last_name: string(item, 'author_last_name'),
  author_email: string(item, 'author_email'),
  date: string(item, 'date'),
  text: string(item, 'text'),
  created: number(item, attr.created),
  writeToken: item[attr.writeToken] === undefined ? undefined : string(item, attr.writeToken),
});

const json = <T>(item: Item, name: string, check: (value: unknown) => value is T, what: string, fallback: T): T => {
  const text = item[name];
  if (text === undefined) return fallback;
  if (typeof text !== 'string')
    throw new CorruptItem(`Item ${String(item.PK)} / ${String(item.SK)}: ${name} is not text.`);
  const value: unknown = JSON.parse(text);
  if (!check(value)) throw new CorruptItem(`Item ${String(item.PK)} / ${String(item.SK)}: ${name} is not ${what}.`);
  return value;
};

const isNameCounts = (value: unknown): value is [string, number][] =>
  Array.isArray(value) && value.every((pair) => Array.isArray(pair) && isString(pair[0]) && isNumber(pair[1]));

/** A ticket's deltas as stored: as a block's entries are. */
export const encodeDeltas = (deltas: readonly Delta[]): string => encodeEntries(deltas);

/** When a ticket's write was made (Unix seconds): its sort key's milliseconds, or the `at` older tickets carry. */
const ticketTime = (item: Item): number => {
  const ms = ticketWrittenMs(string(item, 'SK'));
  return item[attr.at] !== undefined || ms === undefined ? number(item, attr.at) : Math.floor(ms / 1000);
};

export const decodeTicket = (item: Item): Ticket => {
  const deltas = item[attr.changes] === undefined ? [] : decodeEntries(string(item, attr.changes));
  const fresh = decodeFresh(item[attr.fresh], deltas);
  return { sk: string(item, 'SK'), at: ticketTime(item), deltas, ...(fresh && { fresh }) };
};

const isYears = (value: unknown): value is Record<string, number> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every(isNumber);

/** A list's folded counts (`#A`), and the fold that wrote them; no item is a list no fold or bulk write has reached. */
export const decodeCounts = (item: Item | undefined): { readonly counts: ListCounts; readonly stamp: number } =>
  item === undefined
    ? { counts: noCounts, stamp: 0 }
    : {
        stamp: numberOr(item, attr.stamp, 0),
        counts: {
          total: numberOr(item, attr.total, 0),
          years: new Map(Object.entries(json(item, attr.years, isYears, 'counts by year', {}))),
          names: new Map(json(item, attr.names, isNameCounts, 'name counts', [])),
          writes: numberOr(item, attr.writes, 0),
          lastModified: numberOr(item, attr.lastModified, 0),
        },
      };

export const countsAttributes = (counts: ListCounts, stamp: number): Item => ({
  [attr.total]: counts.total,
  [attr.years]: JSON.stringify(Object.fromEntries(counts.years)),
  [attr.names]: JSON.stringify([...counts.names]),
  [attr.writes]: counts.writes,
  [attr.lastModified]: counts.lastModified,
  [attr.stamp]: stamp,
});

export const decodeStamp = (item: Item | undefined): number => (item === undefined ? 0 : numberOr(item, attr.stamp, 0));

const isRetired = (value: unknown): value is [string, number][] =>
  Array.isArray(value) && value.every((pair) => Array.isArray(pair) && isString(pair[0]) && isNumber(pair[1]));

const isBlockRefs = (value: unknown): value is [string, string, number, number][] =>
  Array.isArray(value) &&
  value.every(
    (ref) => Array.isArray(ref) && isString(ref[0]) && isString(ref[1]) && isNumber(ref[2]) && isNumber(ref[3]),
  );

/**
 * The directory's blocks as stored (docs/data-model.md, "The table"): `~` then
 * `id,bound,size[,visible];` each, every bound front-coded; ids are base64url and bounds key
 * prefixes, so neither holds a comma, a semicolon or a space. Readers also take what older folds
 * wrote (bounds whole, separated by spaces; JSON). Functions older than this form split on spaces:
 * ending every entry with `;` makes them find it malformed (500) rather than misread it.
 */
const FRONT_CODED = '~';
const ENTRY_END = ';';
/** A block's size and members in use are whole numbers (a size can be below 0 while a deletion's change waits for its create's). */
const COUNT = /^-?\d+$/;

const encodeBlockRefs = (blocks: readonly BlockRef[]): string => {
  if (blocks.length === 0) return '[]';
  let before = '';
  const coded = blocks.map((block) => {
    const bound = frontCoded(before, block.first);
    before = block.first;
    const fields = [block.id, bound, block.size, ...(block.visible === block.size ? [] : [block.visible])];
    return fields.join(',') + ENTRY_END;
  });
  return FRONT_CODED + coded.join('');
};

/** The entries of a directory's text, and whether their bounds are front-coded; undefined if it is neither form. */
const entriesOf = (text: string) => {
  if (!text.startsWith(FRONT_CODED)) return { frontCoded: false, entries: text.split(' ') };
  if (!text.endsWith(ENTRY_END)) return undefined;
  return { frontCoded: true, entries: text.slice(FRONT_CODED.length, -ENTRY_END.length).split(ENTRY_END) };
};

const decodeBlockRefs = (item: Item): BlockRef[] => {
  const text = item[attr.blocks];
  if (typeof text === 'string' && !text.startsWith('[')) {
    const malformed = () =>
      new CorruptItem(`Item ${String(item.PK)} / ${String(item.SK)}: a block of its directory is malformed.`);
    const form = entriesOf(text);
    if (!form) throw malformed();
    let before = '';
    return form.entries.map((coded) => {
      const fields = coded.split(',');
      const [id = '', bound = '', size = '', visible = size] = fields;
      const first = form.frontCoded ? frontDecoded(before, bound) : bound;
      if (!id || first === undefined || fields.length > 4 || !COUNT.test(size) || !COUNT.test(visible))
        throw malformed();
      before = first;
      return { id, first, size: Number(size), visible: Number(visible) };
    });
  }
  return json(item, attr.blocks, isBlockRefs, 'a list of blocks', []).map(([id, first, size, visible]) => ({
    id,
    first,
    size,
    visible,
  }));
};

/** A list's directory (`#X`), with the blocks it replaced (`#Y`) when the folder read them. */
export const decodeDirectory = (item: Item | undefined, retired?: Item): Directory =>
  item === undefined
    ? emptyDirectory
    : {
        blocks: decodeBlockRefs(item),
        retired: retired ? json(retired, attr.retired, isRetired, 'a list of retired blocks', []) : [],
        ...(typeof item[attr.high] === 'string' && { high: item[attr.high] }),
      };

export const directoryAttributes = (directory: Directory, stamp: number): Item => ({
  [attr.blocks]: encodeBlockRefs(directory.blocks),
  ...(directory.high !== undefined && { [attr.high]: directory.high }),
  [attr.stamp]: stamp,
});

export const retiredAttributes = (directory: Directory, stamp: number): Item => ({
  [attr.retired]: JSON.stringify(directory.retired),
  [attr.stamp]: stamp,
});

export const decodeBlock = (item: Item): Entry[] => decodeEntries(string(item, attr.entries));

/**
 * `TAGS`'s overlay (`#V`): its entries (none is stored as an empty string), and the keys of those
 * its fold merged into their blocks, whose state items may not be written yet (stored as a
 * block's members, counted 0 when it was the tag's first merge, 1 otherwise; none before overlays
 * kept any).
 */
export const decodeOverlay = (item: Item) => {
  const part = (name: string) => ((item[name] ?? '') === '' ? [] : decodeEntries(string(item, name)));
  const keysOf = (entries: readonly Entry[]) => entries.map((entry) => entry.key);
  const merged = part(attr.merged);
  const left = decodeLeft(item[attr.left]);
  return {
    entries: part(attr.entries),
    merged: keysOf(merged),
    firsts: keysOf(merged.filter((entry) => entry.n === 0)),
    ...(left && { left }),
  };
};

/** The overlay with the tags its fold merged among its entries: readers, older folders included, read them as the rest. */
export const overlayAttributes = (fold: Pick<TagsFold, 'overlay' | 'merged' | 'firsts' | 'stamp' | 'left'>): Item => {
  const all = storedOverlay(fold);
  const first = new Set(fold.firsts);
  const keys = fold.merged.map((entry) => ({ key: entry.key, n: first.has(entry.key) ? 0 : 1 }));
  return {
    [attr.entries]: all.length === 0 ? '' : encodeEntries(all),
    [attr.merged]: keys.length === 0 ? '' : encodeEntries(keys),
    [attr.stamp]: fold.stamp,
    ...(fold.left && { [attr.left]: encodeLeft(fold.left) }),
  };
};

const isTagStates = (value: unknown): value is [number, number, [string, number][]][] =>
  Array.isArray(value) &&
  value.every(
    (state) => Array.isArray(state) && isNumber(state[0]) && isNumber(state[1]) && isNameCounts(state[2] ?? []),
  );

/** A tag's state item (`S#<id>`): its states, newest first. */
export const decodeTagStates = (item: Item): TagState[] =>
  json(item, attr.states, isTagStates, 'a list of tag states', []).map(([stamp, n, names]) => ({
    stamp,
    n,
    ...(names && names.length > 0 && { names }),
  }));

/** A tag's state item: `stamp` (the newest state's) is what a later write of it is conditioned on. */
export const tagStateAttributes = (states: readonly TagState[]): Item => ({
  [attr.states]: JSON.stringify(states.map((state) => [state.stamp, state.n, state.names ?? []])),
  ...(states[0] && { [attr.stamp]: states[0].stamp }),
});

export const decodeHead = (item: Item | undefined): string | undefined =>
  item === undefined ? undefined : string(item, attr.generation);

/** When a bulk write switched the head to its generation (Unix seconds), or 0: heads switched before 1.1 do not say. */
export const switchedAtOf = (head: Item | undefined): number =>
  head === undefined ? 0 : numberOr(head, attr.switchedAt, 0);

export interface BulkRecord {
  readonly bulkId: string;
  readonly target: string;
  readonly fingerprint: string;
  readonly stage: 'building' | 'switched';
  readonly leaseUntil: number;
  /** Drafts written to the target generation so far, in the body's order. */
  readonly progress: number;
  readonly sealedRevision: string | undefined;
}

export const decodeBulk = (item: Item | undefined): BulkRecord | undefined =>
  item === undefined
    ? undefined
    : {
        bulkId: string(item, attr.bulkId),
        target: string(item, attr.target),
        fingerprint: string(item, attr.fingerprint),
        stage: string(item, attr.stage) === 'switched' ? 'switched' : 'building',
        leaseUntil: number(item, attr.leaseUntil),
        progress: numberOr(item, attr.progress, 0),
        sealedRevision: item[attr.sealedRevision] === undefined ? undefined : string(item, attr.sealedRevision),
      };

export interface IdempotencyRecord {
  readonly fingerprint: string;
  readonly state: 'running' | 'done';
  readonly result: string | undefined;
  readonly leaseUntil: number;
  readonly expiresAt: number;
  readonly writeToken: string;
}

export const decodeIdempotency = (item: Item | undefined): IdempotencyRecord | undefined =>
  item === undefined
    ? undefined
    : {
        fingerprint: string(item, attr.fingerprint),
        state: string(item, attr.state) === 'done' ? 'done' : 'running',
        result: item[attr.result] === undefined ? undefined : string(item, attr.result),
        leaseUntil: number(item, attr.leaseUntil),
        expiresAt: number(item, attr.expiresAt),
        writeToken: string(item, attr.writeToken),
      };
