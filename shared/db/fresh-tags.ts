/**
 * Tags a `/tags` reader need not look up. A create marks its `TAGS` ticket's tags whose state
 * items its read found missing as fresh, with a stamp of `TAGS`'s end mark that an earlier read,
 * finished before that one began, found (tickets.ts: not the stamp of the same read). A fold of
 * `TAGS` drops from the overlay only tags whose state items are written, and notes them in the
 * overlay (`left`: a filter per fold); so every fold that drops a fresh tag has a stamp above the
 * ticket's. A fresh tag outside the snapshot's overlay that no fold after the ticket's stamp
 * dropped was in no block at the snapshot: at zero, with nothing to read. Under a stream of scattered new
 * tags those are most of a reader's lookups (docs/data-model.md, "How counts stay exact").
 */

/** A ticket's fresh tags (no state item when its create read them), and a stamp found before that read began. */
export interface Fresh {
  readonly stamp: number;
  readonly ids: readonly string[];
}

/** The tags each fold dropped from the overlay since `floor` (every fold from `floor` on is here, or dropped none). */
export interface Left {
  readonly floor: number;
  readonly filters: readonly { readonly stamp: number; readonly bits: Uint8Array }[];
}

// ---------------------------------------------------------------------------------------------
// A Bloom filter per fold: a tag it did not drop is found in it about once in a hundred (a lookup
// more, never a wrong count); 400 dropped tags take 500 bytes.

const BITS_PER_TAG = 10;
const HASHES = 7;

/** Two FNV-1a hashes of the id's UTF-16 units (different offset bases), for double hashing. */
const hashes = (key: string): [number, number] => {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < key.length; i++) {
    const unit = key.charCodeAt(i);
    a = Math.imul(a ^ unit, 0x01000193);
    b = Math.imul(b ^ unit, 0x01000193) ^ (b >>> 13);
  }
  return [a >>> 0, (b | 1) >>> 0];
};

const positions = (key: string, bits: number) => {
  const [a, b] = hashes(key);
  return Array.from({ length: HASHES }, (_, i) => ((a + Math.imul(i, b)) >>> 0) % bits);
};

export const filterOf = (keys: readonly string[]): Uint8Array => {
  const bytes = new Uint8Array(Math.max(8, Math.ceil((keys.length * BITS_PER_TAG) / 8)));
  const bits = bytes.length * 8;
  for (const key of keys)
    for (const bit of positions(key, bits)) bytes[bit >>> 3] = (bytes[bit >>> 3] ?? 0) | (1 << (bit & 7));
  return bytes;
};

export const mayHold = (filter: Uint8Array, key: string) => {
  const bits = filter.length * 8;
  return positions(key, bits).every((bit) => ((filter[bit >>> 3] ?? 0) & (1 << (bit & 7))) !== 0);
};

// ---------------------------------------------------------------------------------------------
// Stored forms. A ticket's `fresh` names its tags by their place among its changes, whose ids it
// would otherwise repeat (every `/tags` read reads every waiting ticket): `<stamp>` when all of
// them are fresh, else `<stamp> <mask>`, a base-36 bit mask of their places (a create changes at
// most 32). The overlay's `left` is `<floor>;<stamp>:<filter, base64url>;…`.

const MASK_MOST = 53;

/** Undefined when nothing is to be stored: no fresh tag among `keys`, or more than a mask holds. */
export const encodeFresh = (fresh: Fresh, keys: readonly string[]): string | undefined => {
  const ids = new Set(fresh.ids);
  const places = keys.flatMap((key, place) => (ids.has(key) ? [place] : []));
  if (places.length === 0) return undefined;
  if (places.length === keys.length) return String(fresh.stamp);
  if (keys.length > MASK_MOST) return undefined;
  return `${fresh.stamp} ${places.reduce((mask, place) => mask + 2 ** place, 0).toString(36)}`;
};

/**
 * The ticket's fresh tags among its `changes`; undefined for anything but the stored form (looked
 * up as any other). Every list's reader decodes every ticket, and only a create's `TAGS` ticket
 * carries marks: nothing else is worked out for the others.
 */
export const decodeFresh = (text: unknown, changes: readonly { readonly key: string }[]): Fresh | undefined => {
  if (typeof text !== 'string') return undefined;
  const keys = changes.map((change) => change.key);
  const [stamp, mask, ...rest] = text.split(' ');
  const value = Number(stamp);
  if (!/^\d{1,15}$/.test(stamp ?? '') || rest.length > 0) return undefined;
  if (mask !== undefined && !/^[0-9a-z]{1,11}$/.test(mask)) return undefined;
  const bits = mask === undefined ? undefined : Number.parseInt(mask, 36);
  const ids = keys.filter((_, place) => bits === undefined || Math.floor(bits / 2 ** place) % 2 === 1);
  return ids.length > 0 ? { stamp: value, ids } : undefined;
};

export const encodeLeft = (left: Left) =>
  [String(left.floor), ...left.filters.map((f) => `${f.stamp}:${Buffer.from(f.bits).toString('base64url')}`)].join(';');

export const decodeLeft = (text: unknown): Left | undefined => {
  if (typeof text !== 'string' || !/^\d{1,15}(;\d{1,15}:[\w-]+)*$/.test(text)) return undefined;
  const [floor, ...parts] = text.split(';');
  const filters = parts.map((part) => {
    const [stamp, bits] = part.split(':');
    return { stamp: Number(stamp), bits: new Uint8Array(Buffer.from(bits ?? '', 'base64url')) };
  });
  return { floor: Number(floor), filters };
};

// ---------------------------------------------------------------------------------------------
// The folder's side

/** The bytes of filters an overlay keeps at most: every `/tags` read reads them. */
export const LEFT_MOST_BYTES = 3 * 1024;

/**
 * Folds whose filters a fold that leaves no ticket waiting keeps, for creates in flight: their stamp
 * is from their instance's read before theirs, a request or more ago (folds come every 250 ms or more).
 */
const CAUGHT_UP_KEEPS = 8;

/**
 * `left` after fold `stamp`, which drops `dropped` and leaves `waiting` (the tickets it read and did
 * not take): its filter added, LEFT_MOST_BYTES at most (oldest left out first), and the floor raised
 * past the filters no ticket needs: those at or before the smallest stamp of the fresh tickets
 * waiting; with tickets but none fresh among them, none (later ones, unread, may need any); with
 * none waiting, all but the last CAUGHT_UP_KEEPS folds'. A fold that read an overlay without `left`
 * (written by an older folder) notes from its own stamp on.
 */
export const leftAfter = (
  before: Left | undefined,
  stamp: number,
  dropped: readonly string[],
  waiting: readonly { readonly fresh?: Fresh | undefined }[],
): Left => {
  const stamps = waiting.flatMap((ticket) => (ticket.fresh ? [ticket.fresh.stamp] : []));
  const needed = stamps.length > 0 ? Math.min(...stamps) + 1 : waiting.length > 0 ? 0 : stamp - CAUGHT_UP_KEEPS + 1;
  let floor = Math.max(before?.floor ?? stamp, needed);
  const filters = [
    ...(before?.filters ?? []),
    ...(dropped.length > 0 ? [{ stamp, bits: filterOf(dropped) }] : []),
  ].filter((f) => f.stamp >= floor);
  let bytes = filters.reduce((sum, f) => sum + f.bits.length, 0);
  while (bytes > LEFT_MOST_BYTES) {
    const oldest = filters.shift();
    if (!oldest) break;
    bytes -= oldest.bits.length;
    floor = oldest.stamp + 1;
  }
  return { floor: Math.min(floor, stamp + 1), filters };
};

// ---------------------------------------------------------------------------------------------
// The reader's side

/**
 * The tags the tickets prove at zero as of the snapshot's fold: a tag a fresh ticket names, if
 * `left` covers every fold after the ticket's stamp and none of them may have dropped it.
 */
export const provenNew = (
  tickets: readonly { readonly fresh?: Fresh | undefined }[],
  left: Left | undefined,
): Set<string> => {
  const proven = new Set<string>();
  if (!left) return proven;
  // The latest stamp any fresh ticket gives a tag: each one alone proves it, the latest most often.
  const since = new Map<string, number>();
  for (const { fresh } of tickets)
    if (fresh) for (const id of fresh.ids) since.set(id, Math.max(since.get(id) ?? -1, fresh.stamp));
  for (const [id, stamp] of since)
    if (stamp + 1 >= left.floor && !left.filters.some((f) => f.stamp > stamp && mayHold(f.bits, id))) proven.add(id);
  return proven;
};
