import { config } from '../../config';
import type { Store } from '../../domain/store';
import { ApiError } from '../errors';
import { type ApiMiddleware, stateOf } from './state';

/**
 * The stores an operation can be given: the table's (for one request, given the time its function
 * has left), and the simulated one of the testing server; each holds the operations of `Store` its
 * handler uses.
 */
export interface Stores<S extends Partial<Store> = Store> {
  readonly real: (remainingMs: number) => S;
  readonly mock: S;
}

const parseMock = (value: string | undefined): boolean => {
  if (value === undefined) return false;
  const lower = value.toLowerCase();
  if (lower === '' || lower === 'true' || lower === '1') {
    if (!config().mockEnabled) throw new ApiError('40006');
    return true;
  }
  if (lower === 'false' || lower === '0') return false;
  throw new ApiError(
    '40005',
    `The \`mock\` query parameter accepts \`True\`, \`1\` or no value (mock on), and \`False\` or \`0\` (mock off); got \`${value}\`.`,
  );
};

/**
 * Reads `mock` and gives the operation its store: the table's, or the mock store that answers
 * from simulated data and never touches the table. The operation is the same either way, so a
 * mock request is checked, serialised and cached exactly as a real one. Operations that never
 * touch the table (documents, 404, 405) get no store and answer mock requests as real ones;
 * the 404 and 405 (`reads: false`) do not read `mock` at all.
 */
export const mockSwitch = (stores: Stores<Partial<Store>> | undefined, reads = true): ApiMiddleware => ({
  before: (request) => {
    const state = stateOf(request);
    // The 404 and 405 are no operation: `mock` changes nothing about them, and a bad value of it must not hide them.
    if (!reads) return;
    state.mock = parseMock(request.event.queryStringParameters?.mock ?? undefined);
    if (!stores) return;
    state.store = state.mock ? stores.mock : stores.real(request.context.getRemainingTimeInMillis());
  },
});
