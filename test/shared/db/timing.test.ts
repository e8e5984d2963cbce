import { describe, expect, it } from 'vitest';
import type { Operation } from '../../../shared/operation/row';
import { DEFAULT_TIMEOUT_SECONDS, type OperationId, operations, timeoutSecondsOf } from '../../../shared/routes/table';
import { LONGEST_REQUEST_MS, ORDINARY_REQUEST_MS } from '../../../shared/timing';

/** The timing module checks its rules when it loads; what it assumes of the functions' timeouts is checked here. */
describe('the timing rules of the data layer', () => {
  const withTable = (operations as readonly Operation[]).filter((operation) => operation.actions.length > 0);

  it('take the longest request to be the longest timeout of an operation that uses the table', () => {
    expect(Math.max(...withTable.map((operation) => timeoutSecondsOf(operation.handler))) * 1000).toBe(
      LONGEST_REQUEST_MS,
    );
  });

  it('take an ordinary write to run at most the default timeout', () => {
    expect(ORDINARY_REQUEST_MS).toBe(DEFAULT_TIMEOUT_SECONDS * 1000);
    // The single writes, which read the head and commit within a switch's margin: every write but the bulk ones.
    const single = new Set<OperationId>(['createMagazine', 'createArticle', 'replaceMagazine', 'deleteMagazine']);
    const writes = withTable.filter(
      (operation) => operation.method !== 'GET' && !operation.id.endsWith('AllMagazines'),
    );
    expect(writes.map((operation) => operation.id).sort()).toEqual([...single].sort());
    for (const operation of writes)
      expect(timeoutSecondsOf(operation.handler) * 1000).toBeLessThanOrEqual(ORDINARY_REQUEST_MS);
  });
});
