import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { localDynamoDbClient, startDynamoDbLocal } from '../../local/dynamodb-local';
import {
  type ApiClient,
  apiClient,
  articleBody,
  CallLedger,
  Census,
  type ListQuery,
  listQueries,
  magazineDraft,
  measurePages,
  operationsText,
  type PageFigures,
  runLoad,
  spreadOverTenYears,
  topicTag,
  trackPending,
  worstPages,
} from '../../test/support/api-load';
import { startFaultProxy } from '../../test/support/dynamodb-faults';
import { pendingCountItems } from '../../test/support/pending-counts';
import { startApiServer } from '../support/api-server';
import { median } from '../support/stats';
import { writeCost } from '../support/write-cost';
import { runConflicts } from './conflicts';
import { runDirect } from './direct';
import { loadPart, type ScaleRun, say, sleep } from './load-part';
import type { ScaleSettings } from './options';
import { n, writeScaleReport } from './report';
import { newResults, type PointPage } from './results';

/**
 * The run of `npm run bench:scale` (bench/scale.ts reads its options first): DynamoDB Local, the
 * counting proxy and the API started, the collection loaded through the API part by part, each
 * part reported as it ends. Only a completed run writes bench/results/: a part's report, a Ctrl-C
 * or a failure goes to dist/bench-partial/ (ignored by git), so that the committed figures are
 * never replaced by an unfinished run's.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const resultsDir = path.join(root, 'bench', 'results');
const partialDir = path.join(root, 'dist', 'bench-partial');

export const runScale = async (options: { readonly settings: ScaleSettings; readonly tree: string | undefined }) => {
  const { settings } = options;
  const tree = options.tree ? path.resolve(options.tree) : root;
  if (!existsSync(path.join(tree, 'scripts', 'start.ts')) || !existsSync(path.join(tree, 'node_modules'))) {
    process.stderr.write(`--tree ${tree}: no scripts/start.ts or node_modules there\n`);
    process.exit(2);
  }
  const scratch = mkdtempSync(path.join(tmpdir(), 'magazine-scale-'));
  process.once('exit', () => rmSync(scratch, { recursive: true, force: true }));
  const commit = await promisify(execFile)('git', ['rev-parse', '--short', 'HEAD'], { cwd: tree }).then(
    ({ stdout }) => stdout.trim(),
    () => 'unknown',
  );
  const results = newResults(settings, `${path.relative(root, tree) || 'this tree'} (${commit})`);
  const report = ({ complete = false } = {}) => writeScaleReport(results, settings, complete ? resultsDir : partialDir);

  const started = performance.now();
  const since = () => performance.now() - started;
  /** The parts after a server that ended would measure nothing but refused connections. */
  const ensureServerRunning = () => {
    if (results.serverStopped) throw new Error(`The API server ended during: ${results.serverStopped.part}`);
  };
  const timed = async <T>(part: string, work: () => Promise<T>): Promise<T> => {
    ensureServerRunning();
    const at = performance.now();
    say(`${part}…`);
    results.marks.push({ ms: since(), label: part });
    try {
      return await work();
    } finally {
      const seconds = (performance.now() - at) / 1000;
      results.timings.push({ part, seconds });
      say(`  ${part}: ${seconds.toFixed(0)} s`);
      const how = servers.map((server) => server.stopped()).find(Boolean);
      if (how && !results.serverStopped) {
        results.serverStopped = { part, how };
        say(how);
      }
    }
  };

  const tableName = 'scale';
  const servers: { stop(): Promise<void>; stopped(): string | undefined }[] = [];
  const { dynamoDb, proxy, server } = await timed('start DynamoDB Local, the proxy and npm start', async () => {
    const dynamoDb = await startDynamoDbLocal();
    const proxy = await startFaultProxy(dynamoDb.endpoint);
    const server = await startApiServer({
      tree,
      endpoint: proxy.endpoint,
      tableName,
      logFile: path.join(scratch, 'api.log'),
    });
    servers.push(server);
    return { dynamoDb, proxy, server };
  });
  const ledger = new CallLedger(proxy);
  // Straight to DynamoDB Local: the inspection of pending count items is not the API's work.
  const inspector = DynamoDBDocumentClient.from(localDynamoDbClient(dynamoDb.endpoint, { timeoutMs: 60_000 }));
  /** The lists the load writes to most: the topics' (the collection's and `/tags` are always watched). */
  const watchedTags = Array.from({ length: settings.topics }, (_, topic) => topicTag(topic).id);
  const pendingNow = (table = tableName) => pendingCountItems(inspector, table, watchedTags);

  /** Every page of `list`, `repeats` times: per page the most calls and bytes, the median latency. */
  const measureRepeated = async (apiClient: ApiClient, list: readonly ListQuery[]): Promise<PointPage[]> => {
    const all: PageFigures[] = [];
    for (let r = 0; r < settings.repeats; r++) all.push(...(await measurePages(apiClient, ledger, list)));
    return worstPages(all).map(({ ms: _ms, count: _count, ...page }) => {
      const same = all.filter((other) => other.name === page.name);
      return {
        ...page,
        readUnits: Math.max(...same.map((other) => other.readUnits)),
        medianMs: median(same.map((other) => other.ms)),
      };
    });
  };

  const finish = async () => {
    ledger.close();
    for (const server of servers) await server.stop().catch(() => undefined);
    await proxy.close();
    await dynamoDb.stop();
  };
  process.once('SIGINT', () => {
    say(`SIGINT: writing what was measured to ${path.relative(root, partialDir)}/ (bench/results/ is kept), stopping`);
    report();
    void finish().then(() => process.exit(130));
  });

  let tracker: ReturnType<typeof trackPending> | undefined;
  try {
    const client = apiClient(server.url, Math.max(64, ...settings.writers));
    const census = new Census();
    const mix = { kind: 'topics', topics: settings.topics, perMagazine: settings.tags } as const;
    const createdOf = spreadOverTenYears(settings.size);
    const tag = topicTag(0).id;
    let articles: { magazineId: string; count: number } | undefined;
    const run: ScaleRun = { settings, client, census, ledger, server, since, pendingNow, measureRepeated };
    const queries = (): ListQuery[] =>
      listQueries(census, { tag, year: census.busiestYear(), ...(articles && { articles }) });
    const tagQueries = () => queries().filter((query) => query.path.startsWith('/tags?') || query.path === '/tags');

    // Each list's function started once (its init phase is not what is measured).
    for (const query of queries()) await client.get(query.path);
    tracker = trackPending(() => pendingNow(), 1_000, started);

    if (settings.articles > 0)
      await timed(`articles: ${n(settings.articles)} of one magazine`, async () => {
        const magazine = { id: 'many-articles', title: 'A magazine of many articles', tags: [], created: createdOf(0) };
        const made = await client.post('/magazines', magazine);
        if (made.status !== 201) throw new Error(`POST /magazines: ${made.status} ${made.text.slice(0, 300)}`);
        census.add(magazine);
        let created = 0;
        const outcome = await runLoad({
          client,
          count: settings.articles,
          concurrency: settings.articleWriters,
          request: (i) => ({ path: `/magazines/${magazine.id}/articles`, json: articleBody(i) }),
          onCreated: () => {
            created += 1;
          },
        });
        articles = { magazineId: magazine.id, count: created };
        results.articles = {
          posts: outcome.posts,
          created,
          seconds: outcome.seconds,
          perSecond: outcome.perSecond,
          statuses: outcome.statuses,
          serverErrors: server.takeServerErrors(),
          ...(outcome.failures[0] && { firstFailure: `${outcome.failures[0].status} ${outcome.failures[0].text}` }),
        };
        say(`  ${created} of ${outcome.posts} answered 201, ${outcome.perSecond.toFixed(0)} a second`);
      });

    let first = 0;
    for (const [index, writers] of settings.writers.entries()) {
      const count =
        index === settings.writers.length - 1
          ? settings.size - first
          : Math.floor(settings.size / settings.writers.length);
      const from = first;
      const name = `Phase ${index + 1}: ${n(count)} magazines${settings.uuidIds ? ' (UUID ids)' : ''} by ${writers} writers (${n(census.total)} → about ${n(census.total + count)})`;
      results.phases.push(
        await timed(name, () =>
          loadPart(run, {
            name,
            writers,
            count,
            draft: (i) => magazineDraft('m', from + i, mix, createdOf, settings.uuidIds),
            list: queries,
          }),
        ),
      );
      first += count;
      report();
    }

    const createCost = async (when: string) => {
      ensureServerRunning();
      const magazine = {
        id: `cost-${results.writeCosts.length}`,
        title: 'A magazine tagged News',
        tags: [{ id: 'news', name: 'News' }],
        created: createdOf(settings.size - 1),
      };
      const watch = ledger.watch();
      const reply = await client.post('/magazines', magazine);
      await sleep(300);
      const calls = watch.stop();
      if (reply.status === 201) census.add(magazine);
      const direct = localDynamoDbClient(dynamoDb.endpoint, { timeoutMs: 30_000 });
      try {
        results.writeCosts.push({
          when,
          distinctTags: census.tags().size,
          ...(await writeCost(direct, calls, operationsText(calls))),
        });
      } finally {
        direct.destroy();
      }
    };
    await createCost('after the phases');

    let distinct = census.tags().size;
    for (const [index, target] of settings.distinctTags.entries()) {
      const posts = Math.max(0, Math.ceil((target - distinct) / settings.newTags));
      if (posts === 0) continue;
      const name = `/tags after ${n(target)} distinct tags: ${n(posts)} POSTs of ${settings.newTags} new tags each${settings.scatteredTags ? ' (scattered ids)' : ''} by ${settings.writers[0]} writers`;
      const part = await timed(name, () =>
        loadPart(run, {
          name,
          writers: settings.writers[0]!,
          count: posts,
          draft: (i) =>
            magazineDraft(
              `t${index}`,
              i,
              { kind: 'new', perMagazine: settings.newTags, scattered: settings.scatteredTags },
              () => createdOf(settings.size - 1),
            ),
          list: tagQueries,
        }),
      );
      distinct = census.tags().size;
      results.tags.push({ ...part, distinctTags: distinct });
      await createCost(`after ${n(distinct)} distinct tags`);
      report();
    }

    if (settings.conflictRounds > 0)
      await timed(
        `64 concurrent POSTs under emulated conflicts, ${settings.conflictRounds} rounds of each`,
        async () => {
          await runConflicts(run, proxy, (conflictCase) => results.conflicts.push(conflictCase));
        },
      );
    results.pending = [...(await tracker.stop())];
    tracker = undefined;
    report();

    if (settings.direct > 0)
      await timed(`comparison only: ${n(settings.direct)} magazines written straight into a table`, async () => {
        results.direct = await runDirect(
          run,
          { root, tree, endpoint: dynamoDb.endpoint, proxyEndpoint: proxy.endpoint, scratch, mix, tag },
          (directServer) => servers.push(directServer),
        );
      });
    client.close();
  } finally {
    if (tracker) results.pending = [...(await tracker.stop())];
    report();
    await finish();
  }

  process.stdout.write(report({ complete: true }));
  process.exit(0);
};
