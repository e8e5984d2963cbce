/**
 * The key design of the single table, in one place.
 *
 * | Item             | PK                  | SK                              | GSI1PK                  | GSI1SK               |
 * |------------------|---------------------|---------------------------------|-------------------------|----------------------|
 * | Magazine         | `MAG#<id>`          | `MAGAZINE`                      | `MAGAZINES`             | `<created>#<id>`     |
 * | Tag membership   | `TAG#<tagId>`       | `MAG#<created>#<magazineId>`    |                         |                      |
 * | Article          | `ARTICLE#<id>`      | `ARTICLE`                       | `MAG#<id>#ARTICLES`     | `<created>#<id>`     |
 * | Catalogue        | `CATALOGUE`         | `MAGAZINES`                     |                         |                      |
 *
 * `<created>` is Unix seconds padded to 12 digits, so that string order is time order and a
 * calendar year is one key range. A tag membership holds a copy of the magazine, so a page of a
 * tag's magazines is one Query. The catalogue item holds the exact counters (all magazines, per
 * year, per tag, per tag and year) and tag names; every write changes it in the same transaction
 * as the items it counts.
 */

const pad = (seconds: number) => String(seconds).padStart(12, '0');

export const ENTITY = { magazine: 'magazine', membership: 'tag-membership', article: 'article', catalogue: 'catalogue' } as const;

export const GSI1 = 'GSI1';

export const magazineKey = (id: string) => ({ PK: `MAG#${id}`, SK: 'MAGAZINE' });
export const magazineListKey = (created: number, id: string) => ({ GSI1PK: 'MAGAZINES', GSI1SK: `${pad(created)}#${id}` });
export const MAGAZINE_LIST = 'MAGAZINES';

export const membershipKey = (tagId: string, created: number, magazineId: string) => ({ PK: `TAG#${tagId}`, SK: `MAG#${pad(created)}#${magazineId}` });
export const membershipPartition = (tagId: string) => `TAG#${tagId}`;

export const articleKey = (id: string) => ({ PK: `ARTICLE#${id}`, SK: 'ARTICLE' });
export const articleListKey = (magazineId: string, created: number, id: string) => ({
  GSI1PK: articleListPartition(magazineId),
  GSI1SK: `${pad(created)}#${id}`,
});
export const articleListPartition = (magazineId: string) => `MAG#${magazineId}#ARTICLES`;

export const catalogueKey = { PK: 'CATALOGUE', SK: 'MAGAZINES' } as const;

/** Sort-key bounds of a year (inclusive), for key conditions; `prefix` is `''` on GSI1 and `MAG#` on tags. */
export const createdRange = (prefix: string, [start, end]: [number, number]): [string, string] => [`${prefix}${pad(start)}#`, `${prefix}${pad(end)}#~`];

/** Counter and name attributes of the catalogue item. */
export const counter = {
  all: 'count',
  year: (year: number) => `count#Y${year}`,
  tag: (tagId: string) => `count#T#${tagId}`,
  tagYear: (tagId: string, year: number) => `count#T#${tagId}#Y${year}`,
  tagName: (tagId: string) => `name#T#${tagId}`,
  lastModified: 'lastModified',
  /** Changes with every magazine write: the ETag of the lists and the `If-Match` of bulk writes. */
  revision: 'revision',
} as const;

/** The revision of a collection no magazine was ever written to. */
export const EMPTY_REVISION = '0';

export const TAG_NAME_PREFIX = 'name#T#';
