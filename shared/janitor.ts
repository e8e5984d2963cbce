/**
 * The scheduled tasks' composition (as shared/app.ts is the operations'): the janitor bound to
 * the table. Kept apart from app.ts so that its bundle carries no HTTP stack.
 */
import type { Swept } from './db/cleanup';
import { listOfPartition, TICKET_PREFIX } from './db/keys';
import { type ListToFold, tableFolder, tableJanitor } from './db/setup';

/** Clears garbage until `deadline` (Unix ms); the table's client is made once per function instance. */
export const janitor = (): ((deadline: number) => Promise<Swept>) => tableJanitor();

/** Folds the tickets of `lists` until `deadline` (Unix ms); the table's client is made once per function instance. */
export const folder = (): ((lists: readonly ListToFold[], deadline: number) => Promise<number>) => tableFolder();

/**
 * The lists whose partitions a ticket was written to, from the keys of new items (a stream's
 * records), those with the most tickets first: every write leaves one in the collection's list,
 * which every first page reads, while a topic's list gets a few.
 */
export const listsOfNewItems = (keys: readonly { readonly PK: string; readonly SK: string }[]): ListToFold[] => {
  const lists = new Map<string, { readonly list: ListToFold; tickets: number }>();
  for (const { PK, SK } of keys) {
    const list = SK.startsWith(TICKET_PREFIX) ? listOfPartition(PK) : undefined;
    if (!list) continue;
    const seen = lists.get(PK) ?? { list, tickets: 0 };
    seen.tickets++;
    lists.set(PK, seen);
  }
  return [...lists.values()].sort((a, b) => b.tickets - a.tickets).map((seen) => seen.list);
};
