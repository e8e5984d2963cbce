/**
 * `npm run bench:scale`: the API at 1k, 10k and 100k magazines on DynamoDB Local, behind the
 * test-support proxy that counts every call (test/support/dynamodb-faults.ts), and the 64-writer
 * conflict measurement under the proxy's emulation of DynamoDB's `TransactionConflict`. Writes
 * bench/results/scale.{md,json,svg}.
 *
 * Every measurement runs in a fresh process (handlers read their table when they load) on one
 * DynamoDB Local, in memory:
 *
 * - `lists`, per size: the collection loaded through the data layer's own PUT /magazines path
 *   (repository `replaceAllMagazines`, BatchWriteItem of repository-shaped items), then each list
 *   query through the local API: DynamoDB calls, KB read (bodies DynamoDB sent), read units, and
 *   wall latency (median of the repeats; the machine is shared, so latency is indicative and the
 *   calls and bytes are the figures).
 * - `tags`: one POST's consumed write capacity (`ReturnConsumedCapacity`, as DynamoDB Local
 *   reports it) and a model of what DynamoDB would bill (1 unit per KB of each item written, after
 *   the write, twice in a transaction) with 10 distinct tags in use, then with 10,000.
 * - `conflicts`: 64 concurrent POSTs of distinct magazines (each with tags of its own), then 64
 *   that all carry the tag `news`, with the proxy cancelling a transaction that overlaps another
 *   in flight on a shared item. Retries per POST are the write attempts the proxy refused for a
 *   conflict, per POST; failures are answers other than 201.
 *
 * With `--before <dir>` (a checkout of the old design, such as commit a82d006, with its
 * node_modules), `tags` and `conflicts` run on it too, through the same proxy.
 *
 * Options: `--sizes 1000,10000,100000`, `--repeats N` (5), `--rounds N` (3 rounds of 64 writers),
 * `--parts lists,tags,conflicts,articles` (all), `--articles N` (10,000 articles of one magazine, written
 * one by one), `--merge` (keep the parts not run from bench/results/scale.json).
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startDynamoDbLocal } from '../local/dynamodb-local';
import { count, option } from './support/cli';
import type { ChildJob, ConflictResult, ListResult, TagsResult } from './support/scale-child';
import { fixed, median, table } from './support/stats';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const resultsDir = path.join(root, 'bench', 'results');
const say = (line: string) => process.stderr.write(`${line}\n`);

const sizes = (option('--sizes') ?? '1000,10000,100000').split(',').map((size) => {
  const value = Number(size);
  if (!Number.isInteger(value) || value < 100) throw new Error(`--sizes: ${size} is not a size of at least 100`);
  return value;
});
const repeats = count('--repeats', 5);
const parts = new Set((option('--parts') ?? 'lists,tags,conflicts,articles').split(','));
const articleCount = count('--articles', 10_000);
const merge = process.argv.includes('--merge');
const rounds = count('--rounds', 3);
const before = option('--before') ? path.resolve(option('--before')!) : undefined;
if (before && !existsSync(path.join(before, 'node_modules')))
  throw new Error(`--before ${before}: no node_modules there (link this tree's).`);

const shortCommit = (dir: string) =>
  promisify(execFile)('git', ['rev-parse', '--short', 'HEAD'], { cwd: dir }).then(({ stdout }) => stdout.trim());

const scratch = mkdtempSync(path.join(tmpdir(), 'magazine-scale-'));
process.once('exit', () => rmSync(scratch, { recursive: true, force: true }));
let jobs = 0;
const child = path.join(root, 'bench', 'support', 'scale-child.ts');

const runChild = async <Result>(job: ChildJob): Promise<Result> => {
  const id = jobs++;
  const jobFile = path.join(scratch, `job-${id}.json`);
  const resultFile = path.join(scratch, `result-${id}.json`);
  writeFileSync(jobFile, JSON.stringify(job));
  const started = Date.now();
  // The child's progress lines pass through; it exits 0 once it has written its result.
  const code = await new Promise<number | null>((resolve, reject) => {
    const process1 = spawn(process.execPath, ['--import', 'tsx', child, jobFile, resultFile], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
      stdio: ['ignore', 2, 2],
    });
    process1.once('error', reject);
    process1.once('exit', resolve);
  });
  if (code !== 0) throw new Error(`The ${job.kind} job failed (exit ${code}).`);
  say(
    `  ${job.kind}${'size' in job ? ` ${job.size}` : ''} (${job.tree}): ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
  return JSON.parse(readFileSync(resultFile, 'utf8')) as Result;
};

const nowLabel = `this tree (${await shortCommit(root)})`;
const beforeLabel = before ? `before (${await shortCommit(before)})` : undefined;

const lists: ListResult[] = [];
const tags: { label: string; result: TagsResult }[] = [];
const conflicts: { label: string; result: ConflictResult }[] = [];
let articles: ListResult | undefined;
let merged: string | undefined;
if (merge && existsSync(path.join(resultsDir, 'scale.json'))) {
  const previous = JSON.parse(readFileSync(path.join(resultsDir, 'scale.json'), 'utf8')) as {
    generated?: string;
    lists: ListResult[];
    tags: typeof tags;
    conflicts: typeof conflicts;
    articles?: ListResult;
  };
  if (!parts.has('lists')) lists.push(...previous.lists);
  if (!parts.has('tags')) tags.push(...previous.tags);
  if (!parts.has('conflicts')) conflicts.push(...previous.conflicts);
  if (!parts.has('articles')) articles = previous.articles;
  merged = previous.generated ?? 'an earlier run';
}
const command = process.argv.slice(2).join(' ');
const started = Date.now();

// ---------------------------------------------------------------------------------------------
// Report

/** Writes the results so far (after each measurement: a long run cut short keeps what it measured). */
const report = () => {
  const kb = (bytes: number) => (bytes / 1024).toFixed(1);
  /** A measured request's cells, from its URL to its median latency. */
  const measuredCells = (query: (typeof lists)[number]['queries'][number]) => [
    query.url,
    String(query.status),
    String(query.calls),
    query.operations,
    kb(query.bytes),
    fixed(query.readUnits, 1),
    fixed(query.medianMs, 1),
  ];
  const queryNames = lists[0]?.queries.map((query) => query.name) ?? [];
  const listRows = queryNames.flatMap((name) =>
    lists.map((list) => {
      const query = list.queries.find((q) => q.name === name)!;
      return [name, list.size.toLocaleString('en'), ...measuredCells(query)];
    }),
  );

  const flatness = queryNames.map((name) => {
    // queryNames is empty without lists.
    const first = lists[0]!.queries.find((q) => q.name === name)!;
    const last = lists.at(-1)!.queries.find((q) => q.name === name)!;
    return [
      name,
      `${first.calls} → ${last.calls}`,
      `${kb(first.bytes)} → ${kb(last.bytes)}`,
      `${(last.medianMs / first.medianMs).toFixed(2)}×`,
      last.calls <= 5 && last.bytes <= 256 * 1024 ? 'yes' : 'no',
    ];
  });

  /** Latency against collection size, one line per query, log–log. */
  const svg = (() => {
    if (lists.length === 0) return undefined;
    const width = 720;
    const height = 420;
    const margin = { left: 60, right: 200, top: 30, bottom: 50 };
    const xs = lists.map((list) => Math.log10(list.size));
    const values = lists.flatMap((list) => list.queries.map((q) => Math.max(q.medianMs, 0.1)));
    const yMin = Math.floor(Math.log10(Math.min(...values)));
    const yMax = Math.ceil(Math.log10(Math.max(...values)));
    const xMin = Math.min(...xs) - 0.1;
    const xMax = Math.max(...xs) + 0.1;
    const x = (value: number) => margin.left + ((value - xMin) / (xMax - xMin)) * (width - margin.left - margin.right);
    const y = (value: number) =>
      height -
      margin.bottom -
      ((Math.log10(value) - yMin) / Math.max(1, yMax - yMin)) * (height - margin.top - margin.bottom);
    const colours = [
      '#1b9e77',
      '#d95f02',
      '#7570b3',
      '#e7298a',
      '#66a61e',
      '#e6ab02',
      '#a6761d',
      '#666666',
      '#1f78b4',
      '#b15928',
    ];
    const svgParts: string[] = [
      `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="11">`,
      `<rect width="${width}" height="${height}" fill="white"/>`,
      `<text x="${margin.left}" y="18" font-size="13">Median latency of each list query against collection size (DynamoDB Local, log–log)</text>`,
    ];
    for (let power = yMin; power <= yMax; power++) {
      const value = 10 ** power;
      svgParts.push(
        `<line x1="${margin.left}" x2="${width - margin.right}" y1="${y(value)}" y2="${y(value)}" stroke="#ddd"/>`,
        `<text x="${margin.left - 6}" y="${y(value) + 4}" text-anchor="end">${value >= 1 ? value : value.toFixed(1)} ms</text>`,
      );
    }
    for (const list of lists)
      svgParts.push(
        `<text x="${x(Math.log10(list.size))}" y="${height - margin.bottom + 18}" text-anchor="middle">${list.size.toLocaleString('en')}</text>`,
      );
    svgParts.push(
      `<text x="${(margin.left + width - margin.right) / 2}" y="${height - 12}" text-anchor="middle">magazines</text>`,
    );
    queryNames.forEach((name, index) => {
      const colour = colours[index % colours.length]!;
      const points = lists.map((list) => {
        const query = list.queries.find((q) => q.name === name)!;
        return `${x(Math.log10(list.size)).toFixed(1)},${y(Math.max(query.medianMs, 0.1)).toFixed(1)}`;
      });
      svgParts.push(
        `<polyline fill="none" stroke="${colour}" stroke-width="2" points="${points.join(' ')}"/>`,
        ...points.map((point) => {
          const [cx, cy] = point.split(',');
          return `<circle cx="${cx}" cy="${cy}" r="3" fill="${colour}"/>`;
        }),
        `<rect x="${width - margin.right + 12}" y="${margin.top + index * 18 - 8}" width="10" height="10" fill="${colour}"/>`,
        `<text x="${width - margin.right + 28}" y="${margin.top + index * 18 + 1}">${name.replaceAll('&', '&amp;').replaceAll('<', '&lt;')}</text>`,
      );
    });
    svgParts.push('</svg>');
    return `${svgParts.join('\n')}\n`;
  })();

  const tagRows = tags.flatMap(({ label, result }) =>
    result.cases.map((c) => [
      label,
      c.distinctTags.toLocaleString('en'),
      c.operations,
      fixed(c.reportedWriteUnits, 1),
      fixed(c.modelWriteUnits, 1),
      kb(c.largestItemBytes),
      fixed(c.medianMs, 0),
    ]),
  );

  const conflictRows = conflicts.flatMap(({ label, result }) =>
    result.cases.map((c) => [
      label,
      c.name,
      String(c.posts),
      `${median(c.retriesPerPost).toFixed(2)} (${Math.min(...c.retriesPerPost).toFixed(2)}–${Math.max(...c.retriesPerPost).toFixed(2)})`,
      `${c.failures.reduce((a, b) => a + b, 0)} of ${c.posts * c.failures.length} (${c.statuses})`,
      fixed(median(c.p50Ms), 0),
      fixed(median(c.p99Ms), 0),
      fixed(median(c.wallMs), 0),
      (c.refusedBy ?? [])
        .map((by) =>
          Object.entries(by)
            .map(([what, n]) => `${n} ${what}`)
            .join(', '),
        )
        .join('; ') || '—',
    ]),
  );

  const retryRatio = (() => {
    if (conflicts.length < 2) return undefined;
    const [now, old] = conflicts;
    return now!.result.cases.map((c) => {
      const o = old!.result.cases.find((x) => x.name === c.name);
      const a = median(c.retriesPerPost);
      const b = o ? median(o.retriesPerPost) : Number.NaN;
      return `${c.name}: ${b.toFixed(2)} → ${a.toFixed(2)} retries per POST (${a === 0 ? (b > 0 ? 'none left' : 'none either way') : `${(b / a).toFixed(1)}× fewer`})`;
    });
  })();

  const markdown = [
    '# Scale: lists, tags and concurrent writers on DynamoDB Local',
    '',
    `Generated by \`npm run bench:scale${command ? ` -- ${command.replace(before ?? '\u0000', path.relative(root, before ?? '') || (before ?? ''))}` : ''}\` on ${new Date().toISOString()} (${((Date.now() - started) / 60_000).toFixed(1)} min), Node ${process.versions.node}${merged ? `, merged with the parts of ${merged} it did not run` : ''}. Sizes run: ${lists.map((list) => list.size.toLocaleString('en')).join(', ')} magazines (2 or 3 tags each out of 20 topics, \`news\` on one in four; created times spread evenly over ten years).`,
    '',
    'Calls and KB are what the counting proxy saw between the request and its answer (KB: the bodies DynamoDB sent back; read units: as DynamoDB Local reports them). Latency is the wall time of the HTTP request to the local API, median of the repeats, on a machine shared with other work: read it as an indication, and the calls and bytes as the figures.',
    '',
    '## Every page at first-page cost',
    '',
    table(
      ['query', 'magazines', 'request', 'status', 'DynamoDB calls', 'operations', 'KB read', 'read units', 'median ms'],
      listRows,
      ['l', 'r', 'l', 'r', 'r', 'l', 'r', 'r', 'r'],
    ),
    '',
    `From ${lists[0]?.size.toLocaleString('en')} to ${lists.at(-1)?.size.toLocaleString('en')} magazines (target at 100,000: at most 5 calls and 256 KB per page; a cursor page at most 3 calls):`,
    '',
    table(['query', 'calls', 'KB read', 'latency, largest / smallest', 'within 5 calls and 256 KB'], flatness, [
      'l',
      'r',
      'r',
      'r',
      'l',
    ]),
    '',
    '![Median latency against collection size](scale.svg)',
    '',
    'Before (issue 10, measured on the old design at 100k): `GET /magazines?offset=50000` made 15 calls, read 5.9 MB and took 4.1 s (181× the 1k figure); `GET /tags` read every shard item (143 KB at 100k).',
    '',
    ...(articles
      ? [
          `### Articles of one magazine with ${articles.size.toLocaleString('en')} articles`,
          '',
          table(
            ['query', 'request', 'status', 'DynamoDB calls', 'operations', 'KB read', 'read units', 'median ms'],
            articles.queries.map((query) => [query.name, ...measuredCells(query)]),
            ['l', 'l', 'r', 'r', 'l', 'r', 'r', 'r'],
          ),
          '',
        ]
      : []),
    '## Write capacity of a create, by distinct tags in use',
    '',
    'One POST of a magazine tagged `News` (median of 5), after PUT /magazines loaded 10 distinct tags, then 10,000. "Reported" is the `ConsumedCapacity` DynamoDB Local returns (it counts 2 units per TransactWriteItems whatever its items, so it is a floor); "model" reads back every item the POST wrote and counts what DynamoDB bills: 1 unit per KB (rounded up) of each item, 2 in a transaction.',
    '',
    table(
      [
        'tree',
        'distinct tags',
        'calls',
        'reported write units',
        'model write units',
        'largest item written, KB',
        'median ms',
      ],
      tagRows,
      ['l', 'r', 'l', 'r', 'r', 'r', 'r'],
    ),
    '',
    '## 64 concurrent writers under emulated transaction conflicts',
    '',
    `The proxy cancels a TransactWriteItems that overlaps another in flight on a shared item (and single writes that meet one), as DynamoDB does; DynamoDB Local alone runs transactions one at a time. ${rounds} rounds of 64 concurrent POSTs through the local API (one process: the SDK's sockets are shared, as they are not across Lambda instances), median over the rounds (min–max).`,
    '',
    table(
      [
        'tree',
        'writers',
        'POSTs',
        'retries per POST',
        'failures (statuses)',
        'p50 ms',
        'p99 ms',
        'all done, ms',
        'refused attempts, by what they wrote (per round)',
      ],
      conflictRows,
      ['l', 'l', 'r', 'r', 'l', 'r', 'r', 'r', 'l'],
    ),
    '',
    retryRatio
      ? `Old design against this tree, in the same run: ${retryRatio.join('; ')}.`
      : 'No `--before`: the old design is as the issue quotes it: at 64 concurrent, 1.9 retries per POST and 2.9 % answered 409; at 16, 0.9 retries with p99 at 1.2–1.5 s.',
    '',
  ].join('\n');

  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(path.join(resultsDir, 'scale.md'), markdown);
  if (svg) writeFileSync(path.join(resultsDir, 'scale.svg'), svg);
  writeFileSync(
    path.join(resultsDir, 'scale.json'),
    `${JSON.stringify({ generated: new Date().toISOString(), node: process.versions.node, sizes, repeats, rounds, lists, tags, conflicts, articles }, null, 2)}\n`,
  );
  return markdown;
};

say('Starting DynamoDB Local…');
const dynamoDb = await startDynamoDbLocal();
try {
  // Tags and writers first: lists grow slow with size, and a run cut short keeps what it measured.
  for (const [label, tree] of [[nowLabel, root], ...(before ? [[beforeLabel!, before]] : [])] as const) {
    if (parts.has('tags')) {
      say(`Write capacity with 10 and 10,000 distinct tags, ${label}…`);
      tags.push({
        label,
        result: await runChild<TagsResult>({ kind: 'tags', tree, endpoint: dynamoDb.endpoint, table: `tags-${jobs}` }),
      });
      report();
    }
    if (!parts.has('conflicts')) continue;
    say(`64 concurrent POSTs under emulated transaction conflicts, ${label}…`);
    conflicts.push({
      label,
      result: await runChild<ConflictResult>({
        kind: 'conflicts',
        tree,
        endpoint: dynamoDb.endpoint,
        table: `conflicts-${jobs}`,
        writers: 64,
        rounds,
      }),
    });
    report();
  }
  for (const size of parts.has('lists') ? sizes : []) {
    say(`Loading ${size} magazines and measuring the lists…`);
    lists.push(
      await runChild<ListResult>({
        kind: 'lists',
        tree: root,
        endpoint: dynamoDb.endpoint,
        size,
        repeats,
        table: `scale-${size}`,
      }),
    );
    report();
  }
  if (parts.has('articles')) {
    say(`Writing ${articleCount} articles of one magazine and measuring their pages…`);
    articles = await runChild<ListResult>({
      kind: 'articles',
      tree: root,
      endpoint: dynamoDb.endpoint,
      size: articleCount,
      repeats,
      table: 'articles',
    });
    report();
  }
} finally {
  await dynamoDb.stop();
}

process.stdout.write(report());
