import type { Article } from '../domain/article';
import type { Magazine } from '../domain/magazine';
import type { TagRef } from '../domain/tag';
import { attr } from './keys';
import type { Item } from './table-access';

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
const isTags = (value: unknown): value is TagRef[] => {
  if (!Array.isArray(value)) return false;
  for (const tag of value as (TagRef | undefined)[]) if (!isString(tag?.id) || !isString(tag?.name)) return false;
  return true;
};

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

export const decodeMagazine = (item: Item): MagazineRecord => ({
  magazine: {
    id: string(item, attr.id),
    title: string(item, attr.title),
    tags: field(item, attr.tags, isTags, 'a list of tags'),
    created: number(item, attr.created),
    updated: number(item, attr.updated),
    revision: string(item, attr.revision),
  },
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

/** One magazine counted in or out by a write: when it was created and which tags it carries. */
export interface CountChange {
  readonly created: number;
  readonly tags: readonly TagRef[];
  readonly sign: 1 | -1;
}

const isChanges = (value: unknown): value is CountChange[] =>
  Array.isArray(value) &&
  value.every(
    (change: CountChange) =>
      isNumber(change?.created) && isTags(change?.tags) && (change?.sign === 1 || change?.sign === -1),
  );

export interface Ticket {
  readonly sk: string;
  readonly changes: readonly CountChange[];
  /** When the write was made (Unix seconds). */
  readonly at: number;
}

export const decodeTicket = (item: Item): Ticket => ({
  sk: string(item, 'SK'),
  changes: field(item, attr.changes, isChanges, 'a list of count changes'),
  at: number(item, attr.at),
});

/** Counters kept as attributes named `<prefix><key>` (`y#2024`, `m#202401`, `d#07`, `n#Science`), as a map. */
export const countersOf = (item: Item | undefined, prefix: string): Map<string, number> =>
  countersByPrefix(item, [prefix])[0]!;

/** The counters of several prefixes (none a prefix of another), in one pass over the item's attributes. */
const countersByPrefix = (item: Item | undefined, prefixes: readonly string[]): Map<string, number>[] => {
  const counters = prefixes.map(() => new Map<string, number>());
  if (!item) return counters;
  for (const name of Object.keys(item)) {
    const value = item[name];
    if (!isNumber(value)) continue;
    for (let i = 0; i < prefixes.length; i++) {
      const prefix = prefixes[i]!;
      if (name.startsWith(prefix)) {
        counters[i]!.set(name.slice(prefix.length), value);
        break;
      }
    }
  }
  return counters;
};

/** The folded counts of a list (the collection's aggregate, or a tag's item). */
export interface Aggregate {
  readonly total: number;
  /** Writes folded into it: with the pending tickets, the version of the list. */
  readonly writes: number;
  readonly lastModified: number;
  readonly years: Map<string, number>;
  readonly months: Map<string, number>;
  /** The collection only: tags in use. A tag only: how many of its magazines carry each spelling of its name. */
  readonly tagsInUse: number;
  readonly names: Map<string, number>;
}

export const decodeAggregate = (item: Item | undefined): Aggregate => {
  const [years, months, names] = countersByPrefix(item, [attr.yearPrefix, attr.monthPrefix, attr.namePrefix]);
  return {
    total: item ? numberOr(item, attr.total, 0) : 0,
    writes: item ? numberOr(item, attr.writes, 0) : 0,
    lastModified: item ? numberOr(item, attr.lastModified, 0) : 0,
    years: years!,
    months: months!,
    tagsInUse: item ? numberOr(item, attr.tagsInUse, 0) : 0,
    names: names!,
  };
};

export const decodeHead = (item: Item | undefined): string | undefined =>
  item === undefined ? undefined : string(item, attr.generation);

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
