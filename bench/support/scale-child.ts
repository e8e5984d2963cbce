/**
 * One measurement of `npm run bench:scale` (bench/scale.ts), in a fresh process:
 * `node --import tsx bench/support/scale-child.ts <job.json> <result.json>`. The API of the tree
 * named in the job (this one, or a checkout of the old design) runs on the local server, its
 * handlers from source, against DynamoDB Local through this tree's counting proxy.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { localDynamoDbClient as ownLocalClient } from '../../local/dynamodb-local';
import {
  type FaultProxy,
  type JsonObject,
  type JsonValue,
  type RecordedCall,
  startFaultProxy,
} from '../../test/support/dynamodb-faults';
import { median, percentile } from './stats';

export type ChildJob =
  | {
      readonly kind: 'lists';
      readonly tree: string;
      readonly endpoint: string;
      readonly table: string;
      readonly size: number;
      readonly repeats: number;
    }
  | { readonly kind: 'tags'; readonly tree: string; readonly endpoint: string; readonly table: string }
  | {
      readonly kind: 'articles';
      readonly tree: string;
      readonly endpoint: string;
      readonly table: string;
      readonly size: number;
      readonly repeats: number;
    }
  | {
      readonly kind: 'conflicts';
      readonly tree: string;
      readonly endpoint: string;
      readonly table: string;
      readonly writers: number;
      readonly rounds: number;
    };

export interface QueryFigures {
  readonly name: string;
  readonly url: string;
  readonly status: number;
  readonly calls: number;
  readonly operations: string;
  readonly bytes: number;
  readonly readUnits: number;
  readonly medianMs: number;
}

export interface ListResult {
  readonly size: number;
  readonly loadSeconds: number;
  readonly queries: readonly QueryFigures[];
}

export interface TagsResult {
  readonly cases: readonly {
    readonly distinctTags: number;
    readonly operations: string;
    readonly reportedWriteUnits: number;
    readonly modelWriteUnits: number;
    readonly largestItemBytes: number;
    readonly medianMs: number;
  }[];
}

export interface ConflictResult {
  readonly cases: readonly {
    readonly name: string;
    readonly posts: number;
    /** Per round. */
    readonly retriesPerPost: number[];
    readonly failures: number[];
    readonly p50Ms: number[];
    readonly p99Ms: number[];
    readonly wallMs: number[];
    readonly statuses: string;
    /** Per round: refused write attempts by what they were (a create's own transaction, a fold of counters, other). */
    readonly refusedBy?: Record<string, number>[];
  }[];
}

const [jobFile, resultFile] = process.argv.slice(2);
if (!jobFile || !resultFile) throw new Error('Usage: scale-child.ts <job.json> <result.json>');
const job = JSON.parse(readFileSync(jobFile, 'utf8')) as ChildJob;
const say = (line: string) => process.stderr.write(`${line}\n`);

const fromTree = async <T>(relative: string): Promise<T> =>
  (await import(pathToFileURL(path.join(job.tree, relative)).href)) as T;

/** The whole store on the table: composed beside the per-operation bindings now, in the repository before. */
const repositoryModule = existsSync(path.join(job.tree, 'shared', 'stores.ts'))
  ? 'shared/stores.ts'
  : 'shared/db/repository.ts';

type LocalEnvironment = { stop(): Promise<void> };
type LocalServer = { url: string; close(): Promise<void> };

const { prepareLocalEnvironment } = await fromTree<{
  prepareLocalEnvironment: (options: {
    endpoint: string;
    tableName: string;
    settings: Record<string, string>;
  }) => Promise<LocalEnvironment>;
}>('local/environment.ts');
const { startLocalServer } = await fromTree<{
  startLocalServer: (options: { quiet: boolean; logErrors: boolean; handlers: unknown }) => Promise<LocalServer>;
}>('local/server.ts');
const { sourceHandlers } = await fromTree<{ sourceHandlers: (environment: LocalEnvironment) => unknown }>(
  'local/load-handler.ts',
);
const { localDynamoDbClient } = await fromTree<{
  localDynamoDbClient: (
    endpoint: string,
    options?: { timeoutMs?: number },
  ) => import('@aws-sdk/client-dynamodb').DynamoDBClient;
}>('local/dynamodb-local.ts');

const proxy: FaultProxy = await startFaultProxy(job.endpoint, { conflicts: job.kind === 'conflicts' });
const environment = await prepareLocalEnvironment({
  endpoint: proxy.endpoint,
  tableName: job.table,
  settings: { MOCK_ENABLED: 'false', LOG_LEVEL: 'ERROR', CURSOR_KEY: 'bench-scale' },
});
const server = await startLocalServer({ quiet: true, logErrors: true, handlers: sourceHandlers(environment) });

interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly ms: number;
}

const request = async (method: string, pathAndQuery: string, json?: unknown): Promise<Reply> => {
  const started = performance.now();
  const response = await fetch(`${server.url}${pathAndQuery}`, {
    method,
    headers: { Accept: 'application/json', ...(json !== undefined && { 'Content-Type': 'application/json' }) },
    ...(json !== undefined && { body: JSON.stringify(json) }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, ms: performance.now() - started };
};

const operations = (calls: readonly RecordedCall[]) => {
  const counts = new Map<string, number>();
  for (const call of calls) counts.set(call.operation, (counts.get(call.operation) ?? 0) + 1);
  return [...counts].map(([operation, n]) => (n > 1 ? `${n} ${operation}` : operation)).join(' + ');
};

const TOPICS = Array.from({ length: 20 }, (_, i) => `Topic ${String(i + 1).padStart(2, '0')}`);
const FIRST_CREATED = 1_420_070_400; // 2015-01-01
const SPAN = 10 * 365 * 86_400;

/** Magazine i of n: two topics, `News` on one in four, created evenly over ten years. */
const magazineInput = (i: number, n: number) => ({
  id: `m${String(i).padStart(6, '0')}`,
  title: `Magazine ${i} of the scale benchmark`,
  tags: [
    { name: TOPICS[i % TOPICS.length]! },
    { name: TOPICS[(i + 7) % TOPICS.length]! },
    ...(i % 4 === 0 ? [{ name: 'News' }] : []),
  ],
  created: FIRST_CREATED + Math.floor((i * SPAN) / n),
});

/** The next link's path and query, as the local server routes it (links carry the `/v1` of API Gateway). */
const nextOf = (reply: Reply): string | undefined => {
  const link = reply.headers.get('link') ?? '';
  const next = /<([^>]+)>;\s*rel="next"/.exec(link)?.[1];
  if (!next) return undefined;
  const url = new URL(next);
  return `${url.pathname.replace(/^\/v1(?=\/)/, '')}${url.search}`;
};

// ---------------------------------------------------------------------------------------------

interface Draft {
  readonly id: string;
  readonly title: string;
  readonly tags: readonly { readonly name: string }[];
  readonly created: number;
}

/**
 * PUT /magazines through the tree's own repository, in this process (no function timeout), straight
 * to DynamoDB Local: its BatchWriteItem or transactions of repository-shaped items, uncounted.
 */
const loadDirect = async (drafts: readonly Draft[]) => {
  const { tagIdFromName } = await fromTree<{ tagIdFromName: (name: string) => string }>('shared/domain/tag.ts');
  const identified = drafts.map((draft) => ({
    ...draft,
    tags: draft.tags.map((tag) => ({ id: tagIdFromName(tag.name), name: tag.name })),
  }));
  // A client of our own with long timeouts and many attempts: the API's gives up after 1 s without a
  // connection, which a loaded DynamoDB Local on a shared machine can take when a bulk write sends
  // a hundred batches at once.
  const client = DynamoDBDocumentClient.from(ownLocalClient(job.endpoint, { timeoutMs: 120_000, maxAttempts: 10 }), {
    marshallOptions: { removeUndefinedValues: true },
  });
  const repository = await fromTree<{ createRepository: (client: unknown, table: string) => unknown }>(
    repositoryModule,
  );
  type Bulk = { replaceAllMagazines: (drafts: unknown[], precondition: undefined) => Promise<unknown> };
  if (existsSync(path.join(job.tree, 'shared', 'db', 'bulk.ts'))) {
    // This design: a repository per request deadline.
    const forDeadline = repository.createRepository(client, job.table) as (deadline: number) => Bulk;
    await forDeadline(Date.now() + 3_600_000).replaceAllMagazines(identified, undefined);
  } else {
    // The old design (a82d006): one repository for all requests.
    await (repository.createRepository(client, job.table) as Bulk).replaceAllMagazines(identified, undefined);
  }
};

const measurer = (repeats: number) => {
  const figures: QueryFigures[] = [];
  const measure = async (name: string, url: string) => {
    let last: { reply: Reply; calls: RecordedCall[] } | undefined;
    const times: number[] = [];
    for (let r = 0; r < repeats; r++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      proxy.resetCalls();
      const reply = await request('GET', url);
      const calls = proxy.takeCalls();
      times.push(reply.ms);
      last = { reply, calls };
    }
    const { reply, calls } = last!;
    if (reply.status !== 200) say(`${name} ${url}: ${reply.status} ${reply.text.slice(0, 300)}`);
    figures.push({
      name,
      url,
      status: reply.status,
      calls: calls.length,
      operations: operations(calls),
      bytes: calls.reduce((total, call) => total + call.responseBytes, 0),
      readUnits: calls.reduce((total, call) => total + call.readCapacityUnits, 0),
      medianMs: median(times),
    });
    return reply;
  };
  return { figures, measure };
};

/**
 * Each query measured after one warm-up request each (a function's init phase is not what is
 * measured), and, as `deep.cursor`, the cursor that `deep`'s `next` link carries: the same depth, reached by cursor.
 */
const measureQueries = async (
  queries: readonly [string, string][],
  deep: { readonly name: string; readonly cursor: string },
  repeats: number,
) => {
  for (const [, url] of queries) await request('GET', url);
  const { figures, measure } = measurer(repeats);
  for (const [name, url] of queries) {
    const reply = await measure(name, url);
    if (name !== deep.name) continue;
    const next = nextOf(reply);
    if (next) await measure(deep.cursor, next);
    else say(`${name}: no next link`);
  }
  return figures;
};

const lists = async (size: number, repeats: number): Promise<ListResult> => {
  // Loaded through the data layer's own bulk path, straight to DynamoDB Local (not counted).
  const loadStarted = Date.now();
  const drafts = Array.from({ length: size }, (_, i) => magazineInput(i, size));
  await loadDirect(drafts);
  const loadSeconds = (Date.now() - loadStarted) / 1000;
  say(`loaded ${size} in ${loadSeconds.toFixed(0)} s`);

  const half = Math.floor(size / 2);
  const year = 2020; // the sixth of ten years: a tenth of the collection
  const inYear = drafts.filter((d) => new Date(d.created * 1000).getUTCFullYear() === year).length;
  const news = drafts.filter((d) => d.tags.some((t) => t.name === 'News')).length;
  const newsInYear = drafts.filter(
    (d) => d.tags.some((t) => t.name === 'News') && new Date(d.created * 1000).getUTCFullYear() === year,
  ).length;
  const queries: [string, string][] = [
    ['first page', '/magazines?limit=25'],
    ['offset N/2', `/magazines?limit=25&offset=${half}`],
    ['offset N−25', `/magazines?limit=25&offset=${size - 25}`],
    ['desc, offset N/2', `/magazines?limit=25&sort=desc&offset=${half}`],
    ['year, mid-year offset', `/magazines?limit=25&year=${year}&offset=${Math.floor(inYear / 2)}`],
    ['tag, mid offset', `/magazines?limit=25&tag=news&offset=${Math.floor(news / 2)}`],
    ['tag + year, mid offset', `/magazines?limit=25&tag=news&year=${year}&offset=${Math.floor(newsInYear / 2)}`],
    ['tag magazines, mid offset', `/tags/news/magazines?limit=25&offset=${Math.floor(news / 2)}`],
    ['GET /tags', '/tags?limit=25'],
  ];
  const figures = await measureQueries(queries, { name: 'offset N/2', cursor: 'cursor after offset N/2' }, repeats);
  return { size, loadSeconds, queries: figures };
};

/** The articles of one magazine with `size` of them, written one by one through the data layer (as POSTs are). */
const articles = async (size: number, repeats: number): Promise<ListResult> => {
  const loadStarted = Date.now();
  const created = await request('POST', '/magazines', { id: 'many-articles', title: 'A magazine of many articles' });
  if (created.status !== 201) throw new Error(`POST /magazines: ${created.status} ${created.text.slice(0, 300)}`);
  const client = DynamoDBDocumentClient.from(ownLocalClient(job.endpoint, { timeoutMs: 120_000, maxAttempts: 10 }), {
    marshallOptions: { removeUndefinedValues: true },
  });
  const repository = await fromTree<{
    createRepository: (
      client: unknown,
      table: string,
    ) => (deadline: number) => { createArticle: (magazineId: string, input: unknown) => Promise<unknown> };
  }>(repositoryModule);
  const store = repository.createRepository(client, job.table);
  for (let i = 0; i < size; i++) {
    await store(Date.now() + 600_000).createArticle('many-articles', {
      title: `Article ${i}`,
      author_first_name: 'Ada',
      author_last_name: 'Lovelace',
      author_email: 'ada@example.com',
      date: '2024-02-29',
      text: `The text of article ${i}, short.`,
    });
    if (i % 1000 === 999) say(`  ${i + 1} articles`);
  }
  const loadSeconds = (Date.now() - loadStarted) / 1000;
  say(`loaded ${size} articles in ${loadSeconds.toFixed(0)} s`);
  const base = '/magazines/many-articles/articles?limit=25';
  const half = Math.floor(size / 2);
  const queries: [string, string][] = [
    ['articles: first page', base],
    ['articles: offset N/2', `${base}&offset=${half}`],
    ['articles: offset N−25', `${base}&offset=${size - 25}`],
    ['articles: desc, offset N/2', `${base}&sort=desc&offset=${half}`],
  ];
  const figures = await measureQueries(
    queries,
    { name: 'articles: offset N/2', cursor: 'articles: cursor after offset N/2' },
    repeats,
  );
  return { size, loadSeconds, queries: figures };
};

// ---------------------------------------------------------------------------------------------

/** DynamoDB's size of an item in its wire form: names and values (numbers approximated). */
const itemSize = (item: JsonObject): number => {
  const valueSize = (value: JsonValue): number => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return 0;
    const [type, inner] = Object.entries(value)[0] ?? [];
    switch (type) {
      case 'S':
        return Buffer.byteLength(String(inner));
      case 'N':
        return Math.ceil(String(inner).replace(/^-|\./g, '').length / 2) + 1;
      case 'B':
        return Buffer.from(String(inner), 'base64').length;
      case 'BOOL':
      case 'NULL':
        return 1;
      case 'SS':
        return (inner as string[]).reduce((total, s) => total + Buffer.byteLength(s), 0);
      case 'NS':
        return (inner as string[]).reduce((total, s) => total + Math.ceil(s.length / 2) + 1, 0);
      case 'L':
        return 3 + (inner as JsonValue[]).reduce((total: number, v) => total + 1 + valueSize(v), 0);
      case 'M':
        return (
          3 +
          Object.entries(inner as JsonObject).reduce(
            (total, [name, v]) => total + 1 + Buffer.byteLength(name) + valueSize(v),
            0,
          )
        );
      default:
        return 0;
    }
  };
  return Object.entries(item).reduce((total, [name, value]) => total + Buffer.byteLength(name) + valueSize(value), 0);
};

/** Keys an item written by a call, and whether it was in a transaction. */
const writtenKeys = (call: RecordedCall): { table: string; key: JsonObject; transactional: boolean }[] => {
  const request = call.request;
  const keyOf = (item: JsonObject) => ({ PK: item.PK!, SK: item.SK! }) as JsonObject;
  const out: { table: string; key: JsonObject; transactional: boolean }[] = [];
  if (call.operation === 'TransactWriteItems')
    for (const entry of (request.TransactItems as JsonObject[]) ?? []) {
      const [kind, body] = Object.entries(entry)[0] as [string, JsonObject];
      const key = kind === 'Put' ? keyOf(body.Item as JsonObject) : (body.Key as JsonObject);
      out.push({ table: String(body.TableName), key, transactional: true });
    }
  else if (call.operation === 'PutItem')
    out.push({ table: String(request.TableName), key: keyOf(request.Item as JsonObject), transactional: false });
  else if (call.operation === 'UpdateItem' || call.operation === 'DeleteItem')
    out.push({ table: String(request.TableName), key: request.Key as JsonObject, transactional: false });
  else if (call.operation === 'BatchWriteItem')
    for (const [table, writes] of Object.entries((request.RequestItems as JsonObject) ?? {}))
      for (const write of writes as JsonObject[]) {
        const put = write.PutRequest as JsonObject | undefined;
        const del = write.DeleteRequest as JsonObject | undefined;
        out.push({
          table,
          key: put ? keyOf(put.Item as JsonObject) : (del!.Key as JsonObject),
          transactional: false,
        });
      }
  return out;
};

const tags = async (): Promise<TagsResult> => {
  const direct = localDynamoDbClient(job.endpoint, { timeoutMs: 30_000 });
  const cases: TagsResult['cases'][number][] = [];
  let serial = 0;
  for (const distinct of [10, 10_000]) {
    // PUT /magazines: 5 magazines of 2 tags each make 10 distinct tags; 5,000 make 10,000.
    const magazines = Array.from({ length: distinct / 2 }, (_, i) => ({
      id: `t${distinct}-${i}`,
      title: `Tagged magazine ${i}`,
      tags: [{ name: `Tag ${2 * i}` }, { name: `Tag ${2 * i + 1}` }],
      created: FIRST_CREATED + i * 60,
    }));
    await loadDirect(magazines);
    // Let the bulk write's clean-up and any fold settle.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const times: number[] = [];
    let figures: Omit<TagsResult['cases'][number], 'medianMs' | 'distinctTags'> | undefined;
    for (let r = 0; r < 5; r++) {
      proxy.resetCalls();
      const reply = await request('POST', '/magazines', {
        id: `probe-${distinct}-${serial++}`,
        title: 'A magazine tagged News',
        tags: [{ name: 'News' }],
      });
      if (reply.status !== 201) throw new Error(`POST: ${reply.status} ${reply.text.slice(0, 300)}`);
      times.push(reply.ms);
      // A write may fold counters after it answers: give it a moment, and count it with the write.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const calls = proxy.takeCalls();
      const writes = calls.flatMap(writtenKeys);
      let model = 0;
      let largest = 0;
      for (const write of writes) {
        const got = await direct.send(
          new GetItemCommand({ TableName: write.table, Key: write.key as never, ConsistentRead: true }),
        );
        const bytes = got.Item ? itemSize(got.Item as unknown as JsonObject) : 0;
        largest = Math.max(largest, bytes);
        model += Math.max(1, Math.ceil(bytes / 1024)) * (write.transactional ? 2 : 1);
      }
      const reported = calls.reduce((total, call) => total + call.writeCapacityUnits, 0);
      if (!figures || model < figures.modelWriteUnits)
        figures = {
          operations: operations(calls),
          reportedWriteUnits: reported,
          modelWriteUnits: model,
          largestItemBytes: largest,
        };
    }
    cases.push({ distinctTags: distinct, ...figures!, medianMs: median(times) });
  }
  direct.destroy();
  return { cases };
};

// ---------------------------------------------------------------------------------------------

const conflicts = async (writers: number, rounds: number): Promise<ConflictResult> => {
  // Warm the function (its init phase), with conflicts off.
  proxy.setConflicts(false);
  for (let i = 0; i < 3; i++) await request('POST', '/magazines', { title: `Warm-up ${i}`, tags: [{ name: 'Warm' }] });
  proxy.setConflicts(true);
  const cases: ConflictResult['cases'][number][] = [];
  let serial = 0;
  for (const [name, tagsOf] of [
    ['distinct magazines, tags of their own', (i: number) => [{ name: `Own ${i}` }]],
    ['all tagged news', () => [{ name: 'News' }]],
  ] as const) {
    const figures = {
      name,
      posts: writers,
      retriesPerPost: [] as number[],
      failures: [] as number[],
      p50Ms: [] as number[],
      p99Ms: [] as number[],
      wallMs: [] as number[],
      statuses: '',
      refusedBy: [] as Record<string, number>[],
    };
    const statusCounts = new Map<number, number>();
    for (let round = 0; round < rounds; round++) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      proxy.resetCalls();
      proxy.resetCounters();
      const started = performance.now();
      const replies = await Promise.all(
        Array.from({ length: writers }, () => {
          const i = serial++;
          return request('POST', '/magazines', { title: `Concurrent ${i}`, tags: tagsOf(i) });
        }),
      );
      figures.wallMs.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const calls = proxy.takeCalls();
      const refusedCalls = calls.filter((call) => call.outcome === 'conflict');
      const refused = refusedCalls.length;
      const by: Record<string, number> = {};
      for (const call of refusedCalls) {
        const keys = writtenKeys(call).map(
          (write) => `${String((write.key.PK as JsonObject).S)}|${String((write.key.SK as JsonObject).S)}`,
        );
        const what = keys.some((key) => key.endsWith('|AGGREGATE'))
          ? 'fold'
          : keys.some((key) => key.includes('#MAG#') || key.endsWith('|MAGAZINE'))
            ? 'create'
            : call.operation;
        by[what] = (by[what] ?? 0) + 1;
      }
      figures.refusedBy.push(by);
      figures.retriesPerPost.push(refused / writers);
      figures.failures.push(replies.filter((reply) => reply.status !== 201).length);
      for (const reply of replies) statusCounts.set(reply.status, (statusCounts.get(reply.status) ?? 0) + 1);
      const times = replies.map((reply) => reply.ms);
      figures.p50Ms.push(percentile(times, 50));
      figures.p99Ms.push(percentile(times, 99));
      say(
        `${name} round ${round + 1}: ${refused} refused for a conflict (${JSON.stringify(by)}), ${figures.failures.at(-1)} failed, ${operations(calls)}`,
      );
    }
    figures.statuses = [...statusCounts]
      .sort(([a], [b]) => a - b)
      .map(([status, n]) => `${n}× ${status}`)
      .join(', ');
    cases.push(figures);
  }
  return { cases };
};

let result: unknown;
try {
  if (job.kind === 'lists') result = await lists(job.size, job.repeats);
  else if (job.kind === 'tags') result = await tags();
  else if (job.kind === 'articles') result = await articles(job.size, job.repeats);
  else result = await conflicts(job.writers, job.rounds);
} finally {
  await server.close();
  await proxy.close();
  await environment.stop();
}
writeFileSync(resultFile, JSON.stringify(result));
// Handlers may leave timers (SDK sockets, sweeps): the measurement is done.
process.exit(0);
