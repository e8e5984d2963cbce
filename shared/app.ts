/**
 * The functions' composition: the HTTP stack bound to its row (shared/routes/api.ts) and to the
 * stores, the table's (shared/db) and the simulated one (shared/mock). Table operations bind here;
 * document operations bind to shared/routes/api.ts directly, so that their bundles carry no AWS SDK.
 */
import { type Bindings, onTable, sidesOf } from './bindings';
import { cursorKey } from './cursor-key';
import { tableAccessOf } from './db/setup';
import type { Store } from './domain/store';
import type { Definition } from './http/api';
import { type ListPaging, listPaging } from './http/paging';
import type { TableOperation } from './operation/row';
import { type RowOf, api as routeApi } from './routes/api';
import { STORE_MARGIN_MS } from './timing';

const bind = async <Row extends TableOperation, K extends keyof Store>(
  row: Row,
  { store, ...definition }: Definition<RowOf<Row>, Pick<Store, K>> & { readonly store: Bindings<K> },
  list: { readonly key: () => Promise<string>; readonly paging: ListPaging } | undefined,
) => {
  const key = list?.key;
  if (Boolean(row.list) !== Boolean(key))
    throw new Error(`${row.id}: a list operation binds with listApi (it signs cursors), any other with api.`);
  // A batch where the grant has one: every operation granted BatchGetItem reads with it (the head with
  // the rest, in readInGeneration), and one that is not reads the head alone.
  const headRead = row.actions.includes('BatchGetItem') ? 'BatchGetItem' : 'GetItem';
  // A list's cursor key is read beside the table's first call, so that a cold start waits for the slower of the two only.
  const [access] = await Promise.all([tableAccessOf(row.id, headRead), key?.().catch(() => undefined)]);
  const { table, mock } = sidesOf(store);
  return routeApi<Row, Pick<Store, K>>(row, {
    ...definition,
    // The table's calls give up STORE_MARGIN_MS before the function's timeout, so that a 503 still goes out.
    stores: { real: (remainingMs) => onTable(table, access(Date.now() + remainingMs - STORE_MARGIN_MS)), mock },
    ...(list && { paging: list.paging }),
  });
};

/**
 * `export const handler = await api(row, { store: { getMagazine }, run })`: the operation's row
 * (shared/routes/rows/get-magazine.ts), the store operations it uses (from shared/bindings.ts),
 * and the shared stack.
 * Awaited at the top of the handler module, so that setting up the table's client happens in the
 * function's init phase rather than in its first request.
 */
export const api = <Row extends TableOperation, K extends keyof Store>(
  row: Row,
  definition: Definition<RowOf<Row>, Pick<Store, K>> & { readonly store: Bindings<K> },
) => bind(row, definition, undefined);

/**
 * `api` for a list, which signs and checks cursors: its key (shared/cursor-key.ts) is read during
 * the init phase too. Only the list functions' bundles carry the Secrets Manager client this way
 * (14.5 KB minified, measured with `npm run bundle`), and the cursors (shared/http/paging.ts).
 */
export const listApi = <Row extends TableOperation, K extends keyof Store>(
  row: Row,
  definition: Definition<RowOf<Row>, Pick<Store, K>> & { readonly store: Bindings<K> },
) => bind(row, definition, { key: cursorKey, paging: listPaging(cursorKey) });
