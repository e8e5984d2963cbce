import { magazineTagsForm, storeConfig } from '../config';
import { type Swept, sweep } from './cleanup';
import { createDocumentClient } from './client';
import { foldLists } from './folder';
import { type HeadRead, readGeneration } from './generation';
import type { CountedList } from './keys';
import { type TableAccess, tableAccess } from './table-access';

/**
 * The table's access for one operation's function, for one request by its deadline (Unix ms), on
 * a client made once, in the function's init phase: the store settings are read, the client is
 * set up and its first call (credentials, endpoint, signer, connection; the head of the
 * collection) is made before the first request arrives. `await` it at the top of the handler module.
 * `headRead` is the command the operation's requests read with: the SDK sets each command up on
 * its first use (~5 ms cold), so the init read made with another would leave that to the first request.
 */
export const tableAccessOf = async (
  operation: string,
  headRead: HeadRead,
): Promise<(deadline: number) => TableAccess> => {
  const { tableName } = storeConfig();
  // Read now, so that a bad setting fails the cold start, not a write halfway (a bulk write seals first).
  magazineTagsForm();
  const client = createDocumentClient({ operation });
  // Best effort: a cold start that cannot reach the table yet still serves, and fails in form on the request.
  await readGeneration(tableAccess(client, tableName, Date.now() + 2_000), headRead).catch(() => undefined);
  return (deadline) => tableAccess(client, tableName, deadline);
};

/**
 * The janitor's work on the table, on a client made once per function instance: clears the
 * garbage requests left (the articles of deleted magazines, replaced generations) until
 * `deadline` (Unix ms).
 */
export const tableJanitor = (): ((deadline: number) => Promise<Swept>) => {
  const { tableName } = storeConfig();
  const client = createDocumentClient({ operation: 'sweepGarbage' });
  return (deadline) => sweep(tableAccess(client, tableName, deadline), deadline - Date.now());
};

/** A list whose partition holds tickets to fold. */
export interface ListToFold {
  readonly generation: string;
  readonly list: CountedList;
}

/**
 * The folder's work on the table, on a client made once per function instance: folds the tickets
 * of `lists` (those the table's stream named) until `deadline` (Unix ms); how many it folded.
 */
export const tableFolder = (): ((lists: readonly ListToFold[], deadline: number) => Promise<number>) => {
  const { tableName } = storeConfig();
  const client = createDocumentClient({ operation: 'foldCounts' });
  return (lists, deadline) => foldLists(tableAccess(client, tableName, deadline), lists);
};
