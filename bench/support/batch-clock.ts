import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * The clock of a paired job's batches (bench/support/runner.ts). Each batch pays for its own
 * garbage and its calls' last callbacks, never for the other arm's: charged with the whole
 * process's CPU and the other arm's leftovers, an A/A pair (one case in both arms) read 0.58–1.79
 * by the order of the batches alone; so, 0.94–1.06 (docs/benchmarks.md, "The paired instrument").
 */

let gc: (() => void) | undefined;

/** The runner's own flag, not a `node` option, set at the first batch: a cold job's process stays as Lambda's. */
const collectGarbage = () => {
  if (!gc) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
};

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** CPU time of the main thread so far, in ms. */
const threadCpuMs = () => {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
};

/** Runs one batch and returns the main thread's CPU time it took, in ms, garbage collected before it off the clock. */
export const timedBatch = async (batch: () => Promise<unknown>): Promise<number> => {
  await nextTurn();
  collectGarbage();
  const started = threadCpuMs();
  await batch();
  await nextTurn();
  return threadCpuMs() - started;
};
