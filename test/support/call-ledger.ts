import type { FaultProxy, RecordedCall } from './dynamodb-faults';

/** The DynamoDB calls the proxy saw, told apart by the request that caused them (api-load.ts). */

/** Calls are handed on once answered (their outcome, bytes and capacity known); one unanswered this many collections is dropped. */
const UNANSWERED_COLLECTIONS = 240;

interface Watcher {
  readonly wants: (call: RecordedCall) => boolean;
  readonly seen: RecordedCall[];
}

/**
 * Takes the calls the proxy records, every `everyMs` (so that a long load does not hold them all),
 * and hands each answered one to whoever watches for it.
 */
export class CallLedger {
  readonly #proxy: FaultProxy;
  readonly #timer: NodeJS.Timeout;
  #unanswered: { readonly call: RecordedCall; readonly age: number }[] = [];
  readonly #watchers = new Set<Watcher>();

  constructor(proxy: FaultProxy, everyMs = 500) {
    this.#proxy = proxy;
    this.#timer = setInterval(() => this.collect(), everyMs);
    this.#timer.unref();
  }

  collect(): void {
    const waiting = [...this.#unanswered, ...this.#proxy.takeCalls().map((call) => ({ call, age: 0 }))];
    this.#unanswered = [];
    const answered: RecordedCall[] = [];
    for (const { call, age } of waiting) {
      if (call.status !== 0) answered.push(call);
      else if (age < UNANSWERED_COLLECTIONS) this.#unanswered.push({ call, age: age + 1 });
    }
    for (const watcher of this.#watchers) for (const call of answered) if (watcher.wants(call)) watcher.seen.push(call);
  }

  /** Collects the answered calls `wants` picks from now on, until `stop` returns them. */
  watch(wants: (call: RecordedCall) => boolean = () => true): { stop(): RecordedCall[] } {
    this.collect();
    const watcher: Watcher = { wants, seen: [] };
    this.#watchers.add(watcher);
    return {
      stop: () => {
        this.collect();
        this.#watchers.delete(watcher);
        return watcher.seen;
      },
    };
  }

  close(): void {
    clearInterval(this.#timer);
  }
}

/** `Query 2 + BatchGetItem`. */
export const operationsText = (calls: readonly RecordedCall[]) => {
  const counts = new Map<string, number>();
  for (const call of calls) counts.set(call.operation, (counts.get(call.operation) ?? 0) + 1);
  return [...counts].map(([operation, n]) => (n > 1 ? `${operation} ${n}` : operation)).join(' + ');
};
