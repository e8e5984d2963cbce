import { createRouter } from '../../local/router';
import { operationOfHandler } from '../../shared/routes/table';
import { type CallLedger, operationsText } from './call-ledger';
import type { RecordedCall } from './fault-types';
import type { Census } from './load-data';
import { type ApiClient, nextPathOf, type Reply } from './load-http';

/** List pages under load and what each cost in DynamoDB calls and bytes (api-load.ts), against issue 18's page targets. */

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
  /** A page over its target: each call, and the bytes of each item it read, to tell where they went. */
  readonly over?: readonly CallTrace[];
}

export interface CallTrace {
  readonly operation: string;
  readonly bytes: number;
  /** Each item read: its key (`PK SK`) and the bytes of its JSON. */
  readonly items: readonly (readonly [string, number])[];
}

const itemsOf = (response: unknown): unknown[] => {
  if (typeof response !== 'object' || response === null) return [];
  const { Items, Responses } = response as { Items?: unknown[]; Responses?: Record<string, unknown[]> };
  return [...(Items ?? []), ...Object.values(Responses ?? {}).flat()];
};

const keyText = (item: unknown) => {
  const { PK, SK } = item as { PK?: { S?: string }; SK?: { S?: string } };
  return `${PK?.S ?? '?'} ${SK?.S ?? '?'}`;
};

const traceOf = (call: RecordedCall): CallTrace => ({
  operation: call.operation,
  bytes: call.responseBytes,
  items: itemsOf(call.response).map((item) => [keyText(item), JSON.stringify(item).length] as const),
});

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
  const figures: PageFigures = {
    name,
    path,
    status: reply.status,
    calls: calls.length,
    operations: operationsText(calls),
    bytes: calls.reduce((total, call) => total + call.responseBytes, 0),
    readUnits: calls.reduce((total, call) => total + call.readCapacityUnits, 0),
    ms: reply.ms,
    ...(count !== undefined && { count }),
  };
  return { reply, figures: withinPageTarget(figures) ? figures : { ...figures, over: calls.map(traceOf) } };
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
