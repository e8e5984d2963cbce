import type { Magazine } from '../domain/magazine';
import type { Fresh } from './fresh-tags';
import { type CountedList, createdOfPosition, listPosition, type MagazineList, tagList } from './keys';

/**
 * The arithmetic of counts, with no I/O: what a write changes in each counted list, and what a
 * list's counts are once changes are added to them. Every count is a sum of signed changes, so
 * changes can be added in any order (a delete's change folded before its create's gives the same
 * counts in the end): nothing is ever dropped for arriving early.
 */

/** Name spellings of a tag and how many members carry each; changes of them, signed. */
export type NameCounts = readonly (readonly [string, number])[];

/**
 * One member of a counted list changed by one write: its key (a magazine's position, or a tag id
 * in `TAGS`), the change of its count, and the change of its name spellings.
 */
export interface Delta {
  readonly key: string;
  readonly n: number;
  readonly names?: NameCounts;
}

/** A write's changes of one list, as a ticket carries them (its sort key, when it was made, its deltas). */
export interface Ticket {
  readonly sk: string;
  /** Unix seconds. */
  readonly at: number;
  readonly deltas: readonly Delta[];
  /** `TAGS`: its tags that had no state item when it was written (fresh-tags.ts). */
  readonly fresh?: Fresh | undefined;
}

/** Every list a magazine is in: all magazines, and one per tag (with the tag, whose name it counts). */
export const listsOf = (
  magazine: Pick<Magazine, 'tags'>,
): { readonly list: MagazineList; readonly tag?: Magazine['tags'][number] }[] => [
  { list: 'ALL' },
  ...magazine.tags.map((tag) => ({ list: tagList(tag.id), tag })),
];

const addName = (names: Map<string, number>, name: string, change: number) => {
  const next = (names.get(name) ?? 0) + change;
  if (next === 0) names.delete(name);
  else names.set(name, next);
};

/** Deltas of one list with the same key added together; those that change nothing left out. */
export const netted = (deltas: readonly Delta[]): Delta[] => {
  const byKey = new Map<string, { n: number; names: Map<string, number> }>();
  for (const delta of deltas) {
    const sum = byKey.get(delta.key) ?? { n: 0, names: new Map<string, number>() };
    byKey.set(delta.key, sum);
    sum.n += delta.n;
    for (const [name, change] of delta.names ?? []) addName(sum.names, name, change);
  }
  return [...byKey].flatMap(([key, { n, names }]) =>
    n === 0 && names.size === 0 ? [] : [{ key, n, ...(names.size > 0 && { names: [...names] }) }],
  );
};

/**
 * What one write changes in each counted list: the magazine `before` counted out and `after`
 * counted in (either may be absent: a create, a delete). A list the magazine is in before or after
 * is always named, with no deltas when only its representation changed (a title), so that its
 * version moves; `TAGS` only when a tag's count or spelling changes.
 */
export const countChanges = (
  before: Magazine | undefined,
  after: Magazine | undefined,
): Map<CountedList, readonly Delta[]> => {
  const changes = new Map<CountedList, Delta[]>();
  const add = (list: CountedList, delta: Delta) => {
    const deltas = changes.get(list) ?? [];
    changes.set(list, deltas);
    deltas.push(delta);
  };
  for (const [magazine, sign] of [
    [before, -1],
    [after, 1],
  ] as const) {
    if (!magazine) continue;
    const key = listPosition(magazine.created, magazine.id);
    for (const { list, tag } of listsOf(magazine)) {
      if (!tag) {
        add(list, { key, n: sign });
        continue;
      }
      add(list, { key, n: sign, names: [[tag.name, sign]] });
      add('TAGS', { key: tag.id, n: sign, names: [[tag.name, sign]] });
    }
  }
  const result = new Map<CountedList, readonly Delta[]>();
  for (const [list, deltas] of changes) {
    const net = netted(deltas);
    if (list === 'TAGS' && net.length === 0) continue;
    result.set(list, net);
  }
  return result;
};

const date = (seconds: number) => new Date(seconds * 1000);
export const yearOf = (seconds: number) => String(date(seconds).getUTCFullYear()).padStart(4, '0');

/** A magazine list's counts: members, members per year, spellings of its tag's name, writes, last change. */
export interface ListCounts {
  readonly total: number;
  readonly years: ReadonlyMap<string, number>;
  readonly names: ReadonlyMap<string, number>;
  /** Writes that changed the list: with the generation, its version. */
  readonly writes: number;
  /** Unix seconds. */
  readonly lastModified: number;
}

export const noCounts: ListCounts = { total: 0, years: new Map(), names: new Map(), writes: 0, lastModified: 0 };

/**
 * The counts of a magazine list with tickets added: each ticket is one write; its deltas change
 * the members (keys are positions, so the year is in the key) and the name spellings.
 */
export const withTickets = (counts: ListCounts, tickets: readonly Ticket[]): ListCounts => {
  if (tickets.length === 0) return counts;
  let total = counts.total;
  let lastModified = counts.lastModified;
  const years = new Map(counts.years);
  const names = new Map(counts.names);
  for (const ticket of tickets) {
    lastModified = Math.max(lastModified, ticket.at);
    for (const delta of ticket.deltas) {
      total += delta.n;
      if (delta.n !== 0) {
        const year = yearOf(createdOfPosition(delta.key));
        const next = (years.get(year) ?? 0) + delta.n;
        if (next === 0) years.delete(year);
        else years.set(year, next);
      }
      for (const [name, change] of delta.names ?? []) addName(names, name, change);
    }
  }
  return { total, years, names, writes: counts.writes + tickets.length, lastModified };
};

/**
 * A list's version with tickets added (writes and last change), and nothing else: for `TAGS`,
 * whose keys are tag ids, not positions with a year in them.
 */
export const versionWith = (counts: ListCounts, tickets: readonly Ticket[]): ListCounts => ({
  ...counts,
  writes: counts.writes + tickets.length,
  lastModified: tickets.reduce((latest, ticket) => Math.max(latest, ticket.at), counts.lastModified),
});

/**
 * A list's version, as its pages tell it (`ETag`, `Last-Modified`) and preconditions hold it: its
 * writes in this generation, and its last change, or the switch to the generation if later (a
 * list the last bulk write emptied has no count of its own: it last changed then).
 */
export const listVersion = (generation: string, counts: ListCounts, switchedAt: number) => ({
  revision: `${generation}.${counts.writes}`,
  lastModified: Math.max(counts.lastModified, switchedAt),
});

/** How many members of a list fall in a year, or in the whole list. */
export const countIn = (counts: ListCounts, year: string | undefined) =>
  year === undefined ? counts.total : (counts.years.get(year) ?? 0);

/** How many members of a list come before a year (its first member's rank). */
export const countBefore = (counts: ListCounts, year: string) => {
  let before = 0;
  for (const [other, count] of counts.years) if (other < year) before += count;
  return before;
};

/** The name a tag shows: the spelling most of its magazines carry; on a tie, the first in alphabetical order. */
export const shownName = (names: ReadonlyMap<string, number> | NameCounts): string | undefined =>
  [...names].filter(([, count]) => count > 0).sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0))[0]?.[0];
