import { z } from 'zod';
import { IDENTIFIER_PATTERN } from './fields';

export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;
const MAX_OFFSET = 1_000_000;

const integer = (name: string, min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,7}$/, { error: `must be an integer from ${min} to ${max}` })
    .transform(Number)
    .refine((n) => n >= min && n <= max, { error: `must be an integer from ${min} to ${max}` })
    .describe(name);

/** `fields=title,tags`: a comma-separated list of field names. */
const fieldList = z
  .string()
  .transform((value) => value.split(',').map((f) => f.trim()).filter(Boolean))
  .optional();

/** Paging and sorting, shared by every list (CONTRACT §4). Unknown parameters are ignored. */
export const pageQuery = z.object({
  offset: integer('offset', 0, MAX_OFFSET).default(0),
  limit: integer('limit', 1, MAX_LIMIT).default(DEFAULT_LIMIT),
  sort: z.enum(['asc', 'desc'], { error: 'must be `asc` or `desc`' }).default('asc'),
});

export const magazineListQuery = pageQuery.extend({
  year: z
    .string()
    .regex(/^\d{4}$/, { error: 'must be a year of four digits, such as `2024`' })
    .transform(Number)
    .optional(),
  tag: z.string().regex(IDENTIFIER_PATTERN, { error: 'must be a tag id: 1 to 64 letters, digits, `_` or `-`' }).optional(),
  fields: fieldList,
});

export const magazineQuery = z.object({ fields: fieldList });

export type PageQuery = z.output<typeof pageQuery>;
export type MagazineListQuery = z.output<typeof magazineListQuery>;
export type MagazineQuery = z.output<typeof magazineQuery>;

/** One page of a list, before it is rendered. */
export interface Page<T> {
  readonly items: readonly T[];
  /** Every item that matches the filter, not only this page. */
  readonly count: number;
  readonly lastModified?: number;
}

/** The UTC seconds that bound a calendar year: [start, end]. */
export const yearBounds = (year: number): [number, number] => [Date.UTC(year, 0, 1) / 1000, Date.UTC(year + 1, 0, 1) / 1000 - 1];
