/**
 * The stack (shared/http/api.ts) bound to a row of the route table: `api(row, { run })`, with the
 * row the handler imports from its own module (rows/<handler>.ts), so a handler's input is typed by
 * its row's schemas and its bundle carries no other row. Operations that use the table bind through
 * shared/app.ts, which adds their stores; the others bind here, so that their bundles carry no AWS
 * SDK. The 404 and 405 serve no operation and bind by their fallback's id.
 */
import type { Store } from '../domain/store';
import { type Bound, type Definition, api as stack } from '../http/api';
import type { Operation } from '../operation/row';
import type { FallbackId } from './table';

/** The row a binding serves; none for the 404 and 405. */
export type RowOf<B extends Operation | FallbackId> = B extends Operation ? B : undefined;

export const api = <B extends Operation | FallbackId, S extends Partial<Store> = Store>(
  binding: B,
  definition: Definition<RowOf<B>, S> & Bound<S>,
) => {
  // TypeScript does not narrow `B` by the check, so it cannot see that the row is `RowOf<B>`.
  const operation = (typeof binding === 'string' ? undefined : binding) as RowOf<B>;
  return stack<RowOf<B>, S>(typeof binding === 'string' ? binding : binding.id, operation, definition);
};
