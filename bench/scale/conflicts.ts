import type { FaultProxy } from '../../test/support/dynamodb-faults';
import { percentile } from '../support/stats';
import { type ScaleRun, say, sleep } from './load-part';
import type { ConflictCase } from './results';

/**
 * 64 concurrent POSTs under transaction conflicts as DynamoDB makes them (the proxy emulates
 * them), in rounds: distinct magazines, then all tagged News; every TransactWriteItems counted.
 * Each case is kept as soon as it is measured, so that a run cut short reports it.
 */
export const runConflicts = async (run: ScaleRun, proxy: FaultProxy, keep: (conflictCase: ConflictCase) => void) => {
  proxy.setConflicts(true);
  let serial = 0;
  for (const [name, tagsOf] of [
    ['distinct magazines, a tag of their own', (i: number) => [{ name: `Own ${i}` }]],
    ['all tagged news', () => [{ name: 'News' }]],
  ] as const) {
    const conflictCase: ConflictCase = {
      name,
      posts: 64,
      failures: [],
      transactionsPerPost: [],
      cancelledPerPost: [],
      cancelledBy: [],
      p50Ms: [],
      p99Ms: [],
      statuses: {},
      serverErrors: {},
      failureTexts: [],
    };
    run.server.takeServerErrors();
    for (let round = 0; round < run.settings.conflictRounds; round++) {
      await sleep(1_000);
      const watch = run.ledger.watch();
      const replies = await Promise.all(
        Array.from({ length: 64 }, () => {
          const i = serial++;
          return run.client.post('/magazines', { id: `conflict-${i}`, title: `Concurrent ${i}`, tags: tagsOf(i) });
        }),
      );
      await sleep(1_000);
      const transactions = watch.stop().filter((call) => call.operation === 'TransactWriteItems');
      const cancelled = transactions.filter((call) => call.outcome === 'conflict');
      const by: Record<string, number> = {};
      for (const call of cancelled) by[call.caller ?? 'other'] = (by[call.caller ?? 'other'] ?? 0) + 1;
      for (const reply of replies) conflictCase.statuses[reply.status] = (conflictCase.statuses[reply.status] ?? 0) + 1;
      const failed = replies.filter((reply) => reply.status !== 201);
      conflictCase.failures.push(failed.length);
      for (const reply of failed.slice(0, 3 - conflictCase.failureTexts.length))
        conflictCase.failureTexts.push(`${reply.status} ${reply.text.slice(0, 200)}`);
      conflictCase.transactionsPerPost.push(transactions.length / 64);
      conflictCase.cancelledPerPost.push(cancelled.length / 64);
      conflictCase.cancelledBy.push(by);
      conflictCase.p50Ms.push(
        percentile(
          replies.map((reply) => reply.ms),
          50,
        ),
      );
      conflictCase.p99Ms.push(
        percentile(
          replies.map((reply) => reply.ms),
          99,
        ),
      );
      say(
        `  ${name}, round ${round + 1}: ${transactions.length} TransactWriteItems, ${cancelled.length} cancelled ${JSON.stringify(by)}, ${conflictCase.failures.at(-1)} failed`,
      );
    }
    Object.assign(conflictCase.serverErrors, run.server.takeServerErrors());
    keep(conflictCase);
  }
  proxy.setConflicts(false);
};
