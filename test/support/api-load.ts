/**
 * Load made the way users make it, and the cost of reading under it: POSTs to the API over HTTP
 * from concurrent clients, and list pages measured by the DynamoDB calls their request caused, as
 * the proxy in front of DynamoDB saw them (test/support/dynamodb-faults.ts). Used by
 * `npm run bench:scale` (bench/scale.ts) and by test/integration/counts-under-load.test.ts.
 *
 * Nothing here reaches into the table except `pendingCountItems` (its own module): whatever the
 * data layer does, it is measured from outside.
 */
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { createRouter } from '../../local/router';
import { operationOfHandler } from '../../shared/routes/table';
import type { FaultProxy, RecordedCall } from './dynamodb-faults';
import { parseLinkHeader } from './http';

// ---------------------------------------------------------------------------------------------
// HTTP

export interface Reply {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  readonly ms: number;
}

export interface ApiClient {
  get(path: string): Promise<Reply>;
  post(path: string, json: unknown): Promise<Reply>;
  close(): void;
}

/**
 * A client of the API on `node:http` with kept-alive sockets, as many as the writers: `fetch`
 * costs several times the CPU per request, and the load, the proxy and often the API share
 * this machine's cores. A request that gets no answer resolves with status 0 and the error as text,
 * so that a writer counts it rather than stops.
 */
export const apiClient = (baseUrl: string, sockets = 64): ApiClient => {
  const base = new URL(baseUrl);
  // A socket idle for 2 s is closed on this side: the server closes its own after 5 s, and a request
  // sent on one it is closing at that moment fails with no answer, which is not the API's doing.
  const agent = new Agent({ keepAlive: true, maxSockets: sockets, timeout: 2_000 });
  const send = (method: string, path: string, json?: unknown) =>
    new Promise<Reply>((resolve) => {
      const started = performance.now();
      const body = json === undefined ? undefined : Buffer.from(JSON.stringify(json), 'utf8');
      const failed = (error: Error) =>
        resolve({ status: 0, headers: {}, text: `${error.name}: ${error.message}`, ms: performance.now() - started });
      const outgoing = httpRequest(
        {
          host: base.hostname,
          port: base.port,
          method,
          path,
          agent,
          headers: {
            Accept: 'application/json',
            ...(body && { 'Content-Type': 'application/json', 'Content-Length': body.length }),
          },
        },
        (incoming) => {
          const chunks: Buffer[] = [];
          incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
          incoming.once('error', failed);
          incoming.once('end', () =>
            resolve({
              status: incoming.statusCode ?? 0,
              headers: incoming.headers,
              text: Buffer.concat(chunks).toString('utf8'),
              ms: performance.now() - started,
            }),
          );
        },
      );
      outgoing.once('error', failed);
      outgoing.end(body);
    });
  return {
    get: (path) => send('GET', path),
    post: (path, json) => send('POST', path, json),
    close: () => agent.destroy(),
  };
};

/** The path and query of a reply's `next` link, as the local server routes it (links may carry API Gateway's stage). */
export const nextPathOf = (reply: Reply): string | undefined => {
  const link = reply.headers.link;
  const next = parseLinkHeader(Array.isArray(link) ? link.join(', ') : link).next;
  if (!next) return undefined;
  const url = new URL(next);
  return `${url.pathname.replace(/^\/v1(?=\/)/, '')}${url.search}`;
};

// ---------------------------------------------------------------------------------------------
// What is written

export interface TagRef {
  readonly id: string;
  readonly name: string;
}

export interface MagazineDraft {
  readonly id: string;
  readonly title: string;
  readonly tags: readonly TagRef[];
  /** Unix seconds. */
  readonly created: number;
}

export type TagMix =
  /** `perMagazine` of `topics` shared topics (`topic-00`…), not the same ones from one magazine to the next. */
  | { readonly kind: 'topics'; readonly topics: number; readonly perMagazine: number }
  /** `perMagazine` tags that no other magazine carries: every magazine makes new tags. */
  | { readonly kind: 'new'; readonly perMagazine: number }
  /** The same tag on every magazine: the popular tag every write meets on. */
  | { readonly kind: 'one'; readonly tag: TagRef };

export const topicTag = (topic: number): TagRef => {
  const number = String(topic).padStart(2, '0');
  return { id: `topic-${number}`, name: `Topic ${number}` };
};

/**
 * The topics of magazine `i`: the first by `i`, the others at a stride that changes every round of
 * the topics, so that topics meet in every combination rather than always in the same pairs.
 */
const topicsOf = (i: number, topics: number, wanted: number): TagRef[] => {
  const stride = 1 + (Math.floor(i / topics) % Math.max(1, topics - 1));
  const chosen: number[] = [];
  for (let next = i % topics; chosen.length < Math.min(wanted, topics); next = (next + stride) % topics) {
    let free = next;
    while (chosen.includes(free)) free = (free + 1) % topics;
    chosen.push(free);
  }
  return chosen.map(topicTag);
};

export const tagsOf = (mix: TagMix, magazineId: string, i: number): TagRef[] => {
  switch (mix.kind) {
    case 'topics':
      return topicsOf(i, mix.topics, mix.perMagazine);
    case 'new':
      return Array.from({ length: mix.perMagazine }, (_, k) => ({
        id: `${magazineId}-t${k}`,
        name: `Tag ${k} of ${magazineId}`,
      }));
    case 'one':
      return [mix.tag];
  }
};

/** 2015-01-01T00:00:00Z. */
export const FIRST_CREATED = 1_420_070_400;
const TEN_YEARS = 10 * 365 * 86_400;

/** Creation times spread evenly over ten years, in the order of `i`, as a collection written over time would be. */
export const spreadOverTenYears =
  (total: number) =>
  (i: number): number =>
    FIRST_CREATED + Math.floor((i * TEN_YEARS) / Math.max(1, total));

export const magazineDraft = (
  prefix: string,
  i: number,
  mix: TagMix,
  createdOf: (i: number) => number,
): MagazineDraft => {
  const id = `${prefix}-${i}`;
  return { id, title: `Magazine ${i} of ${prefix}`, tags: tagsOf(mix, id, i), created: createdOf(i) };
};

/** The body of the i-th article POSTed. */
export const articleBody = (i: number) => ({
  title: `Article ${i}`,
  author_first_name: 'Ada',
  author_last_name: 'Lovelace',
  author_email: 'ada@example.com',
  date: '2024-02-29',
  text: `The text of article ${i}, short.`,
});

export const yearOf = (seconds: number) => String(new Date(seconds * 1000).getUTCFullYear());

/** What a client made, counted by the client: what the API's counts must equal. */
export class Census {
  #total = 0;
  readonly #years = new Map<string, number>();
  readonly #tags = new Map<string, number>();
  readonly #tagYears = new Map<string, number>();

  add(draft: MagazineDraft): void {
    const year = yearOf(draft.created);
    const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
    this.#total += 1;
    bump(this.#years, year);
    for (const tag of draft.tags) {
      bump(this.#tags, tag.id);
      bump(this.#tagYears, `${tag.id} ${year}`);
    }
  }

  get total(): number {
    return this.#total;
  }

  inYear(year: string): number {
    return this.#years.get(year) ?? 0;
  }

  tagged(tagId: string): number {
    return this.#tags.get(tagId) ?? 0;
  }

  taggedInYear(tagId: string, year: string): number {
    return this.#tagYears.get(`${tagId} ${year}`) ?? 0;
  }

  /** The year with the most magazines (the latest of equals): a year filter that has pages to skip. */
  busiestYear(): string {
    let best = '';
    for (const [year, count] of this.#years)
      if (count > this.inYear(best) || (count === this.inYear(best) && year > best)) best = year;
    return best || yearOf(FIRST_CREATED);
  }

  /** Tags in use, with the magazines that carry each. */
  tags(): ReadonlyMap<string, number> {
    return this.#tags;
  }
}

// ---------------------------------------------------------------------------------------------
// Writers

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

// ---------------------------------------------------------------------------------------------
// DynamoDB calls, told apart by request

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

// ---------------------------------------------------------------------------------------------
// List pages and what they cost

/** Issue 18's targets for one page of any list: DynamoDB calls and bytes read; a page by cursor takes fewer calls. */
export const PAGE_TARGET = { calls: 5, cursorCalls: 3, bytes: 64 * 1024 } as const;

export const isCursorPage = (name: string) => name.includes('cursor');

export const withinPageTarget = (page: Pick<PageFigures, 'name' | 'status' | 'calls' | 'bytes'>) =>
  page.status === 200 &&
  page.calls <= (isCursorPage(page.name) ? PAGE_TARGET.cursorCalls : PAGE_TARGET.calls) &&
  page.bytes <= PAGE_TARGET.bytes;

/** Per query, its costliest page (most calls, then most bytes) and the most bytes any read. */
export const worstPages = (pages: readonly PageFigures[]): PageFigures[] => {
  const worst = new Map<string, PageFigures>();
  for (const page of pages) {
    const before = worst.get(page.name);
    if (!before) {
      worst.set(page.name, page);
      continue;
    }
    const costlier = page.calls > before.calls || (page.calls === before.calls && page.bytes > before.bytes);
    const chosen = costlier ? page : before;
    worst.set(page.name, {
      ...chosen,
      bytes: Math.max(before.bytes, page.bytes),
      status: before.status !== 200 ? before.status : page.status,
    });
  }
  return [...worst.values()];
};

export interface ListQuery {
  readonly name: string;
  readonly path: string;
  /** Also measure the page its `next` link leads to, under this name. */
  readonly cursorName?: string;
}

export interface PageFigures {
  readonly name: string;
  readonly path: string;
  readonly status: number;
  readonly calls: number;
  readonly operations: string;
  /** Bodies DynamoDB sent back. */
  readonly bytes: number;
  readonly readUnits: number;
  readonly ms: number;
  /** The `count` of the page's envelope, when it has one. */
  readonly count?: number;
}

/** The lists the issue names, at depths that the census says exist now. */
export const listQueries = (
  census: Census,
  focus: {
    readonly tag: string;
    readonly year: string;
    readonly articles?: { readonly magazineId: string; readonly count: number };
  },
): ListQuery[] => {
  const mid = (count: number) => Math.floor(count / 2);
  const half = mid(census.total);
  const { tag, year, articles } = focus;
  return [
    { name: 'first page', path: '/magazines' },
    { name: 'offset N/2', path: `/magazines?offset=${half}`, cursorName: 'cursor after offset N/2' },
    { name: 'sort=desc, offset N/2', path: `/magazines?sort=desc&offset=${half}` },
    { name: 'year, mid offset', path: `/magazines?year=${year}&offset=${mid(census.inYear(year))}` },
    { name: 'last page', path: `/magazines?offset=${Math.max(0, census.total - 25)}` },
    { name: 'limit=100, offset N/2', path: `/magazines?limit=100&offset=${half}` },
    { name: 'tag, mid offset', path: `/magazines?tag=${tag}&offset=${mid(census.tagged(tag))}` },
    {
      name: 'tag+year, mid offset',
      path: `/magazines?tag=${tag}&year=${year}&offset=${mid(census.taggedInYear(tag, year))}`,
    },
    { name: '/tags/{id}/magazines, mid offset', path: `/tags/${tag}/magazines?offset=${mid(census.tagged(tag))}` },
    { name: '/tags', path: '/tags' },
    { name: '/tags, mid offset', path: `/tags?offset=${mid(census.tags().size)}` },
    ...(articles
      ? [
          {
            name: 'articles, offset N/2',
            path: `/magazines/${articles.magazineId}/articles?offset=${mid(articles.count)}`,
            cursorName: 'articles, cursor after offset N/2',
          },
        ]
      : []),
  ];
};

const route = createRouter();

/** The operation whose function answers a GET of `path`: the user agent its DynamoDB client sends. */
const operationOfPath = (path: string): string => {
  const match = route('GET', new URL(path, 'http://api').pathname);
  const operation = match && operationOfHandler(match.route.handler);
  if (!operation) throw new Error(`No operation serves GET ${path}`);
  return operation.id;
};

const countOf = (reply: Reply): number | undefined => {
  try {
    const parsed = JSON.parse(reply.text) as { metadata?: { resultset?: { count?: unknown } } };
    const count = parsed.metadata?.resultset?.count;
    return typeof count === 'number' ? count : undefined;
  } catch {
    return undefined;
  }
};

/**
 * One GET and the DynamoDB calls it caused: those its operation's function sent between the request
 * and its answer. Writers may run meanwhile: their calls carry other operations. Pages are measured
 * one at a time, so none is counted twice.
 */
export const measurePage = async (
  client: ApiClient,
  ledger: CallLedger,
  name: string,
  path: string,
): Promise<{ readonly figures: PageFigures; readonly reply: Reply }> => {
  const operation = operationOfPath(path);
  const watch = ledger.watch((call) => call.caller === operation);
  const reply = await client.get(path);
  const calls = watch.stop();
  const count = countOf(reply);
  return {
    reply,
    figures: {
      name,
      path,
      status: reply.status,
      calls: calls.length,
      operations: operationsText(calls),
      bytes: calls.reduce((total, call) => total + call.responseBytes, 0),
      readUnits: calls.reduce((total, call) => total + call.readCapacityUnits, 0),
      ms: reply.ms,
      ...(count !== undefined && { count }),
    },
  };
};

/** Each query's page, and the page after it by cursor where asked. */
export const measurePages = async (
  client: ApiClient,
  ledger: CallLedger,
  queries: readonly ListQuery[],
): Promise<PageFigures[]> => {
  const pages: PageFigures[] = [];
  for (const query of queries) {
    const { figures, reply } = await measurePage(client, ledger, query.name, query.path);
    pages.push(figures);
    if (!query.cursorName) continue;
    const next = reply.status === 200 ? nextPathOf(reply) : undefined;
    if (next) pages.push((await measurePage(client, ledger, query.cursorName, next)).figures);
  }
  return pages;
};

// ---------------------------------------------------------------------------------------------
// Pending count work over time

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
