/**
 * The key design of the single table, in one place.
 *
 * | Item               | PK             | SK                            | GSI1PK              | GSI1SK           |
 * |--------------------|----------------|-------------------------------|---------------------|------------------|
 * | Magazine           | `MAG#<id>`     | `MAGAZINE`                    | `MAGAZINES`         | `<created>#<id>` |
 * | Tag membership     | `TAG#<tagId>`  | `MAG#<created>#<magazineId>`  |                     |                  |
 * | Article            | `ARTICLE#<id>` | `ARTICLE`                     | `MAG#<id>#<generation>#ARTICLES` | `<created>#<id>` |
 * | Collection counts  | `CATALOGUE`    | `MAGAZINES`                   |                     |                  |
 * | Tag shard (16)     | `CATALOGUE`    | `TAGS#<00..15>`               |                     |                  |
 *
 * `<created>` is Unix seconds padded to 12 digits, so that string order is time order and a
 * calendar year is one key range. A tag membership holds a copy of the magazine, so a page of a
 * tag's magazines is one Query. The collection item counts all magazines and each year; each
 * tag's name, count and per-year counts live on one of 16 shard items chosen by a hash of its
 * id, so a magazine write touches at most 16 of them whatever its tags, and a transaction
 * (magazine, up to 64 memberships, collection, shards) stays under DynamoDB's 100 items. A
 * magazine being deleted keeps its item as a tombstone (`deleting`, listed under GSI1PK
 * `TOMBSTONES`) until its articles are gone.
 */

const pad = (seconds: number) => String(seconds).padStart(12, '0');

export const ENTITY = {
  magazine: 'magazine',
  membership: 'tag-membership',
  article: 'article',
  catalogue: 'catalogue',
} as const;

export const GSI1 = 'GSI1';

export const magazineKey = (id: string) => ({ PK: `MAG#${id}`, SK: 'MAGAZINE' });
export const magazineListKey = (created: number, id: string) => ({
  GSI1PK: 'MAGAZINES',
  GSI1SK: `${pad(created)}#${id}`,
});
export const MAGAZINE_LIST = 'MAGAZINES';

export const membershipKey = (tagId: string, created: number, magazineId: string) => ({
  PK: `TAG#${tagId}`,
  SK: `MAG#${pad(created)}#${magazineId}`,
});
export const membershipPartition = (tagId: string) => `TAG#${tagId}`;

export const articleKey = (id: string) => ({ PK: `ARTICLE#${id}`, SK: 'ARTICLE' });
export const articleListKey = (magazineId: string, generation: string, created: number, id: string) => ({
  GSI1PK: articleListPartition(magazineId, generation),
  GSI1SK: `${pad(created)}#${id}`,
});
/**
 * A magazine's articles are listed under its generation, made anew each time the id is created:
 * a deletion still cleaning up can never reach the articles of a magazine created again under the
 * same id.
 */
export const articleListPartition = (magazineId: string, generation: string) =>
  `MAG#${magazineId}#${generation}#ARTICLES`;

/** Tombstones are listed apart in GSI1, so that bulk operations find and finish them. */
export const TOMBSTONE_LIST = 'TOMBSTONES';

export const CATALOGUE_PARTITION = 'CATALOGUE';
export const catalogueKey = { PK: CATALOGUE_PARTITION, SK: 'MAGAZINES' } as const;

export const TAG_SHARDS = 16;
export const TAG_SHARD_PREFIX = 'TAGS#';

/** FNV-1a of the tag id: a stable, even spread over the shards. */
const shardOf = (tagId: string) => {
  let hash = 0x811c9dc5;
  for (let i = 0; i < tagId.length; i++) hash = Math.imul(hash ^ tagId.charCodeAt(i), 0x01000193) >>> 0;
  return hash % TAG_SHARDS;
};

export const tagShardKey = (tagId: string) => ({
  PK: CATALOGUE_PARTITION,
  SK: `${TAG_SHARD_PREFIX}${String(shardOf(tagId)).padStart(2, '0')}`,
});

/** Sort-key bounds of a year (inclusive), for key conditions; `prefix` is `''` on GSI1 and `MAG#` on tags. */
export const createdRange = (prefix: string, [start, end]: [number, number]): [string, string] => [
  `${prefix}${pad(start)}#`,
  `${prefix}${pad(end)}#~`,
];

/** Counter and name attributes of the collection item and the tag shards. */
export const counter = {
  all: 'count',
  year: (year: number) => `count#Y${year}`,
  tag: (tagId: string) => `count#T#${tagId}`,
  tagYear: (tagId: string, year: number) => `count#T#${tagId}#Y${year}`,
  tagName: (tagId: string) => `name#T#${tagId}`,
  lastModified: 'lastModified',
  /** Changes with every write to the item: the ETag of the lists and the `If-Match` of bulk writes. */
  revision: 'revision',
} as const;

/** On a magazine item: the time its deletion began. Such an item is a tombstone, gone for readers. */
export const TOMBSTONE = 'deleting';

/** The revision of a collection no magazine was ever written to. */
export const EMPTY_REVISION = '0';

export const TAG_NAME_PREFIX = 'name#T#';
