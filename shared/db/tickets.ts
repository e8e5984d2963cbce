import type { Magazine } from '../domain/magazine';
import type { TagRef } from '../domain/tag';
import { countChanges } from './counts';
import { encodeFresh, type Fresh } from './fresh-tags';
import type { GenerationRead } from './generation';
import { decodeStamp, encodeDeltas } from './items';
import { attr, endMarkKey, type Key, tagStateKey, ticketKey } from './keys';
import type { TransactItem } from './transaction';

/**
 * The tickets of a write; and a create's side of fresh tags (fresh-tags.ts): it reads `TAGS`'s end
 * mark and its tags' state items in the BatchGetItem it starts with (a read unit each, no call more).
 *
 * The stamp a ticket carries is not the one that read found but one that an earlier read of this
 * instance, finished before that read began, found. A fold drops a tag only after the tag's state
 * item is written, and this read found none: so every fold that drops it commits after this read
 * began, after the earlier read finished, and its stamp is above the earlier read's. The stamp of
 * the same read would not do: within one BatchGetItem, the end mark may be read after a fold that
 * the state item's read came before. (Checking in the transaction that the state items are still
 * missing would make it sound too, but a tag in many creates at once, before its first merge, would
 * be one item in all their transactions: a conflict in most.)
 */

/** Per table and generation, the latest stamp of `TAGS`'s end mark a finished read of this instance found. */
const seen = new Map<string, number>();

/**
 * A create's marks, read by read: `keys` (what a read must get, called as it is made) takes the
 * stamp the reads finished before it found; `noted` records what a read found; `marks` are the fresh
 * tags of the last read, with the stamp taken before it. A create held back by `TAGS`'s admission
 * reads again and again: each read's stamp serves the next one, not the wait's first. Only tags at
 * or before the end mark's `high`, the last tag merged into a block, are marked: a reader looks up
 * no other (nor any while `TAGS` has no block, and no `high`).
 */
export const freshMarker = (tableName: string) => {
  let before: number | undefined;
  const listOf = (generation: string) => `${tableName} ${generation}`;
  return {
    keys: (generation: string, tags: readonly TagRef[]): Key[] => {
      before = seen.get(listOf(generation));
      return [endMarkKey(generation, 'TAGS'), ...tags.map((tag) => tagStateKey(generation, tag.id))];
    },
    noted: (read: GenerationRead) => {
      seen.set(listOf(read.generation), decodeStamp(read.items.get(endMarkKey(read.generation, 'TAGS'))));
    },
    marks: (read: GenerationRead, tags: readonly TagRef[]): Fresh | undefined => {
      const { generation, items } = read;
      const end = items.get(endMarkKey(generation, 'TAGS'));
      const high = end?.[attr.high];
      // Above what this read found: not the table the earlier read was of (made again under its name).
      if (before === undefined || before > decodeStamp(end) || typeof high !== 'string') return undefined;
      const ids = [...new Set(tags.map((tag) => tag.id))].filter(
        (id) => id <= high && !items.get(tagStateKey(generation, id)),
      );
      return ids.length > 0 ? { stamp: before, ids } : undefined;
    },
  };
};

/**
 * The tickets of one write, for its transaction: one per list it changes (see `countChanges`), each
 * in that list's own partition, so that no two writes share an item and each list's readers read
 * only their own list's tickets.
 */
export const ticketPuts = (
  tableName: string,
  generation: string,
  before: Magazine | undefined,
  after: Magazine | undefined,
  token: string,
  now = Date.now(),
  /** A create's tags with no state item (fresh-tags.ts), noted on its `TAGS` ticket. */
  fresh?: Fresh,
): TransactItem[] =>
  [...countChanges(before, after)].map(([list, deltas]) => {
    const marks =
      list === 'TAGS' && fresh
        ? encodeFresh(
            fresh,
            deltas.map((delta) => delta.key),
          )
        : undefined;
    return {
      Put: {
        TableName: tableName,
        Item: {
          ...ticketKey(generation, list, now, token),
          [attr.changes]: encodeDeltas(deltas),
          ...(marks !== undefined && { [attr.fresh]: marks }),
        },
      },
    };
  });
