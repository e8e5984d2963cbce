import * as z from 'zod/mini';
import { IDENTIFIER_PATTERN } from '../domain/fields';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../domain/paging';

/** The query parameters of the operations, as zod schemas whose messages name what a parameter accepts. */

/**
 * The integers a query parameter stands for. A query string carries only text, so the schemas
 * check digits; clients, though, send numbers, and the OpenAPI document types these parameters
 * as integers in these bounds.
 */
export const queryIntegers = z.registry<{ minimum: number; maximum?: number }>();

const integer = (min: number, max: number | undefined) => {
  const rule = {
    error: max === undefined ? `must be an integer of ${min} or more` : `must be an integer from ${min} to ${max}`,
  };
  const schema = z
    .pipe(z.string().check(z.regex(/^\d{1,15}$/, rule)), z.transform(Number))
    .check(z.refine((n: number) => n >= min && (max === undefined || n <= max), rule));
  return schema.register(queryIntegers, max === undefined ? { minimum: min } : { minimum: min, maximum: max });
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
  offset: z.optional(integer(0, undefined)),
  limit: z._default(integer(1, MAX_LIMIT), DEFAULT_LIMIT),
  sort: z._default(z.enum(['asc', 'desc'], { error: 'must be `asc` or `desc`' }), 'asc'),
  cursor: z.optional(z.string().check(z.maxLength(1024, { error: 'must be a cursor from a `Link` header' }))),
});

export const magazineListQuery = z.extend(pageQuery, {
  year: z.optional(
    z
      .pipe(
        z.string().check(z.regex(/^\d{4}$/, { error: 'must be a year of four digits, such as `2024`' })),
        z.transform(Number),
      )
      // The integers whose digits are four: 999 would be sent as `999` and refused.
      .register(queryIntegers, { minimum: 1000, maximum: 9999 }),
  ),
  tag: z.optional(
    z.string().check(z.regex(IDENTIFIER_PATTERN, { error: 'must be a tag id: 1 to 64 letters, digits, `_` or `-`' })),
  ),
  fields: fieldList,
});

/** `/tags/{tagId}/magazines`: the tag is in the path. */
export const tagMagazineListQuery = z.omit(magazineListQuery, { tag: true });

export const magazineQuery = z.object({ fields: fieldList });

export type PageParameters = z.output<typeof pageQuery>;
export type MagazineListParameters = z.output<typeof magazineListQuery>;
