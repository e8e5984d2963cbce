export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;

type SortOrder = 'asc' | 'desc';

/**
 * Where a page starts: at a position counted from the first item, or right after an item a
 * previous page ended with (its `position`, opaque to everyone but the store).
 */
export type PageStart = { readonly offset: number } | { readonly after: string; readonly offset: number };

/** One page of a list, as asked. */
export interface PageQuery {
  readonly start: PageStart;
  readonly limit: number;
  readonly sort: SortOrder;
}

/** The filters of a magazine list. */
export interface MagazineFilter {
  /** The UTC year of `created`. */
  readonly year?: number | undefined;
  /** A tag id. */
  readonly tag?: string | undefined;
}

/** One page of a list, before it is rendered. */
export interface Page<T> {
  readonly items: readonly T[];
  /** Every item that matches the filter, not only this page. */
  readonly count: number;
  /** The position the page starts at, counted from the first item. */
  readonly offset: number;
  /** Resumes right after the last item of this page; absent when it is the last. */
  readonly next?: string | undefined;
  readonly lastModified?: number;
  /** The version of the list the page was read at, where the store keeps one: its `ETag`. */
  readonly revision?: string;
}

/** The UTC seconds that bound a calendar year: [start, end] (before 1970, negative). */
export const yearBounds = (year: number): [number, number] => {
  // Date.UTC reads years 0–99 as 1900–1999; setUTCFullYear takes them as given.
  const startOf = (y: number) => new Date(0).setUTCFullYear(y, 0, 1) / 1000;
  return [startOf(year), startOf(year + 1) - 1];
};
