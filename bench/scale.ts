/**
 * `npm run bench:scale`: what list pages cost when users made the data. The API runs as users
 * start it (`npm start`, in a process of its own) on DynamoDB Local, with the test-support proxy in
 * front of DynamoDB counting every call; the collection is made through the API by concurrent
 * HTTP clients (test/support/api-load.ts), and every page is measured by the calls its own request
 * caused, while the writers run and after they stop. Writes bench/results/<name>.{md,json,svg}.
 * `--help` lists the options.
 *
 * The only look behind the API's back is the number of pending count items
 * (test/support/pending-counts.ts), read straight from DynamoDB Local, uncounted.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { readCommandLine } from '../scripts/support/cli';

const usage = `Usage: npm run bench:scale [-- options]

Loads a collection through the API (POST /magazines from concurrent HTTP clients against the local
server, on DynamoDB Local behind a counting proxy) and reports, per list query, the DynamoDB calls,
KB read and read units of one page and its latency: sampled while the writers run, and after they
stop (at each --quiet point); the pending count items over time; /tags after many distinct tags;
the articles of one magazine; 64 concurrent POSTs under emulated transaction conflicts.

Options (defaults in brackets):
  --size N               magazines in all, loaded in one phase per --writers entry   [100000]
  --writers A,B          concurrent writers of each phase, in order                   [24,64]
  --topics N             topics the magazines' tags are drawn from                    [50]
  --tags N               tags per magazine, out of --topics                           [2]
  --articles N           articles of one magazine, POSTed before the phases (0: none) [5000]
  --article-writers N    concurrent writers of those articles                         [4]
  --distinct-tags A,B    distinct tags in use to reach through POSTs of new tags, each
                         measured on /tags (100000 takes long: add it by hand)        [10000]
  --new-tags N           new tags per POST in that part                               [4]
  --quiet A,B,C          seconds after the writers stop at which pages are measured    [0,5,15]
  --repeats N            requests per page at each of those points (median latency)   [3]
  --sample-pause-ms N    pause between two samples while writers run                  [250]
  --conflict-rounds N    rounds of 64 concurrent POSTs under emulated conflicts
                         (distinct magazines, then all tagged news; 0: none)          [3]
  --direct N             also write N magazines straight into another table (the
                         repository's bulk path, no API) and measure its pages: a
                         comparison, never the figure (0: none)                       [0]
  --tree DIR             measure the API of another checkout (its npm start)          [this tree]
  --name NAME            results in bench/results/NAME.{md,json,svg}, written only
                         when the run completes (until then: dist/bench-partial/)    [scale]
  --help                 this text; runs nothing

The default run takes 10 to 15 minutes here when DynamoDB Local takes 100-300 transactions a
second; each part's time is in the output. The writers stop at nothing: an answer other than 201
is counted, reported, and looked up afterwards (GET) to know whether the magazine was made.
`;

const parsed = readCommandLine({
  command: 'npm run bench:scale',
  usage,
  options: {
    size: { type: 'string', default: '100000' },
    writers: { type: 'string', default: '24,64' },
    topics: { type: 'string', default: '50' },
    tags: { type: 'string', default: '2' },
    articles: { type: 'string', default: '5000' },
    'article-writers': { type: 'string', default: '4' },
    'distinct-tags': { type: 'string', default: '10000' },
    'new-tags': { type: 'string', default: '4' },
    quiet: { type: 'string', default: '0,5,15' },
    repeats: { type: 'string', default: '3' },
    'sample-pause-ms': { type: 'string', default: '250' },
    'conflict-rounds': { type: 'string', default: '3' },
    direct: { type: 'string', default: '0' },
    tree: { type: 'string' },
    name: { type: 'string', default: 'scale' },
    help: { type: 'boolean', short: 'h', default: false },
  },
}).values;

const whole = (name: string, text: string, least = 0): number => {
  const value = Number(text);
  if (!Number.isInteger(value) || value < least) {
    process.stderr.write(`--${name}: ${text} is not a whole number of at least ${least}\n`);
    process.exit(2);
  }
  return value;
};
const wholes = (name: string, text: string, least = 0) => text.split(',').map((part) => whole(name, part, least));

const settings = {
  size: whole('size', parsed.size, 1),
  writers: wholes('writers', parsed.writers, 1),
  topics: whole('topics', parsed.topics, 1),
  tags: whole('tags', parsed.tags),
  articles: whole('articles', parsed.articles),
  articleWriters: whole('article-writers', parsed['article-writers'], 1),
  distinctTags: wholes('distinct-tags', parsed['distinct-tags']).filter((n) => n > 0),
  newTags: whole('new-tags', parsed['new-tags'], 1),
  quiet: wholes('quiet', parsed.quiet),
  repeats: whole('repeats', parsed.repeats, 1),
  samplePauseMs: whole('sample-pause-ms', parsed['sample-pause-ms']),
  conflictRounds: whole('conflict-rounds', parsed['conflict-rounds']),
  direct: whole('direct', parsed.direct),
  name: parsed.name,
};
if (!/^[\w.-]+$/.test(settings.name)) {
  process.stderr.write(`--name: ${settings.name} is not a file name\n`);
  process.exit(2);
}

// Imported once the options are known to be good: nothing starts before.
const { DynamoDBDocumentClient } = await import('@aws-sdk/lib-dynamodb');
const { localDynamoDbClient, startDynamoDbLocal } = await import('../local/dynamodb-local');
const load = await import('../test/support/api-load');
const { startFaultProxy } = await import('../test/support/dynamodb-faults');
const { pendingCountItems } = await import('../test/support/pending-counts');
const { startApiServer } = await import('./support/api-server');
const { median, percentile, table } = await import('./support/stats');
const { writeCost } = await import('./support/write-cost');
type PageFigures = import('../test/support/api-load').PageFigures;
type LoadOutcome = import('../test/support/api-load').LoadOutcome;
type ListQuery = import('../test/support/api-load').ListQuery;
type MagazineDraft = import('../test/support/api-load').MagazineDraft;
type ApiClient = import('../test/support/api-load').ApiClient;
type WriteCost = import('./support/write-cost').WriteCost;
type DirectLoadJob = import('./support/scale-child').DirectLoadJob;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tree = parsed.tree ? path.resolve(parsed.tree) : root;
if (!existsSync(path.join(tree, 'scripts', 'start.ts')) || !existsSync(path.join(tree, 'node_modules'))) {
  process.stderr.write(`--tree ${tree}: no scripts/start.ts or node_modules there\n`);
  process.exit(2);
}
const resultsDir = path.join(root, 'bench', 'results');
const partialDir = path.join(root, 'dist', 'bench-partial');
const scratch = mkdtempSync(path.join(tmpdir(), 'magazine-scale-'));
process.once('exit', () => rmSync(scratch, { recursive: true, force: true }));
const say = (line: string) => process.stderr.write(`${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const commit = await promisify(execFile)('git', ['rev-parse', '--short', 'HEAD'], { cwd: tree }).then(
  ({ stdout }) => stdout.trim(),
  () => 'unknown',
);

/** Targets of issue 18, shown beside each figure. */
const TARGET = { ...load.PAGE_TARGET, cancelledPerPost: 0.23 } as const;
const isCursor = load.isCursorPage;
const withinTarget = load.withinPageTarget;

// ---------------------------------------------------------------------------------------------
// What is kept

interface Sample {
  /** Since the run started. */
  readonly ms: number;
  readonly magazines: number;
  readonly pending: number | undefined;
  readonly pages: PageFigures[];
}

/** A page measured `repeats` times at one point: the most calls and bytes seen, the median latency. */
type PointPage = Omit<PageFigures, 'ms' | 'count'> & { readonly medianMs: number };

interface QuietPoint {
  readonly quietSeconds: number;
  readonly pending: number | undefined;
  readonly pages: PointPage[];
}

interface LoadPart {
  readonly name: string;
  readonly writers: number;
  readonly posts: number;
  /** Magazines in the collection after it. */
  readonly magazines: number;
  readonly outcome: Omit<LoadOutcome, 'failures'> & { readonly failures: LoadOutcome['failures'] };
  /** Answers other than 201 whose magazine exists all the same (GET afterwards). */
  readonly madeDespiteFailure: number;
  /** The server's answers of 500 and more meanwhile, by operation, status and reason (its metrics lines). */
  readonly serverErrors: Record<string, number>;
  readonly samples: Sample[];
  readonly after: QuietPoint[];
}

interface ConflictCase {
  readonly name: string;
  readonly posts: number;
  /** Per round. */
  readonly failures: number[];
  readonly transactionsPerPost: number[];
  readonly cancelledPerPost: number[];
  readonly cancelledBy: Record<string, number>[];
  readonly p50Ms: number[];
  readonly p99Ms: number[];
  readonly statuses: Record<string, number>;
  readonly serverErrors: Record<string, number>;
  /** The first few answers other than 201. */
  readonly failureTexts: string[];
}

const results = {
  generated: '',
  command: `npm run bench:scale${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
  tree: `${path.relative(root, tree) || 'this tree'} (${commit})`,
  node: process.versions.node,
  settings,
  timings: [] as { part: string; seconds: number }[],
  articles: undefined as
    | {
        posts: number;
        created: number;
        seconds: number;
        perSecond: number;
        statuses: Readonly<Record<string, number>>;
        serverErrors: Record<string, number>;
        firstFailure?: string;
      }
    | undefined,
  phases: [] as LoadPart[],
  tags: [] as (LoadPart & { readonly distinctTags: number })[],
  writeCosts: [] as (WriteCost & { readonly when: string; readonly distinctTags: number })[],
  conflicts: [] as ConflictCase[],
  direct: undefined as { size: number; loadSeconds: number; pages: PointPage[] } | undefined,
  /** The server ended by itself: during which part, and what it said. The run stops there. */
  serverStopped: undefined as { part: string; how: string } | undefined,
  pending: [] as { ms: number; pending: number }[],
  marks: [] as { ms: number; label: string }[],
};

// ---------------------------------------------------------------------------------------------
// Report

const kb = (bytes: number) =>
  (bytes / 1024).toLocaleString('en', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const ms = (value: number) => (Number.isNaN(value) ? '—' : value.toFixed(0));
const n = (value: number) => value.toLocaleString('en');
const mark = (ok: boolean) => (ok ? '✔' : '✘');

const pageCell = (page: PointPage | undefined) =>
  page
    ? `${page.status === 200 ? '' : `**${page.status}** `}${page.calls} · ${kb(page.bytes)} KB · ${ms(page.medianMs)} ms ${mark(withinTarget(page))}`
    : '—';

const partTable = (part: LoadPart) => {
  const names = [
    ...new Set([...part.samples.flatMap((s) => s.pages), ...part.after.flatMap((a) => a.pages)].map((p) => p.name)),
  ];
  const rows = names.map((name) => {
    const during = part.samples.flatMap((sample) => sample.pages.filter((page) => page.name === name));
    const most = (pick: (page: PageFigures) => number) => (during.length ? Math.max(...during.map(pick)) : Number.NaN);
    const failed = during.filter((page) => page.status !== 200).length;
    const duringOk = during.every(withinTarget);
    return [
      name,
      isCursor(name) ? `≤ ${TARGET.cursorCalls}, ≤ 64` : `≤ ${TARGET.calls}, ≤ 64`,
      during.length
        ? `${most((p) => p.calls)} · ${kb(most((p) => p.bytes))} KB · ${ms(median(during.map((p) => p.ms)))} ms ${mark(duringOk)}${failed ? ` (${failed} not 200)` : ''}`
        : '—',
      during.length ? `${most((p) => p.readUnits).toFixed(1)}` : '—',
      ...part.after.map((point) => pageCell(point.pages.find((page) => page.name === name))),
    ];
  });
  return table(
    [
      'query',
      'target: calls, KB',
      `during (${part.samples.length} samples): most calls · most KB · median ms`,
      'during: most read units',
      ...part.after.map((point) => `after ${point.quietSeconds} s quiet`),
    ],
    rows,
    ['l', 'l', 'r', 'r', ...part.after.map(() => 'r' as const)],
  );
};

const errorsText = (errors: Record<string, number>) =>
  Object.entries(errors)
    .map(([what, count]) => `${count}× ${what}`)
    .join(', ');

const loadLine = (part: LoadPart) => {
  const { outcome } = part;
  const others = Object.entries(outcome.statuses)
    .filter(([status]) => status !== '201')
    .map(([status, count]) => `${count}× ${status === '0' ? 'no answer' : status}`);
  const serverErrors = errorsText(part.serverErrors);
  return `${n(outcome.posts)} POSTs by ${part.writers} writers in ${outcome.seconds.toFixed(0)} s (${outcome.perSecond.toFixed(0)} a second; p50 ${ms(outcome.p50Ms)} ms, p99 ${ms(outcome.p99Ms)} ms): ${n(outcome.created)} answered 201${others.length ? `, ${others.join(', ')} (of which ${part.madeDespiteFailure} made the magazine all the same)` : ''}. ${n(part.magazines)} magazines after it.${[...new Map(outcome.failures.map((failure) => [failure.status, failure])).values()].map((failure) => ` First ${failure.status === 0 ? 'request with no answer' : `${failure.status}`}: \`${failure.text.slice(0, 160)}\`.`).join('')}${serverErrors ? ` The server's answers of 500 and more meanwhile (its metrics lines: operation, status, reason): ${serverErrors}.` : ''}`;
};

const pendingRows = (part: LoadPart) => {
  const points = part.samples.filter((sample) => sample.pending !== undefined);
  const step = Math.max(1, Math.ceil(points.length / 8));
  const picked = points.filter((_, i) => i % step === 0 || i === points.length - 1);
  return [
    ...picked.map((sample) => [part.name, `during, ${n(sample.magazines)} magazines`, n(sample.pending!)]),
    ...part.after.map((point) => [
      part.name,
      `after ${point.quietSeconds} s quiet`,
      point.pending === undefined ? '—' : n(point.pending),
    ]),
  ];
};

/** Pending count items against time, one line, the parts marked. */
const pendingSvg = () => {
  const points = results.pending;
  if (points.length < 2) return undefined;
  const width = 860;
  const height = 360;
  const margin = { left: 70, right: 20, top: 30, bottom: 40 };
  const xMax = Math.max(...points.map((p) => p.ms), 1);
  const yMax = Math.max(...points.map((p) => p.pending), 10);
  const x = (value: number) => margin.left + (value / xMax) * (width - margin.left - margin.right);
  const y = (value: number) => height - margin.bottom - (value / yMax) * (height - margin.top - margin.bottom);
  const xmlText = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;');
  return `${[
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="${margin.left}" y="18" font-size="13">Pending count items against time (${xmlText(results.tree)}; read behind the API's back)</text>`,
    ...[0, 0.25, 0.5, 0.75, 1].flatMap((f) => [
      `<line x1="${margin.left}" x2="${width - margin.right}" y1="${y(f * yMax)}" y2="${y(f * yMax)}" stroke="#ddd"/>`,
      `<text x="${margin.left - 6}" y="${y(f * yMax) + 4}" text-anchor="end">${Math.round(f * yMax)}</text>`,
    ]),
    ...results.marks.flatMap((m, i) => {
      const at = x(m.ms).toFixed(1);
      // Labels of the later parts end at their line, so that they stay inside the chart.
      const late = x(m.ms) > width / 2;
      return [
        `<line x1="${at}" x2="${at}" y1="${margin.top}" y2="${height - margin.bottom}" stroke="#999" stroke-dasharray="3,3"/>`,
        `<text x="${late ? x(m.ms) - 3 : x(m.ms) + 3}" y="${margin.top + 12 + (i % 4) * 12}" text-anchor="${late ? 'end' : 'start'}" fill="#555">${xmlText(m.label)}</text>`,
      ];
    }),
    `<polyline fill="none" stroke="#d95f02" stroke-width="2" points="${points.map((p) => `${x(p.ms).toFixed(1)},${y(p.pending).toFixed(1)}`).join(' ')}"/>`,
    `<text x="${(margin.left + width - margin.right) / 2}" y="${height - 10}" text-anchor="middle">seconds since the start (${(xMax / 1000).toFixed(0)} s in all)</text>`,
    '</svg>',
  ].join('\n')}\n`;
};

/**
 * Writes what was measured so far. Only a completed run writes bench/results/: a part's report, a
 * Ctrl-C or a failure goes to dist/bench-partial/ (ignored by git), so that the committed figures
 * are never replaced by an unfinished run's.
 */
const report = ({ complete = false } = {}) => {
  results.generated = new Date().toISOString();
  const total = results.timings.reduce((sum, t) => sum + t.seconds, 0);
  const md = [
    '# Scale: list pages when users made the data',
    '',
    `Generated by \`${results.command}\` on ${results.generated}, the API of ${results.tree} as \`npm start\` runs it, Node ${results.node}. ${(total / 60).toFixed(1)} min in all.`,
    '',
    `Every magazine, tag and article here was made through the API: POSTs over HTTP from concurrent clients to the local server, on DynamoDB Local, with a proxy in front of DynamoDB that records every call (test/support/dynamodb-faults.ts). A page's figures are the calls its own request caused (its function's calls between the request and the answer; writers' calls carry another operation): calls · KB that DynamoDB sent back · latency. "During" is the most calls and bytes over the samples taken while the writers ran, one page of each list after the other; "after" is measured when the writers had stopped for that long, ${settings.repeats} requests a page (most calls and bytes, median latency). Targets of issue 18: every page ≤ ${TARGET.calls} calls and ≤ 64 KB, a cursor page ≤ ${TARGET.cursorCalls} calls (✔ within, ✘ not). Latency is of a machine shared with other work: an indication; calls and bytes are the figures.`,
    '',
    `Each magazine has ${settings.tags} of ${settings.topics} topics (\`topic-00\`… ; the tag queries use \`topic-00\`), created times spread evenly over ten years in the order written; the year queries use the year with the most magazines so far.`,
    '',
    '## Time taken',
    '',
    table(
      ['part', 'seconds'],
      results.timings.map((t) => [t.part, t.seconds.toFixed(0)]),
      ['l', 'r'],
    ),
    '',
    ...(results.serverStopped
      ? [
          '## The API server ended by itself',
          '',
          `During "${results.serverStopped.part}"; the run stopped there. What it said:`,
          '',
          '```',
          results.serverStopped.how,
          '```',
          '',
        ]
      : []),
    ...(results.articles
      ? [
          '## Articles of one magazine',
          '',
          `${n(results.articles.posts)} POSTs of articles of one magazine by ${settings.articleWriters} writers in ${results.articles.seconds.toFixed(0)} s (${results.articles.perSecond.toFixed(0)} a second): ${Object.entries(
            results.articles.statuses,
          )
            .map(([status, count]) => `${count}× ${status}`)
            .join(
              ', ',
            )}.${results.articles.firstFailure ? ` First answer other than 201: \`${results.articles.firstFailure.slice(0, 200)}\`.` : ''}${Object.keys(results.articles.serverErrors).length ? ` Server: ${errorsText(results.articles.serverErrors)}.` : ''} Their pages are measured with the lists below.`,
          '',
        ]
      : []),
    ...results.phases.flatMap((part) => [`## ${part.name}`, '', loadLine(part), '', partTable(part), '']),
    ...(results.phases.length || results.tags.length
      ? [
          '## Pending count items over time',
          '',
          "Read behind the API's back (test/support/pending-counts.ts): the count items a reader must still add up. Every second of the run in the JSON and the chart.",
          '',
          table(['part', 'when', 'pending'], [...results.phases, ...results.tags].flatMap(pendingRows), [
            'l',
            'l',
            'r',
          ]),
          '',
          `![Pending count items against time](${settings.name}.svg)`,
          '',
        ]
      : []),
    ...results.tags.flatMap((part) => [`## ${part.name}`, '', loadLine(part), '', partTable(part), '']),
    ...(results.writeCosts.length
      ? [
          '## Write capacity of one create (POST tagged `News`)',
          '',
          '"Reported" is the `ConsumedCapacity` DynamoDB Local returns (2 per TransactWriteItems whatever its items: a floor); "model" reads back every item the POST wrote or checked and counts what DynamoDB bills, 1 unit per KB rounded up, 2 in a transaction. Calls within 300 ms of the answer are counted with it.',
          '',
          table(
            ['when', 'distinct tags', 'calls', 'reported write units', 'model write units', 'largest item, KB'],
            results.writeCosts.map((c) => [
              c.when,
              n(c.distinctTags),
              c.operations,
              c.reportedWriteUnits.toFixed(0),
              c.modelWriteUnits.toFixed(0),
              kb(c.largestItemBytes),
            ]),
            ['l', 'r', 'l', 'r', 'r', 'r'],
          ),
          '',
        ]
      : []),
    ...(results.conflicts.length
      ? [
          '## 64 concurrent POSTs under emulated transaction conflicts',
          '',
          `The proxy cancels a TransactWriteItems that overlaps another in flight on a shared item (and a single write that meets one), as DynamoDB does; DynamoDB Local alone runs them one at a time. ${settings.conflictRounds} rounds of 64 POSTs at once on the loaded collection; every TransactWriteItems anyone sent from the first POST until a second after the last answer is counted, folds and background work included. Median over the rounds (min–max). Target: 0 failures, ≤ ${TARGET.cancelledPerPost} cancelled per POST.`,
          '',
          table(
            [
              'POSTs',
              'rounds × POSTs',
              'failures (statuses)',
              'TransactWriteItems per POST',
              'cancelled per POST',
              'cancelled, by operation (all rounds)',
              "server's 5xx (reason)",
              'p50 / p99 ms',
            ],
            results.conflicts.map((c) => {
              const spread = (values: number[]) =>
                `${median(values).toFixed(2)} (${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)})`;
              const by: Record<string, number> = {};
              for (const round of c.cancelledBy)
                for (const [what, count] of Object.entries(round)) by[what] = (by[what] ?? 0) + count;
              const failures = c.failures.reduce((a, b) => a + b, 0);
              return [
                c.name,
                `${c.failures.length} × ${c.posts}`,
                `${failures} ${mark(failures === 0)} (${Object.entries(c.statuses)
                  .map(([status, count]) => `${count}× ${status}`)
                  .join(', ')})`,
                spread(c.transactionsPerPost),
                `${spread(c.cancelledPerPost)} ${mark(median(c.cancelledPerPost) <= TARGET.cancelledPerPost)}`,
                Object.entries(by)
                  .map(([what, count]) => `${count} ${what}`)
                  .join(', ') || '—',
                errorsText(c.serverErrors) || '—',
                `${ms(median(c.p50Ms))} / ${ms(median(c.p99Ms))}`,
              ];
            }),
            ['l', 'r', 'l', 'r', 'r', 'l', 'l', 'r'],
          ),
          '',
          ...results.conflicts.flatMap((c) =>
            c.failureTexts.length
              ? [`First failures, ${c.name}: ${c.failureTexts.map((text) => `\`${text}\``).join('; ')}`, '']
              : [],
          ),
        ]
      : []),
    ...(results.direct
      ? [
          `## Comparison only: ${n(results.direct.size)} magazines written straight into a table`,
          '',
          `Not a figure of the API under use: the same magazines written by the repository's bulk path (BatchWriteItem of repository-shaped items, no API, ${results.direct.loadSeconds.toFixed(0)} s), as this benchmark loaded them before; no write leaves count work behind this way. Measured the same way, after the load.`,
          '',
          table(
            ['query', 'calls · KB · median ms'],
            results.direct.pages.map((page) => [page.name, pageCell(page)]),
            ['l', 'r'],
          ),
          '',
        ]
      : []),
  ].join('\n');
  const dir = complete ? resultsDir : partialDir;
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `${settings.name}.md`), md);
  writeFileSync(path.join(dir, `${settings.name}.json`), `${JSON.stringify(results, null, 1)}\n`);
  const svg = pendingSvg();
  if (svg) writeFileSync(path.join(dir, `${settings.name}.svg`), svg);
  return md;
};

// ---------------------------------------------------------------------------------------------
// The run

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
const ledger = new load.CallLedger(proxy);
// Straight to DynamoDB Local: the inspection of pending count items is not the API's work.
const inspector = DynamoDBDocumentClient.from(localDynamoDbClient(dynamoDb.endpoint, { timeoutMs: 60_000 }));
/** The lists the load writes to most: the topics' (the collection's and `/tags` are always watched). */
const watchedTags = Array.from({ length: settings.topics }, (_, topic) => load.topicTag(topic).id);
const pendingNow = (table = tableName) => pendingCountItems(inspector, table, watchedTags);

/** Every page of `list`, `repeats` times: per page the most calls and bytes, the median latency. */
const measureRepeated = async (apiClient: ApiClient, list: readonly ListQuery[]): Promise<PointPage[]> => {
  const all: PageFigures[] = [];
  for (let r = 0; r < settings.repeats; r++) all.push(...(await load.measurePages(apiClient, ledger, list)));
  return load.worstPages(all).map(({ ms: _ms, count: _count, ...page }) => {
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

let tracker: ReturnType<typeof load.trackPending> | undefined;
try {
  const client = load.apiClient(server.url, Math.max(64, ...settings.writers));
  const census = new load.Census();
  const mix = { kind: 'topics', topics: settings.topics, perMagazine: settings.tags } as const;
  const createdOf = load.spreadOverTenYears(settings.size);
  const tag = load.topicTag(0).id;
  let articles: { magazineId: string; count: number } | undefined;
  const queries = (): ListQuery[] =>
    load.listQueries(census, { tag, year: census.busiestYear(), ...(articles && { articles }) });
  const tagQueries = () => queries().filter((query) => query.path.startsWith('/tags?') || query.path === '/tags');

  // Each list's function started once (its init phase is not what is measured).
  for (const query of queries()) await client.get(query.path);
  tracker = load.trackPending(() => pendingNow(), 1_000, started);

  const measurePoint = async (quietSeconds: number, list: readonly ListQuery[]): Promise<QuietPoint> => ({
    quietSeconds,
    pages: await measureRepeated(client, list),
    pending: await pendingNow().catch(() => undefined),
  });

  /** `count` POSTs by `writers`, sampled meanwhile, then measured after each quiet point. */
  const loadPart = async (options: {
    readonly name: string;
    readonly writers: number;
    readonly count: number;
    readonly draft: (i: number) => MagazineDraft;
    readonly list: () => ListQuery[];
  }): Promise<LoadPart> => {
    const { name, writers, count, draft, list } = options;
    const samples: Sample[] = [];
    let lastSay = 0;
    const { outcome, failed } = await load.loadMagazines({
      client,
      count,
      concurrency: writers,
      draft,
      census,
      pauseMs: settings.samplePauseMs,
      during: async () => {
        const pages = await load.measurePages(client, ledger, list());
        const pending = await pendingNow().catch(() => undefined);
        samples.push({ ms: since(), magazines: census.total, pending, pages });
      },
      onAnswer: ({ answered, elapsedMs }) => {
        if (elapsedMs - lastSay < 30_000 && answered < count) return;
        lastSay = elapsedMs;
        const left = ((count - answered) * elapsedMs) / answered / 60_000;
        say(
          `  ${n(answered)} of ${n(count)} in ${(elapsedMs / 1000).toFixed(0)} s (${((answered * 1000) / elapsedMs).toFixed(0)} a second, ${left.toFixed(0)} min left at that rate), ${n(census.total)} magazines, pending ${samples.at(-1)?.pending ?? '?'}, first page ${samples.at(-1)?.pages[0] ? `${samples.at(-1)!.pages[0]!.calls} calls, ${kb(samples.at(-1)!.pages[0]!.bytes)} KB` : '?'}`,
        );
      },
    });
    const stopped = performance.now();
    const after: QuietPoint[] = [];
    for (const quiet of settings.quiet) {
      await sleep(Math.max(0, stopped + quiet * 1000 - performance.now()));
      after.push(await measurePoint(quiet, list()));
    }
    const serverErrors = server.takeServerErrors();
    // Last, so that the quiet points are quiet: a client that got no 201 looks whether it was made.
    const madeDespiteFailure = (await load.lookUpFailed(client, census, failed)).length;
    return {
      name,
      writers,
      posts: count,
      magazines: census.total,
      outcome,
      madeDespiteFailure,
      serverErrors,
      samples,
      after,
    };
  };

  if (settings.articles > 0)
    await timed(`articles: ${n(settings.articles)} of one magazine`, async () => {
      const magazine = { id: 'many-articles', title: 'A magazine of many articles', tags: [], created: createdOf(0) };
      const made = await client.post('/magazines', magazine);
      if (made.status !== 201) throw new Error(`POST /magazines: ${made.status} ${made.text.slice(0, 300)}`);
      census.add(magazine);
      let created = 0;
      const outcome = await load.runLoad({
        client,
        count: settings.articles,
        concurrency: settings.articleWriters,
        request: (i) => ({ path: `/magazines/${magazine.id}/articles`, json: load.articleBody(i) }),
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
    const name = `Phase ${index + 1}: ${n(count)} magazines by ${writers} writers (${n(census.total)} → about ${n(census.total + count)})`;
    results.phases.push(
      await timed(name, () =>
        loadPart({
          name,
          writers,
          count,
          draft: (i) => load.magazineDraft('m', from + i, mix, createdOf),
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
        ...(await writeCost(direct, calls, load.operationsText(calls))),
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
    const name = `/tags after ${n(target)} distinct tags: ${n(posts)} POSTs of ${settings.newTags} new tags each by ${settings.writers[0]} writers`;
    const part = await timed(name, () =>
      loadPart({
        name,
        writers: settings.writers[0]!,
        count: posts,
        draft: (i) =>
          load.magazineDraft(`t${index}`, i, { kind: 'new', perMagazine: settings.newTags }, () =>
            createdOf(settings.size - 1),
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
    await timed(`64 concurrent POSTs under emulated conflicts, ${settings.conflictRounds} rounds of each`, async () => {
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
        server.takeServerErrors();
        for (let round = 0; round < settings.conflictRounds; round++) {
          await sleep(1_000);
          const watch = ledger.watch();
          const replies = await Promise.all(
            Array.from({ length: 64 }, () => {
              const i = serial++;
              return client.post('/magazines', { id: `conflict-${i}`, title: `Concurrent ${i}`, tags: tagsOf(i) });
            }),
          );
          await sleep(1_000);
          const transactions = watch.stop().filter((call) => call.operation === 'TransactWriteItems');
          const cancelled = transactions.filter((call) => call.outcome === 'conflict');
          const by: Record<string, number> = {};
          for (const call of cancelled) by[call.caller ?? 'other'] = (by[call.caller ?? 'other'] ?? 0) + 1;
          for (const reply of replies)
            conflictCase.statuses[reply.status] = (conflictCase.statuses[reply.status] ?? 0) + 1;
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
        Object.assign(conflictCase.serverErrors, server.takeServerErrors());
        results.conflicts.push(conflictCase);
      }
      proxy.setConflicts(false);
    });
  results.pending = [...(await tracker.stop())];
  tracker = undefined;
  report();

  if (settings.direct > 0)
    await timed(`comparison only: ${n(settings.direct)} magazines written straight into a table`, async () => {
      const directTable = 'scale-direct';
      const job: DirectLoadJob = {
        tree,
        endpoint: dynamoDb.endpoint,
        table: directTable,
        size: settings.direct,
        prefix: 'm',
        mix,
      };
      const jobFile = path.join(scratch, 'direct.json');
      writeFileSync(jobFile, JSON.stringify(job));
      const loadStarted = performance.now();
      const code = await new Promise<number | null>((resolve, reject) => {
        const child = spawn(
          process.execPath,
          ['--import', 'tsx', path.join(root, 'bench', 'support', 'scale-child.ts'), jobFile],
          {
            cwd: root,
            env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
            stdio: ['ignore', 2, 2],
          },
        );
        child.once('error', reject);
        child.once('exit', resolve);
      });
      if (code !== 0) throw new Error(`The direct load failed (exit ${code}).`);
      const loadSeconds = (performance.now() - loadStarted) / 1000;
      const directServer = await startApiServer({
        tree,
        endpoint: proxy.endpoint,
        tableName: directTable,
        logFile: path.join(scratch, 'direct.log'),
      });
      servers.push(directServer);
      const directClient = load.apiClient(directServer.url);
      const directCensus = new load.Census();
      const directCreated = load.spreadOverTenYears(settings.direct);
      for (let i = 0; i < settings.direct; i++) directCensus.add(load.magazineDraft('m', i, mix, directCreated));
      const list = load.listQueries(directCensus, { tag, year: directCensus.busiestYear() });
      for (const query of list) await directClient.get(query.path);
      results.direct = { size: settings.direct, loadSeconds, pages: await measureRepeated(directClient, list) };
      directClient.close();
    });
  client.close();
} finally {
  if (tracker) results.pending = [...(await tracker.stop())];
  report();
  await finish();
}

process.stdout.write(report({ complete: true }));
process.exit(0);
