/**
 * Load made the way users make it, and the cost of reading under it: POSTs to the API over HTTP
 * from concurrent clients, and list pages measured by the DynamoDB calls their request caused, as
 * the proxy in front of DynamoDB saw them (test/support/dynamodb-faults.ts). Used by
 * `npm run bench:scale` (bench/scale.ts) and by test/integration/counts-under-load.test.ts; its
 * parts are in the modules it re-exports.
 *
 * Nothing here reaches into the table except `pendingCountItems` (its own module): whatever the
 * data layer does, it is measured from outside.
 */
export * from './call-ledger';
export * from './load-data';
export * from './load-http';
export * from './load-pages';
export * from './load-writers';

/** Pending count work over time. */

export interface PendingPoint {
  readonly ms: number;
  readonly pending: number;
}

/** Reads `pending()` every `everyMs` until stopped, timed from `origin` (a `performance.now()`); a read that fails is skipped. */
export const trackPending = (pending: () => Promise<number>, everyMs: number, origin = performance.now()) => {
  const started = origin;
  const points: PendingPoint[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const at = performance.now() - started;
      const value = await pending().catch(() => undefined);
      if (value !== undefined) points.push({ ms: at, pending: value });
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    points,
    stop: async () => {
      running = false;
      await loop;
      return points;
    },
  };
};

/**
 * Reads `pending()` every `everyMs` until it is at or under `bound`, for at most `withinMs`, with no
 * request to the API meanwhile: whatever brings it down must do so by itself.
 */
export const settlePending = async (
  pending: () => Promise<number>,
  bound: number,
  withinMs: number,
  everyMs = 250,
): Promise<{ readonly settled: boolean; readonly ms: number; readonly points: PendingPoint[] }> => {
  const started = performance.now();
  const points: PendingPoint[] = [];
  for (;;) {
    const ms = performance.now() - started;
    const value = await pending();
    points.push({ ms, pending: value });
    if (value <= bound) return { settled: true, ms, points };
    if (ms >= withinMs) return { settled: false, ms, points };
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
};
