import type { Census, MagazineDraft } from './load-data';
import type { ApiClient, Reply } from './load-http';

/** The load's writers (api-load.ts): concurrent clients POSTing, their latencies and failures. */

export interface LoadProgress {
  /** Requests answered so far. */
  readonly answered: number;
  readonly elapsedMs: number;
}

export interface LoadOptions {
  readonly client: ApiClient;
  readonly count: number;
  readonly concurrency: number;
  /** The i-th request (0 ≤ i < count). */
  readonly request: (i: number) => { readonly path: string; readonly json: unknown };
  /** Called for each request answered 201. */
  readonly onCreated?: (i: number) => void;
  /** Called for each request answered otherwise (status 0: no answer). */
  readonly onFailed?: (i: number, reply: Reply) => void;
  /** Run over and over while the writers run, `pauseMs` apart (the sampling): never two at once. */
  readonly during?: (progress: LoadProgress) => Promise<void>;
  readonly pauseMs?: number;
  /** Called after each answer. */
  readonly onAnswer?: (progress: LoadProgress) => void;
}

export interface LoadOutcome {
  readonly posts: number;
  readonly created: number;
  /** Answers by status; 0 is no answer (the connection failed). */
  readonly statuses: Readonly<Record<string, number>>;
  /** The first few answers of each status other than 201, as they came. */
  readonly failures: readonly { readonly index: number; readonly status: number; readonly text: string }[];
  readonly seconds: number;
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Times `during` ran to its end while the writers were still running. */
  readonly samples: number;
}

const percentileOf = (values: readonly number[], p: number) => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

const FAILURES_KEPT = 3;

/**
 * `count` requests from `concurrency` writers, each taking the next index as it finishes its last.
 * Nothing is retried: an answer other than 201 is counted, and the first few kept, as a client
 * that gave up would see them.
 */
export const runLoad = async (options: LoadOptions): Promise<LoadOutcome> => {
  const { client, count, concurrency, request, onCreated, onFailed, during, pauseMs = 250, onAnswer } = options;
  const started = performance.now();
  const statuses: Record<string, number> = {};
  const failures: { index: number; status: number; text: string }[] = [];
  const times: number[] = [];
  let next = 0;
  let answered = 0;
  let created = 0;
  const progress = (): LoadProgress => ({ answered, elapsedMs: performance.now() - started });

  const writer = async () => {
    for (let i = next++; i < count; i = next++) {
      const { path, json } = request(i);
      const reply = await client.post(path, json);
      answered += 1;
      times.push(reply.ms);
      statuses[reply.status] = (statuses[reply.status] ?? 0) + 1;
      if (reply.status === 201) {
        created += 1;
        onCreated?.(i);
      } else {
        onFailed?.(i, reply);
        if (failures.filter((failure) => failure.status === reply.status).length < FAILURES_KEPT)
          failures.push({ index: i, status: reply.status, text: reply.text.slice(0, 500) });
      }
      onAnswer?.(progress());
    }
  };

  let writing = true;
  let samples = 0;
  // A sampling that fails is reported once the writers are done, not as an unhandled rejection meanwhile.
  const sampling = (async () => {
    if (!during) return;
    while (writing) {
      await during(progress());
      if (writing) samples += 1;
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  })().then(
    () => undefined,
    (error: unknown) => ({ error }),
  );
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, count) }, writer));
  } finally {
    writing = false;
  }
  const seconds = (performance.now() - started) / 1000;
  const failed = await sampling;
  if (failed) throw failed.error;
  return {
    posts: answered,
    created,
    statuses,
    failures,
    seconds,
    perSecond: answered / seconds,
    p50Ms: percentileOf(times, 50),
    p99Ms: percentileOf(times, 99),
    samples,
  };
};

export interface MagazinesLoaded {
  readonly outcome: LoadOutcome;
  /** Those answered otherwise than 201: whether they were made is for `lookUpFailed` to tell. */
  readonly failed: MagazineDraft[];
}

/** `count` magazines POSTed by `concurrency` writers, each answered 201 added to `census`. */
export const loadMagazines = async (
  options: Omit<LoadOptions, 'request' | 'onCreated' | 'onFailed'> & {
    readonly draft: (i: number) => MagazineDraft;
    readonly census: Census;
  },
): Promise<MagazinesLoaded> => {
  const { draft, census, ...rest } = options;
  const failed: MagazineDraft[] = [];
  const outcome = await runLoad({
    ...rest,
    request: (i) => ({ path: '/magazines', json: draft(i) }),
    onCreated: (i) => census.add(draft(i)),
    onFailed: (i) => failed.push(draft(i)),
  });
  return { outcome, failed };
};

/**
 * What a client that got no 201 does: it looks (GET). A magazine made all the same is added to
 * `census`, since the API's counts must include it, and its id returned, since its answer said otherwise.
 */
export const lookUpFailed = async (
  client: ApiClient,
  census: Census,
  failed: readonly MagazineDraft[],
): Promise<string[]> => {
  const made: string[] = [];
  for (const draft of failed)
    if ((await client.get(`/magazines/${draft.id}`)).status === 200) {
      made.push(draft.id);
      census.add(draft);
    }
  return made;
};
