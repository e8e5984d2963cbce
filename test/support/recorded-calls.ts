import type { CapacitySum, RecordedCall } from './fault-types';

/** Summaries of the calls the fault proxy recorded (dynamodb-faults.ts). */

const sum = (calls: readonly RecordedCall[]): CapacitySum => ({
  calls: calls.length,
  readCapacityUnits: calls.reduce((total, call) => total + call.readCapacityUnits, 0),
  writeCapacityUnits: calls.reduce((total, call) => total + call.writeCapacityUnits, 0),
  responseBytes: calls.reduce((total, call) => total + call.responseBytes, 0),
});

/** Capacity consumed, and response bytes, over the calls. */
export const sumCapacity = (calls: readonly RecordedCall[]): CapacitySum => sum(calls);

/** `{ PutItem: 2, Query: 1 }`. */
export const countByOperation = (calls: readonly RecordedCall[]): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const call of calls) counts[call.operation] = (counts[call.operation] ?? 0) + 1;
  return counts;
};

/** `sumCapacity` per operation. */
export const capacityByOperation = (calls: readonly RecordedCall[]): Record<string, CapacitySum> =>
  Object.fromEntries(
    Object.keys(countByOperation(calls)).map((operation) => [
      operation,
      sum(calls.filter((call) => call.operation === operation)),
    ]),
  );
