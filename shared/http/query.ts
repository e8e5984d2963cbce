import * as v from 'valibot';
import { IDENTIFIER_PATTERN, maxChars } from '../domain/fields';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../domain/paging';

/**
 * The query parameters of the operations, as schemas whose messages name what a parameter accepts.
 * Each schema is made by the row that uses it (shared/routes/rows/), not when this module loads:
 * a function's bundle then makes, and carries, its own operation's query only.
 */

/**
 * The integers a query parameter stands for. A query string carries only text, so the schemas
 * check digits; clients, though, send numbers, and the OpenAPI document types these parameters
 * as integers in these bounds (shared/openapi/parameters.ts reads this metadata).
 */
const queryInteger = (bounds: { minimum: number; maximum?: number }) =>
  v.metadata<string, { queryInteger: typeof bounds }>({ queryInteger: bounds });

const integer = (min: number, max: number | undefined) => {
  const rule = max === undefined ? `must be an integer of ${min} or more` : `must be an integer from ${min} to ${max}`;
  return v.pipe(
    v.string(rule),
    v.regex(/^\d{1,15}$/, rule),
    queryInteger(max === undefined ? { minimum: min } : { minimum: min, maximum: max }),
    v.transform(Number),
    v.check((n: number) => n >= min && (max === undefined || n <= max), rule),
  );
};

/** `fields=title,tags`: a comma-separated list of field names. */
const fieldList = () =>
  v.optional(
    v.pipe(
      v.string(),
      v.transform((value: string) =>
        value
          .split(',')
          .map((f) => f.trim())
          .filter(Boolean),
      ),
    ),
  );

const pageEntries = () => ({
  offset: v.optional(integer(0, undefined)),
  limit: v.optional(integer(1, MAX_LIMIT), String(DEFAULT_LIMIT)),
  sort: v.optional(v.picklist(['asc', 'desc'], 'must be `asc` or `desc`'), 'asc'),
  cursor: v.optional(v.pipe(v.string(), ...maxChars(1024, 'must be a cursor from a `Link` header'))),
});

// The years written in four digits, 1000 to 9999: documented as integers, which a client sends as digits
// without leading zeros, so `0999` is refused as the integer 999 would be.
const year = () =>
  v.optional(
    v.pipe(
      v.string('must be a year of four digits, 1000 to 9999, such as `2024`'),
      v.regex(/^[1-9]\d{3}$/, 'must be a year of four digits, 1000 to 9999, such as `2024`'),
      queryInteger({ minimum: 1000, maximum: 9999 }),
      v.transform(Number),
    ),
  );

/** Paging and sorting, shared by every list. Unknown parameters are ignored. */
export const pageQuery = () => v.object(pageEntries());

export const magazineListQuery = () =>
  v.object({
    ...pageEntries(),
    year: year(),
    tag: v.optional(
      v.pipe(v.string(), v.regex(IDENTIFIER_PATTERN, 'must be a tag id: 1 to 64 letters, digits, `_` or `-`')),
    ),
    fields: fieldList(),
  });

/** `/tags/{tagId}/magazines`: the tag is in the path. */
export const tagMagazineListQuery = () => v.object({ ...pageEntries(), year: year(), fields: fieldList() });

export const magazineQuery = () => v.object({ fields: fieldList() });
