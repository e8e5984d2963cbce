import { logger } from '../logger';
import { GUARDS_KEPT_MS } from '../timing';
import { netted } from './counts';
import { decodeBlock, decodeMagazine } from './items';
import {
  articlePartition,
  attr,
  blockKey,
  bulkKey,
  type CountedList,
  GUARD_COUNT,
  guardKey,
  idOfPosition,
  type Key,
  listPartition,
  magazineKey,
  TRASH_PARTITION,
  tagList,
  trashKey,
} from './keys';
import { readList } from './lists';
import { withDeltas } from './ranked';
import type { Item, TableAccess } from './table-access';
import { type TransactItem, writeMany } from './table-writes';
import { withOverlay } from './tag-states';

/**
 * Garbage and its removal. What no reader can reach any more, the articles of a deleted magazine
 * and the generation a bulk write replaced, is noted in the `TRASH` partition in the same
 * transaction that makes it unreachable, then deleted as time allows: by the request that made it
 * (within its deadline), by later bulk writes, which each take some of it, and by the janitor
 * (functions/sweep-garbage.ts), which a schedule runs whether or not anyone writes.
 */

type Trash =
  | { readonly kind: 'articles'; readonly incarnation: string }
  | { readonly kind: 'generation'; readonly generation: string; readonly successor: string };

const nameOf = (trash: Trash) => (trash.kind === 'articles' ? `A#${trash.incarnation}` : `G#${trash.generation}`);

/** The note of some garbage, to write in the transaction that makes it unreachable, and its key. */
export const trashEntry = (tableName: string, trash: Trash): { readonly put: TransactItem; readonly key: Key } => {
  const key = trashKey(Math.floor(Date.now() / 1000), nameOf(trash));
  return { key, put: { Put: { TableName: tableName, Item: { ...key, ...trash } } } };
};

const keysOf = (items: readonly Item[]): Key[] => items.map((item) => ({ PK: String(item.PK), SK: String(item.SK) }));

const deletePartition = async (access: TableAccess, pk: string) => {
  await writeMany(access, [], keysOf(await access.partition(pk, true)));
};

/** Deletes every article of an incarnation. */
export const deleteArticles = (access: TableAccess, incarnation: string) =>
  deletePartition(access, articlePartition(incarnation));

/**
 * Deletes a generation a bulk write replaced: its magazines (and the articles of those the
 * successor did not keep), its lists, counts, tags and guards.
 */
class OutOfTime extends Error {}

/** The rest of this garbage must wait (a replaced generation's guards); the sweep goes on to the next. */
class NotYet extends Error {}

/** Every member key of a list of a generation no one reads any more: its blocks' and its tickets'. */
const membersOf = async (access: TableAccess, generation: string, list: CountedList): Promise<string[]> => {
  const snapshot = await readList(access, generation, list, { directory: true, garbage: true });
  const read = await access.getMany(snapshot.directory.blocks.map((block) => blockKey(generation, list, block.id)));
  // A `TAGS` overlay's tags may be in no block yet.
  const folded = withOverlay([...read.values()].flatMap(decodeBlock), snapshot.overlay ?? []);
  return withDeltas(folded, netted(snapshot.tickets.flatMap((ticket) => ticket.deltas)), true).map(
    (entry) => entry.key,
  );
};

const deleteGeneration = async (
  access: TableAccess,
  generation: string,
  successor: string,
  switchedAt: number,
  until: number,
) => {
  const inTime = () => {
    if (Date.now() > until) throw new OutOfTime();
  };
  const ids = (await membersOf(access, generation, 'ALL')).map(idOfPosition);
  const [old, kept] = await Promise.all([
    access.getMany(ids.map((id) => magazineKey(generation, id))),
    access.getMany(ids.map((id) => magazineKey(successor, id))),
  ]);
  const keptIncarnations = new Set([...kept.values()].map((item) => decodeMagazine(item).incarnation));
  for (const item of old.values()) {
    inTime();
    const { incarnation, articles } = decodeMagazine(item);
    if (articles > 0 && !keptIncarnations.has(incarnation)) await deleteArticles(access, incarnation);
  }
  const tags = await membersOf(access, generation, 'TAGS');
  for (const tag of tags) {
    inTime();
    await deletePartition(access, listPartition(generation, tagList(tag)));
  }
  await writeMany(
    access,
    [],
    ids.map((id) => magazineKey(generation, id)),
  );
  // The lists of all magazines and of tags last: a sweep cut short finds through them what it has not reached yet.
  for (const pk of [listPartition(generation, 'TAGS'), listPartition(generation, 'ALL')]) {
    inTime();
    await deletePartition(access, pk);
  }
  // The guards stay sealed until every write that read the head before the switch is long over.
  if (Date.now() - switchedAt * 1000 < GUARDS_KEPT_MS) throw new NotYet();
  await writeMany(
    access,
    [],
    [...Array.from({ length: GUARD_COUNT }, (_, guard) => guardKey(generation, guard)), bulkKey(generation)],
  );
};

/** What a sweep did: the notes of garbage it cleared, and whether it stopped with some left. */
export interface Swept {
  readonly cleared: number;
  readonly left: boolean;
}

/** Takes garbage from the `TRASH` partition and deletes it, oldest first, while `budgetMs` lasts. */
export const sweep = async (access: TableAccess, budgetMs: number): Promise<Swept> => {
  const until = Date.now() + budgetMs;
  let cleared = 0;
  let waiting = false;
  let start: Key | undefined;
  do {
    const page = await access.query({
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': 'PK' },
      ExpressionAttributeValues: { ':pk': TRASH_PARTITION },
      Limit: 25,
      ...(start && { ExclusiveStartKey: start }),
    });
    for (const item of page.items) {
      if (Date.now() > until || access.remaining() < 2_000) return { cleared, left: true };
      try {
        if (item[attr.kind] === 'articles') await deleteArticles(access, String(item.incarnation));
        else
          await deleteGeneration(
            access,
            String(item.generation),
            String(item.successor),
            Number(String(item.SK).slice(0, 12)),
            until,
          );
        await writeMany(access, [], [{ PK: String(item.PK), SK: String(item.SK) }]);
        cleared++;
      } catch (error) {
        if (error instanceof NotYet) {
          waiting = true;
          continue;
        }
        if (!(error instanceof OutOfTime))
          logger.warn('Garbage left for a later sweep', { error, what: String(item.SK) });
        return { cleared, left: true };
      }
    }
    start = page.next;
  } while (start);
  return { cleared, left: waiting };
};

/** The articles of a deleted magazine, now, if the request has the time; the sweep takes them otherwise. */
export const finishArticles = async (access: TableAccess, incarnation: string, trash: Key) => {
  if (access.remaining() < 3_000) return;
  try {
    await deleteArticles(access, incarnation);
    await writeMany(access, [], [trash]);
  } catch {
    // Left for the sweep: the articles are unreachable already.
  }
};
