/**
 * The key design of the single table, and every attribute name the data layer writes, in one
 * place. Keys are `PK`/`SK` strings; there is no secondary index.
 *
 * Everything a reader sees of the collection lives under a collection generation `G`: a bulk
 * write (PUT or DELETE /magazines) builds a new generation aside and switches to it with one
 * conditional transaction on the head replicas, so readers see the old collection whole or the
 * new one whole. Articles live outside generations (PUT /magazines keeps them) under the
 * incarnation of their magazine, made anew each time an id is created.
 *
 * | Item                                   | PK                        | SK                   |
 * |----------------------------------------|---------------------------|----------------------|
 * | Head replica r (current generation)    | `HEAD#<r>`                | `HEAD`               |
 * | Magazine                               | `G#<G>#MAG#<id>`          | `MAGAZINE`           |
 * | Entry of the magazine list             | `G#<G>#LIST`              | `<created>#<id>`     |
 * | Entry of a tag's magazine list         | `G#<G>#TAG#<tagId>`       | `<created>#<id>`     |
 * | Counts of the collection (aggregate)   | `G#<G>#COUNTS`            | `AGGREGATE`          |
 * | Pending count change of one write      | `G#<G>#COUNTS`            | `T#<ticket>`         |
 * | Counts per day of one month of a list  | `G#<G>#DAYS#<list>`       | `<yyyymm>`           |
 * | A tag in use: name(s) and counts       | `G#<G>#TAGS`              | `<tagId>`            |
 * | Index of the tags in use (keys only)   | `G#<G>#TAGINDEX`          | `<tagId>`            |
 * | Write guard s of a generation          | `G#<G>#GUARD#<s>`         | `GUARD`              |
 * | Bulk write of a generation             | `BULK#<G>`                | `BULK`               |
 * | Article                                | `ART#<incarnation>`       | `<seq>`              |
 * | Idempotency key                        | `IDEM#<hash>`             | `IDEM`               |
 * | Garbage to clean up                    | `TRASH`                   | `<time>#<what>`      |
 *
 * `<created>` is Unix seconds padded to 12 digits, so string order is time order and a year, a
 * month or a day is one key range; `<seq>` is the article's number in its magazine, padded to 10.
 */

export const PK = 'PK';
export const SK = 'SK';

export type Key = { readonly PK: string; readonly SK: string };

const pad = (value: number, width: number) => String(value).padStart(width, '0');

/** Head replicas: every single read reads one at random, so no one item carries all reads. */
export const HEAD_REPLICAS = 16;
export const headKey = (replica: number): Key => ({ PK: `HEAD#${pad(replica, 2)}`, SK: 'HEAD' });

/** The generation of a table no bulk write ever switched. */
export const FIRST_GENERATION = '0';

/** Write guards of a generation: a write checks one at random; a bulk write seals all of them. */
export const GUARDS = 256;
export const guardKey = (generation: string, guard: number): Key => ({
  PK: `G#${generation}#GUARD#${pad(guard, 3)}`,
  SK: 'GUARD',
});

export const magazineKey = (generation: string, id: string): Key => ({
  PK: `G#${generation}#MAG#${id}`,
  SK: 'MAGAZINE',
});

/** `<created>#<id>`: the position of a magazine in every list it is in. */
export const listPosition = (created: number, id: string) => `${pad(created, 12)}#${id}`;
export const idOfPosition = (position: string) => position.slice(13);

/** A magazine list: `ALL` or the list of one tag. */
export type ListName = 'ALL' | `TAG#${string}`;
export const tagList = (tagId: string): ListName => `TAG#${tagId}`;

export const listPartition = (generation: string, list: ListName) =>
  list === 'ALL' ? `G#${generation}#LIST` : `G#${generation}#${list}`;
export const listEntryKey = (generation: string, list: ListName, created: number, id: string): Key => ({
  PK: listPartition(generation, list),
  SK: listPosition(created, id),
});

/** Sort-key bounds (inclusive) of a time range of a list: a year, a month, a day. */
export const positionRange = (from: number, to: number): [string, string] => [`${pad(from, 12)}#`, `${pad(to, 12)}#~`];

export const countsPartition = (generation: string) => `G#${generation}#COUNTS`;
export const aggregateKey = (generation: string): Key => ({ PK: countsPartition(generation), SK: 'AGGREGATE' });
export const TICKET_PREFIX = 'T#';
export const ticketKey = (generation: string, ticket: string): Key => ({
  PK: countsPartition(generation),
  SK: `${TICKET_PREFIX}${ticket}`,
});

export const daysKey = (generation: string, list: ListName, month: string): Key => ({
  PK: `G#${generation}#DAYS#${list}`,
  SK: month,
});

export const tagsPartition = (generation: string) => `G#${generation}#TAGS`;
export const tagKey = (generation: string, tagId: string): Key => ({ PK: tagsPartition(generation), SK: tagId });
export const tagIndexPartition = (generation: string) => `G#${generation}#TAGINDEX`;
export const tagIndexKey = (generation: string, tagId: string): Key => ({
  PK: tagIndexPartition(generation),
  SK: tagId,
});

export const bulkKey = (generation: string): Key => ({ PK: `BULK#${generation}`, SK: 'BULK' });

export const articlePartition = (incarnation: string) => `ART#${incarnation}`;
export const articleSeq = (seq: number) => pad(seq, 10);
export const articleKey = (incarnation: string, seq: number): Key => ({
  PK: articlePartition(incarnation),
  SK: articleSeq(seq),
});

export const idempotencyKey = (hash: string): Key => ({ PK: `IDEM#${hash}`, SK: 'IDEM' });

export const TRASH_PARTITION = 'TRASH';
export const trashKey = (at: number, what: string): Key => ({ PK: TRASH_PARTITION, SK: `${pad(at, 12)}#${what}` });

/** Attribute names the items carry besides their keys (expressions name them through ExpressionAttributeNames). */
export const attr = {
  /** Head: the current generation. */
  generation: 'generation',
  /** Guard: the bulk write that sealed it. */
  sealedBy: 'sealedBy',
  /** Magazine. */
  id: 'id',
  title: 'title',
  tags: 'tags',
  created: 'created',
  updated: 'updated',
  revision: 'revision',
  incarnation: 'incarnation',
  articles: 'articles',
  lastArticleCreated: 'lastArticleCreated',
  articlesModified: 'articlesModified',
  /** Magazine: its deletion began at this time (Unix ms); articles are refused meanwhile. */
  closing: 'closing',
  /** Any item a request writes: who wrote it, so that a retry of a write whose answer was lost knows it was done. */
  writeToken: 'writeToken',
  /** List entry of a tag: the tag's name as this magazine carries it. */
  name: 'name',
  /** Ticket: the count changes of one write, and when it was made. */
  changes: 'changes',
  at: 'at',
  /** Aggregates: totals, writes folded, last change, tags in use; per year `y#YYYY`, month `m#YYYYMM`, day `d#DD`, name `n#<name>`. */
  total: 'total',
  writes: 'writes',
  lastModified: 'lastModified',
  tagsInUse: 'tagsInUse',
  yearPrefix: 'y#',
  monthPrefix: 'm#',
  dayPrefix: 'd#',
  namePrefix: 'n#',
  /** Bulk write. */
  bulkId: 'bulkId',
  target: 'target',
  fingerprint: 'fingerprint',
  stage: 'stage',
  leaseUntil: 'leaseUntil',
  progress: 'progress',
  /** The collection's version when the bulk write sealed it: a build carries on only over the same collection. */
  sealedRevision: 'sealedRevision',
  /** Idempotency key. */
  state: 'state',
  result: 'result',
  /** Garbage: what to clean. */
  kind: 'kind',
  /** DynamoDB's time to live (Unix seconds): idempotency keys, finished bulk records. */
  expiresAt: 'expiresAt',
} as const;
