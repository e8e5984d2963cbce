/**
 * Every key template and attribute name of the single table, in one place. Keys are `PK`/`SK`
 * strings; there is no secondary index. docs/data-model.md explains the model; a test holds its
 * key table against `keyTemplates` below, so the two cannot drift.
 *
 * Everything a reader sees of the collection lives under a collection generation `G` (a bulk write
 * builds a new one aside and switches the head replicas to it in one transaction). Articles live
 * outside generations, under the incarnation of their magazine.
 */

export type Key = { readonly PK: string; readonly SK: string };

const pad = (value: number, width: number) => String(value).padStart(width, '0');

/** Head replicas: every single read reads one at random, so no one item carries all reads. */
export const HEAD_REPLICAS = 16;
export const headKey = (replica: number): Key => ({ PK: `HEAD#${pad(replica, 2)}`, SK: 'HEAD' });

/** The generation of a table no bulk write ever switched. */
export const FIRST_GENERATION = '0';

/** How many write guards a generation has: a write checks one at random; a bulk write seals all of them. */
export const GUARD_COUNT = 256;
export const guardKey = (generation: string, guard: number): Key => ({
  PK: `G#${generation}#GUARD#${pad(guard, 3)}`,
  SK: 'GUARD',
});

export const magazineKey = (generation: string, id: string): Key => ({
  PK: `G#${generation}#MAG#${id}`,
  SK: 'MAGAZINE',
});

/** `<created>#<id>`: where a magazine stands in every list it is in (created first, then id). */
export const listPosition = (created: number, id: string) => `${pad(created, 12)}#${id}`;
export const idOfPosition = (position: string) => position.slice(13);
export const createdOfPosition = (position: string) => Number(position.slice(0, 12));

/** Position bounds (inclusive) of a time range: a year. */
export const positionRange = (from: number, to: number): [string, string] => [`${pad(from, 12)}#`, `${pad(to, 12)}#~`];

/**
 * A counted list: its members are kept in order with their counts, in a partition of its own.
 * `ALL` and `TAG#<tagId>` hold magazines (by position); `TAGS` holds the tags in use (by tag id).
 */
export type MagazineList = 'ALL' | `TAG#${string}`;
export type CountedList = MagazineList | 'TAGS';
export const tagList = (tagId: string): MagazineList => `TAG#${tagId}`;

/**
 * A counted list's partition, in sort-key order: its folded counts (`#A`), the count changes
 * writes left for it (tickets, `#T…`), the fold's end mark (`#U`), `TAGS`'s overlay (`#V`), its
 * directory of blocks (`#X`), the blocks it replaced (`#Y`), then its blocks (`B#…`) and `TAGS`'s
 * tag states (`S#…`). A reader's one Query from `#A` to `#U` (or `#X`) sees counts and tickets
 * together; the end mark tells it no fold landed halfway through the Query.
 */
export const listPartition = (generation: string, list: CountedList) => `G#${generation}#L#${list}`;
export const listOfPartition = (pk: string): { generation: string; list: CountedList } | undefined => {
  const match = /^G#([^#]+)#L#(ALL|TAGS|TAG#.+)$/.exec(pk);
  return match ? { generation: match[1] ?? '', list: (match[2] ?? 'ALL') as CountedList } : undefined;
};
export const COUNTS_SK = '#A';
export const TICKET_PREFIX = '#T';
export const END_MARK_SK = '#U';
export const OVERLAY_SK = '#V';
export const DIRECTORY_SK = '#X';
export const RETIRED_SK = '#Y';
export const ADMISSION_SK = '#Z';
const BLOCK_PREFIX = 'B#';
export const countsKey = (generation: string, list: CountedList): Key => ({
  PK: listPartition(generation, list),
  SK: COUNTS_SK,
});
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/**
 * A write's count changes for one list; `<ms>` first, so the oldest are folded first (and the
 * ticket's time is read from it). The token only tells apart the writes of one millisecond in one
 * list, so a UUID's first 16 hex digits do (60 random bits, in 11 base64url characters where all
 * of it took 22): a page reads every ticket not folded yet, a hundred of them under 64 writers.
 */
export const ticketKey = (generation: string, list: CountedList, at: number, token: string): Key => ({
  PK: listPartition(generation, list),
  SK: `${TICKET_PREFIX}${pad(at, 13)}#${UUID.test(token) ? Buffer.from(token.replaceAll('-', '').slice(0, 16), 'hex').toString('base64url') : token}`,
});
/** When a ticket's write was made (Unix ms), read from its sort key. */
export const ticketWrittenMs = (sk: string): number | undefined => {
  const ms = Number(sk.slice(TICKET_PREFIX.length, TICKET_PREFIX.length + 13));
  return Number.isSafeInteger(ms) ? ms : undefined;
};
export const endMarkKey = (generation: string, list: CountedList): Key => ({
  PK: listPartition(generation, list),
  SK: END_MARK_SK,
});
export const directoryKey = (generation: string, list: CountedList): Key => ({
  PK: listPartition(generation, list),
  SK: DIRECTORY_SK,
});
/** Blocks a fold replaced, to delete once no reader can hold them: after the directory, so readers never read it. */
export const retiredKey = (generation: string, list: CountedList): Key => ({
  PK: listPartition(generation, list),
  SK: RETIRED_SK,
});
/**
 * `TAGS` only: the tags a fold changed since their blocks were last written, with their counts and
 * spellings as the fold left them; inside a reader's Query (`#A` to `#X`), so a stream of new tags
 * is folded without rewriting, fold after fold, the blocks they fall in.
 */
export const overlayKey = (generation: string): Key => ({
  PK: listPartition(generation, 'TAGS'),
  SK: OVERLAY_SK,
});
/**
 * `TAGS` only: until when writes that put tags on magazines wait, while the folder is behind on
 * tickets that readers must look tags up for (admission.ts); after every range a reader or folder reads.
 */
export const admissionKey = (generation: string): Key => ({
  PK: listPartition(generation, 'TAGS'),
  SK: ADMISSION_SK,
});
/**
 * `TAGS` only: one tag's count and spellings as the fold that last merged it into its block left
 * them, after the blocks (never in a reader's Query): a reader of `/tags` looks up the tags its
 * tickets name that the overlay does not hold here, a hundred to a call, rather than in their blocks.
 */
export const tagStateKey = (generation: string, tagId: string): Key => ({
  PK: listPartition(generation, 'TAGS'),
  SK: `S#${tagId}`,
});
export const blockKey = (generation: string, list: CountedList, block: string): Key => ({
  PK: listPartition(generation, list),
  SK: `${BLOCK_PREFIX}${block}`,
});

export const bulkKey = (generation: string): Key => ({ PK: `BULK#${generation}`, SK: 'BULK' });

export const articlePartition = (incarnation: string) => `ART#${incarnation}`;
export const articleSeq = (seq: number) => pad(seq, 10);
export const articleKey = (incarnation: string, seq: number): Key => ({
  PK: articlePartition(incarnation),
  SK: articleSeq(seq),
});

/**
 * What a deleted magazine leaves beside it, in the same transaction: the one item its deletion
 * writes (a Delete carries no attributes), in the magazine's own partition, so that the change
 * event it becomes keeps its place among the magazine's others. Cleared by time to live.
 */
export const DELETION_PREFIX = 'DELETED#';
export const deletionKey = (generation: string, id: string, incarnation: string): Key => ({
  PK: `G#${generation}#MAG#${id}`,
  SK: `${DELETION_PREFIX}${incarnation}`,
});

export const idempotencyKey = (hash: string): Key => ({ PK: `IDEM#${hash}`, SK: 'IDEM' });

export const TRASH_PARTITION = 'TRASH';
export const trashKey = (at: number, what: string): Key => ({ PK: TRASH_PARTITION, SK: `${pad(at, 12)}#${what}` });

/**
 * The key templates, as docs/data-model.md writes them: `<x>` is a value, everything else is
 * literal. A test renders each template from its function and compares it with the note's table.
 */
export const keyTemplates = {
  head: headKey,
  guard: guardKey,
  magazine: magazineKey,
  counts: countsKey,
  ticket: ticketKey,
  endMark: endMarkKey,
  overlay: overlayKey,
  directory: directoryKey,
  retired: retiredKey,
  admission: admissionKey,
  block: blockKey,
  tagState: tagStateKey,
  bulk: bulkKey,
  article: articleKey,
  deletion: deletionKey,
  idempotency: idempotencyKey,
  trash: trashKey,
} as const;

/** Attribute names the items carry besides their keys (expressions name them through ExpressionAttributeNames). */
export const attr = {
  /** Head: the current generation. */
  generation: 'generation',
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
  /** Any item a request writes, and a head its bulk write switched: the request id the client saw (change events carry it). */
  requestId: 'requestId',
  /** Head: how many magazines the generation it names was built with, and when it was switched to it (Unix seconds). */
  members: 'members',
  switchedAt: 'switchedAt',
  /** Ticket: its count changes (stored as a block's entries). */
  changes: 'changes',
  /** Ticket: when its write was made (Unix seconds), on tickets older than the time in their sort key. */
  at: 'at',
  /** Counts, end mark, overlay, directory: the number of the fold that wrote them; a tag's state: of its newest state. */
  stamp: 'stamp',
  /** Counts: members, per year (JSON), name spellings (JSON), writes folded, last change. */
  total: 'total',
  years: 'years',
  names: 'names',
  writes: 'writes',
  lastModified: 'lastModified',
  /** Directory: its blocks, their bounds front-coded (items.ts; older directories: JSON). */
  blocks: 'blocks',
  /** Retired list (`#Y`): blocks a fold replaced, kept a while for readers that still hold them (JSON). */
  retired: 'retired',
  /** Directory of `TAGS`: the last tag merged into its blocks (none in them is after it). */
  high: 'high',
  /** Block, overlay: its entries, front-coded, or JSON where they carry spellings (`encodeEntries`, ranked.ts). */
  entries: 'entries',
  /** Overlay: the tags its fold merged into their blocks, their state items not written yet (entries). */
  merged: 'merged',
  /** Overlay: the tags each fold since a floor dropped from it, a filter per fold (fresh-tags.ts). */
  left: 'left',
  /** `TAGS` ticket of a create: its tags whose state items it found missing, and a stamp read before that (fresh-tags.ts). */
  fresh: 'fresh',
  /** Admission: writes that put tags on magazines wait till then (Unix ms). */
  closedUntil: 'closedUntil',
  /** A tag's state: `[[stamp, count, spellings]]` as the fold that last merged it left it (JSON). */
  states: 'states',
  /** Bulk write; a guard's seal. */
  bulkId: 'bulkId',
  target: 'target',
  fingerprint: 'fingerprint',
  stage: 'stage',
  leaseUntil: 'leaseUntil',
  progress: 'progress',
  /** The collection's version when the bulk write sealed it: a build carries on only over the same collection. */
  sealedRevision: 'sealedRevision',
  /** The request that holds the claim now: the same request sent again takes it over, and the other stops. */
  owner: 'owner',
  /** When the owner last took a step (Unix ms; 0 once it stopped): a copy sent again waits while it is recent. */
  beat: 'beat',
  /** Idempotency key. */
  state: 'state',
  result: 'result',
  /** Garbage: what to clean. */
  kind: 'kind',
  /** DynamoDB's time to live (Unix seconds): idempotency keys, finished bulk records, deletion notes. */
  expiresAt: 'expiresAt',
} as const;
