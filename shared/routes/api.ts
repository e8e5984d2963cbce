/**
 * The stack (shared/http/api.ts) bound to the route table: `api('getOpenApi', { run })` finds the
 * row by its typed id, so a handler's input is typed by its row's schemas. Operations that use the
 * table bind through shared/app.ts, which adds their stores; the others bind here, so that their
 * bundles carry no AWS SDK.
 */
import type { Store } from '../domain/store';
import { type Bound, type Definition, api as stack } from '../http/api';
import { type FallbackId, type OperationId, type OperationOf, operationById } from './table';

/** The row of an id; the 404 and 405 serve no operation. */
export type RowOf<Id extends OperationId | FallbackId> = Id extends OperationId ? OperationOf<Id> : undefined;

export const api = <Id extends OperationId | FallbackId, S extends Partial<Store> = Store>(
  id: Id,
  definition: Definition<RowOf<Id>, S> & Bound<S>,
) => {
  const fallback = id === 'notFound' || id === 'methodNotAllowed';
  // TypeScript does not narrow `Id` by the check above, so it cannot see that the row is `RowOf<Id>`.
  const operation = (fallback ? undefined : operationById(id as OperationId)) as RowOf<Id>;
  return stack<RowOf<Id>, S>(id, operation, definition);
};
