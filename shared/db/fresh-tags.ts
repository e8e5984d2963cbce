/**
 * Tags a `/tags` reader need not look up. A create marks its `TAGS` ticket's tags that have no
 * state item as fresh, with the stamp of `TAGS`'s last fold as it read it, and its transaction
 * checks that those state items are still missing. A fold of `TAGS` drops from the overlay only
 * tags whose state items are written, and notes them in the overlay (`left`: a filter per fold).
 * So a fresh tag outside the snapshot's overlay that no fold after the ticket's stamp dropped was
 * in no block at the snapshot: at zero, with nothing to read. Under a stream of scattered new
 * tags those are most of a reader's lookups (docs/data-model.md, "How counts stay exact").
 */

/** A ticket's fresh tags: no state item when its write committed, `stamp` of `TAGS`'s last fold before. */
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
// Stored forms: a ticket's `fresh` is `<stamp> <id> <id>…` (an id holds no space); the overlay's
// `left` is `<floor>;<stamp>:<filter, base64url>;…`.

export const encodeFresh = (fresh: Fresh) => [String(fresh.stamp), ...fresh.ids].join(' ');

/** Undefined for anything but the stored form: a ticket read that way is looked up as any other. */
export const decodeFresh = (text: unknown): Fresh | undefined => {
  if (typeof text !== 'string') return undefined;
  const [stamp, ...ids] = text.split(' ');
  const value = Number(stamp);
  return Number.isSafeInteger(value) && value >= 0 && ids.length > 0 ? { stamp: value, ids } : undefined;
};

export const encodeLeft = (left: Left) =>
  [String(left.floor), ...left.filters.map((f) => `${f.stamp}:${Buffer.from(f.bits).toString('base64url')}`)].join(';');

export const decodeLeft = (text: unknown): Left | undefined => {
  if (typeof text !== 'string') return undefined;
  const [floor, ...parts] = text.split(';');
  const filters = parts.map((part) => {
    const [stamp, bits] = part.split(':');
    return { stamp: Number(stamp), bits: new Uint8Array(Buffer.from(bits ?? '', 'base64url')) };
  });
  const valid = (n: number) => Number.isSafeInteger(n) && n >= 0;
  if (!valid(Number(floor)) || filters.some((f) => !valid(f.stamp) || f.bits.length === 0)) return undefined;
  return { floor: Number(floor), filters };
};

// ---------------------------------------------------------------------------------------------
// The folder's side

/** The bytes of filters an overlay keeps at most: every `/tags` read reads them. */
export const LEFT_MOST_BYTES = 3 * 1024;

/**
 * `left` after fold `stamp`, which drops `dropped`: its filter added, and those of folds no
 * pending fresh ticket needs (at or before `oldestFresh`, the smallest stamp of the fresh tickets
 * the fold leaves) or past LEFT_MOST_BYTES (oldest first) left out, the floor raised past them. A
 * fold that read an overlay without `left` (a list new to it) notes from its own stamp on.
 */
export const leftAfter = (
  before: Left | undefined,
  stamp: number,
  dropped: readonly string[],
  oldestFresh: number | undefined,
): Left => {
  let floor = before?.floor ?? stamp;
  if (oldestFresh !== undefined) floor = Math.max(floor, oldestFresh + 1);
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
  return { floor, filters };
};

/** The smallest stamp of the fresh tickets among `tickets`. */
export const oldestFresh = (tickets: readonly { readonly fresh?: Fresh | undefined }[]): number | undefined => {
  const stamps = tickets.flatMap((ticket) => (ticket.fresh ? [ticket.fresh.stamp] : []));
  return stamps.length > 0 ? Math.min(...stamps) : undefined;
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
