/**
 * The functions' metrics, in CloudWatch's embedded metric format (EMF): one log line per request,
 * written through the logger, which CloudWatch turns into metrics of one namespace. Powertools
 * Metrics does the same for about 13.5 KB of every bundle (see docs/benchmarks.md, "Bundle budget"), more than
 * the budget has left, while one request's figures fit in one small object.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { config } from './config';
import { metricsLine } from './logger';

export const metricsNamespace = 'MagazineApi';

/** Counted once per request, per operation and for the whole stage. */
export const requestMetrics = {
  requests: 'Requests',
  latency: 'Latency',
  /** 4xx answers; also by `ErrorCode`. */
  clientErrors: 'ClientErrors',
  /** 5xx answers; also by `ErrorCode` (`50001` is a defect, `50301` the store, `50302` new tags held back, `50303` a write not confirmed). */
  serverErrors: 'ServerErrors',
} as const;

/** What happened to the catalogue, counted where a write succeeded (mock requests and replays excluded). */
export type BusinessMetric = 'MagazinesCreated' | 'MagazinesDeleted' | 'ArticlesAdded';

/** What the store went through; `StoreUnavailable` (the 503s) is also by `Reason`. */
type StoreMetric = 'StoreThrottled' | 'StoreConflictsRetried' | 'StoreUnavailable';

/** The folder's health as readers meet it (see `noteTicketsRead`). */
type ReadMetric = 'TicketsRead';
export const TICKETS_READ: ReadMetric = 'TicketsRead';

/** Counted for the whole stage (dimension `Stage` only). */
export type StageMetric = BusinessMetric | StoreMetric | ReadMetric | 'MockRequests';

export const stageMetrics: readonly StageMetric[] = [
  'MagazinesCreated',
  'MagazinesDeleted',
  'ArticlesAdded',
  'MockRequests',
  'StoreThrottled',
  'StoreConflictsRetried',
  'StoreUnavailable',
  TICKETS_READ,
];

export const dimensions = {
  stage: 'Stage',
  operation: 'Operation',
  errorCode: 'ErrorCode',
  reason: 'Reason',
} as const;

/** How one request ended, as the metrics middleware saw it. */
export interface RequestOutcome {
  readonly stage: string;
  readonly operation: string;
  readonly status: number;
  /** The catalogue code of an error answer. */
  readonly errorCode?: string | undefined;
  readonly latencyMs: number;
  /** Why the store was unavailable, when the answer was its 503. */
  readonly storeReason?: string | undefined;
  readonly counts: ReadonlyMap<StageMetric, number>;
}

const count = (Name: string) => ({ Name, Unit: 'Count' });

/** The EMF object of one request: the directives under `_aws`, the dimension and metric values beside them. */
export const emfEntry = (outcome: RequestOutcome, timestamp = Date.now()): Record<string, unknown> => {
  const { stage, operation, status, errorCode, storeReason } = outcome;
  const clientError = status >= 400 && status < 500 ? 1 : 0;
  const serverError = status >= 500 ? 1 : 0;
  const counted = stageMetrics.filter((name) => (outcome.counts.get(name) ?? 0) > 0);
  const directive = (dimensionSets: string[][], metrics: object[]) => ({
    Namespace: metricsNamespace,
    Dimensions: dimensionSets,
    Metrics: metrics,
  });
  const { stage: S, operation: O, errorCode: E, reason: R } = dimensions;
  return {
    _aws: {
      Timestamp: timestamp,
      CloudWatchMetrics: [
        directive(
          [[S, O], [S]],
          [
            count(requestMetrics.requests),
            { Name: requestMetrics.latency, Unit: 'Milliseconds' },
            count(requestMetrics.clientErrors),
            count(requestMetrics.serverErrors),
          ],
        ),
        ...(errorCode
          ? [directive([[S, O, E]], [count(serverError ? requestMetrics.serverErrors : requestMetrics.clientErrors)])]
          : []),
        ...(counted.length > 0 ? [directive([[S]], counted.map(count))] : []),
        ...(storeReason ? [directive([[S, R]], [count('StoreUnavailable')])] : []),
      ],
    },
    [S]: stage,
    [O]: operation,
    ...(errorCode && { [E]: errorCode }),
    ...(storeReason && { [R]: storeReason }),
    statusCode: status,
    [requestMetrics.requests]: 1,
    [requestMetrics.latency]: Math.round(outcome.latencyMs * 10) / 10,
    [requestMetrics.clientErrors]: clientError,
    [requestMetrics.serverErrors]: serverError,
    ...Object.fromEntries(counted.map((name) => [name, outcome.counts.get(name)])),
  };
};

/** The directives of a request that counted nothing but itself: most requests. */
const requestOnly = JSON.stringify(
  (
    emfEntry({ stage: '', operation: '', status: 200, latencyMs: 0, counts: new Map() }, 0)._aws as Record<
      string,
      unknown
    >
  ).CloudWatchMetrics,
);

/** The stage and operation of the last line, as JSON text: a function writes for one of each, request after request. */
let lastNames: { readonly stage: string; readonly operation: string; readonly text: string } | undefined;

const namesText = (stage: string, operation: string) => {
  if (lastNames?.stage !== stage || lastNames.operation !== operation) {
    const { stage: S, operation: O } = dimensions;
    lastNames = { stage, operation, text: `"${S}":${JSON.stringify(stage)},"${O}":${JSON.stringify(operation)}` };
  }
  return lastNames.text;
};

/**
 * `JSON.stringify(emfEntry(outcome, timestamp))`, with the directives of a request that counted
 * nothing but itself written once rather than serialised on every request.
 */
export const emfJson = (outcome: RequestOutcome, timestamp = Date.now()): string => {
  const { stage, operation, status, errorCode, storeReason, counts } = outcome;
  const latencyMs = Math.round(outcome.latencyMs * 10) / 10;
  if (
    errorCode ||
    storeReason ||
    (counts.size > 0 && stageMetrics.some((name) => (counts.get(name) ?? 0) > 0)) ||
    // A finite number's JSON is its text; JSON writes the others as null.
    !(Number.isFinite(timestamp) && Number.isFinite(status) && Number.isFinite(latencyMs))
  )
    return JSON.stringify(emfEntry(outcome, timestamp));
  const { requests, latency, clientErrors, serverErrors } = requestMetrics;
  return (
    `{"_aws":{"Timestamp":${timestamp},"CloudWatchMetrics":${requestOnly}},${namesText(stage, operation)},` +
    `"statusCode":${status},"${requests}":1,"${latency}":${latencyMs},` +
    `"${clientErrors}":${status >= 400 && status < 500 ? 1 : 0},"${serverErrors}":${status >= 500 ? 1 : 0}}`
  );
};

export const publishMetrics = (outcome: RequestOutcome) => {
  if (config().metricsEnabled) metricsLine(emfJson(outcome));
};

/** The counts of the request being served, which code below the HTTP edge can add to. */
const requestCounts = new AsyncLocalStorage<Map<StageMetric, number>>();

/**
 * Starts counting for one request (the metrics middleware, synchronously, at the start of the
 * invocation, so that everything the request awaits counts into it) and returns its counts.
 */
export const startRequestCounts = (): Map<StageMetric, number> => {
  const counts = new Map<StageMetric, number>();
  requestCounts.enterWith(counts);
  return counts;
};

/**
 * The hook for the data layer: adds to the current request's counts, such as
 * `countForRequest('StoreConflictsRetried')` when a transaction that lost a race is sent again,
 * or the magazines a bulk write created and deleted. Outside a request it does nothing.
 */
export const countForRequest = (metric: StageMetric, n = 1) => {
  const counts = requestCounts.getStore();
  if (counts) counts.set(metric, (counts.get(metric) ?? 0) + n);
};

/**
 * The most tickets (count work not folded yet) that one list read of the current request added
 * up: the figure the data model bounds, which climbs when the folder falls behind or stops. The
 * most, not the sum: a request that reads a list again (a retry) or reads two still read no more
 * than that at once. Outside a request it does nothing.
 */
export const noteTicketsRead = (tickets: number) => {
  const counts = requestCounts.getStore();
  if (counts && tickets > (counts.get(TICKETS_READ) ?? 0)) counts.set(TICKETS_READ, tickets);
};

/** Change events put on the bus (the stream function's one figure), for the whole stage. */
export const EVENTS_PUBLISHED = 'EventsPublished';

export const countEventsPublished = (n: number, timestamp = Date.now()) => {
  if (!config().metricsEnabled || n === 0) return;
  const { stage: S } = dimensions;
  metricsLine(
    JSON.stringify({
      _aws: {
        Timestamp: timestamp,
        CloudWatchMetrics: [{ Namespace: metricsNamespace, Dimensions: [[S]], Metrics: [count(EVENTS_PUBLISHED)] }],
      },
      [S]: config().stage,
      [EVENTS_PUBLISHED]: n,
    }),
  );
};
