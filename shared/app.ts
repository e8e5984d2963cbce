/**
 * The functions' composition: the HTTP stack (shared/http) bound to the stores, the table's
 * (shared/db) and the simulated one (shared/mock). Table operations bind here; document
 * operations bind to shared/http/api.ts directly, so that their bundles carry no AWS SDK.
 */
import { tableStore } from './db/store';
import { type Definition, api as httpApi } from './http/api';
import { mockStore } from './mock/store';
import type { TableOperationId } from './routes';

/**
 * `export const handler = await api('getMagazine', { run })`: the operation's row, its stores, and
 * the shared stack. Awaited at the top of the handler module, so that setting up the table's
 * client happens in the function's init phase rather than in its first request.
 */
export const api = async <Id extends TableOperationId>(id: Id, definition: Definition<Id>) =>
  httpApi(id, { ...definition, stores: { real: await tableStore(id), mock: mockStore } });
