import * as z from 'zod/mini';
import { IDENTIFIER_PATTERN } from './fields';

export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;

const integer = (min: number, max: number | undefined) => {
  const rule = {
    error: max === undefined ? `must be an integer of ${min} or more` : `must be an integer from ${min} to ${max}`,
  };
  return z
    .pipe(z.string().check(z.regex(/^\d{1,15}$/, rule)), z.transform(Number))
    .check(z.refine((n: number) => n >= min && (max === undefined || n <= max), rule));
};

/** `fields=title,tags`: a comma-separated list of field names. */
const fieldList = z.optional(
  z.pipe(
    z.string(),
    z.transform((value: string) =>
      value
        .split(',')
        .map((f) => f.trim())
        .filter(Boolean),
    ),
  ),
);

/** Paging and sorting, shared by every list. Unknown parameters are ignored. */
export const pageQuery = z.object({
  offset: z._default(integer(0, undefined), 0),
  limit: z._default(integer(1, MAX_LIMIT), DEFAULT_LIMIT),
  sort: z._default(z.enum(['asc', 'desc'], { error: 'must be `asc` or `desc`' }), 'asc'),
});

export const magazineListQuery = z.extend(pageQuery, {
  year: z.optional(
    z.pipe(
      z.string().check(z.regex(/^\d{4}$/, { error: 'must be a year of four digits, such as `2024`' })),
      z.transform(Number),
    ),
  ),
  tag: z.optional(
    z.string().check(z.regex(IDENTIFIER_PATTERN, { error: 'must be a tag id: 1 to 64 letters, digits, `_` or `-`' })),
  ),
  fields: fieldList,
});

/** `/tags/{tagId}/magazines`: the tag is in the path. */
export const tagMagazineListQuery = z.omit(magazineListQuery, { tag: true });

export const magazineQuery = z.object({ fields: fieldList });

export type PageQuery = z.output<typeof pageQuery>;
export type MagazineListQuery = z.output<typeof magazineListQuery>;

/** One page of a list, before it is rendered. */
export interface Page<T> {
  readonly items: readonly T[];
  /** Every item that matches the filter, not only this page. */
  readonly count: number;
  readonly lastModified?: number;
  /** The stored revision the page was read at, where one exists: its `ETag`. */
  readonly revision?: string;
}

/** The UTC seconds that bound a calendar year: [start, end] (before 1970, negative). */
export const yearBounds = (year: number): [number, number] => {
  // Date.UTC reads years 0–99 as 1900–1999; setUTCFullYear takes them as given.
  const startOf = (y: number) => new Date(0).setUTCFullYear(y, 0, 1) / 1000;
  return [startOf(year), startOf(year + 1) - 1];
};
