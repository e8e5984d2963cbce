/**
 * `npm run bench` (`npm run bundle` first): the API's functions beside the reference handler and
 * other ways of writing them, as ratios measured in one run. Writes bench/results/calls.{md,json}.
 *
 * 1. Every subject is bundled as the CDK stack bundles a function (infra/bundling.ts). The API's
 *    functions are called against DynamoDB Local once and their calls recorded on the wire (init
 *    phase and one invocation, after a PUT /magazines of 30 magazines).
 * 2. Warm: each case runs in a fresh process with those answers given in process, `[sdk]` (the SDK
 *    serialises, signs and parses) and `[send]` (answered at the document client's `send`); its
 *    response is checked against the one DynamoDB Local gave; per-call time over half a second.
 * 3. Cold: bundle size, import, first and second invocation, each in a fresh process.
 * 4. Source maps: the same with `NODE_OPTIONS=--enable-source-maps`, and an invocation that fails
 *    with a logged stack (a corrupt item), first and warm.
 *
 * The targets' warm ratios are paired: both cases in one process, their batches alternated.
 * Rounds interleave every case, and every figure is a ratio to its baseline in the same round:
 * the reference handler for GET one and cold starts, the bare handler for the other operations.
 *
 * Options: `npm run bench -- --help` (bench/support/calls-options.ts).
 * 5. The list path's avoidable work, put back in variants of list-magazines (a 6 MB guard that
 *    serialises every item; the SDK's logger middleware), each against the list as it is; and a
 *    GET without its metrics line, against the reference: that feature's share of a GET.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { CreateTableCommand, type CreateTableCommandInput, DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { build } from 'esbuild';
import { bundleFunctions, projectRoot as root } from '../local/bundle-functions';
import { localDynamoDbClient, startDynamoDbLocal } from '../local/dynamodb-local';
import { ensureTable } from '../local/ensure-table';
import type { Recording } from './support/answers';
import { bundleHandler, type Patch } from './support/bundle';
import { benchOptions } from './support/calls-options';
import { lambdaEnvironment, localEnvironment, runJob } from './support/child';
import {
  competitorRecording,
  GET_ID,
  LIST_LIMIT,
  type Scenario,
  scenarioEvent,
  scenarioLabel,
  scenarios,
  seedEvent,
} from './support/fixtures';
import type { ColdResult, PairedResult, Recorded, Response, WarmResult } from './support/runner';
import { fixed, median, ratioText, rotate, type Spread, spread, table } from './support/stats';

const { before, rounds, measureMs, coldRuns } = benchOptions();

// The bundle sizes first, as `npm run bundle` measures them (it writes its own report when done).
execFileSync(process.execPath, [path.join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), 'scripts/bundle.ts'], {
  cwd: root,
  stdio: 'inherit',
});

const out = path.join(root, 'dist', 'bench-calls');
const resultsDir = path.join(root, 'bench', 'results');
const say = (line: string) => process.stderr.write(`${line}\n`);

// ---------------------------------------------------------------------------------------------
// Subjects

interface Tree {
  readonly key: 'now' | 'before';
  readonly label: string;
  readonly root: string;
}

const shortCommit = (dir: string) =>
  execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: dir, encoding: 'utf8' }).trim();

const trees: Tree[] = [{ key: 'now', label: `API (${shortCommit(root)}, this tree)`, root }];
if (before) {
  const beforeRoot = path.resolve(before);
  if (!existsSync(path.join(beforeRoot, 'functions'))) throw new Error(`--before ${before}: no functions/ there.`);
  if (!existsSync(path.join(beforeRoot, 'node_modules')))
    throw new Error(
      `--before ${before}: no node_modules. Install them there, or link this tree's: ln -s ${path.join(root, 'node_modules')} ${path.join(beforeRoot, 'node_modules')}`,
    );
  trees.push({ key: 'before', label: `API (${shortCommit(beforeRoot)}, before)`, root: beforeRoot });
}

const FUNCTION_OF: Record<Scenario, string> = {
  get: 'get-magazine',
  listJson: 'list-magazines',
  listXml: 'list-magazines',
  post: 'create-magazine',
};

const competitors = [
  { key: 'bare', label: 'bare handler', entry: 'bench/competitors/bare.ts' },
  { key: 'middy-router', label: 'middy + @middy/http-router', entry: 'bench/competitors/middy-router.ts' },
  {
    key: 'lambda-api',
    label: 'lambda-api',
    entry: 'bench/competitors/lambda-api.ts',
    external: ['@aws-sdk/client-s3'],
  },
  { key: 'powertools', label: 'Powertools event-handler', entry: 'bench/competitors/powertools.ts' },
  { key: 'express', label: 'serverless-express + Express (lambdalith)', entry: 'bench/competitors/express.ts' },
] as const;
const REFERENCE = 'reference (middy + GetItem)';

type Mode = 'sdk' | 'send';

/**
 * Functions of this tree with their source patched at bundling, each measured against the function
 * as it is: the list with one piece of avoidable work put back (what issue 10 says that work
 * costs), and a GET with one feature taken out (what that feature costs).
 */
const variants = [
  {
    key: 'guard',
    label: 'API list + a 6 MB guard that serialises every item',
    // The guard as it was: each item serialised again to estimate the page's size.
    patches: [
      {
        file: 'shared/http/representations/magazine.ts',
        from: "    { tags: 'tag' },\n  );",
        to: "    { tags: 'tag' },\n    (item) => Buffer.byteLength(JSON.stringify(item)),\n  );",
      },
    ],
    scenario: 'listJson',
    modes: ['sdk', 'send'] as Mode[],
  },
  {
    key: 'logger',
    label: 'API list + the SDK logger middleware left in',
    patches: [{ file: 'shared/db/client.ts', from: "client.middlewareStack.remove('loggerMiddleware');", to: '' }],
    scenario: 'listJson',
    // Middleware runs only under the SDK's send.
    modes: ['sdk'] as Mode[],
  },
  {
    key: 'no-metrics',
    label: 'API GET one without its metrics line',
    // Not avoidable work but a feature (issue 11's per-request EMF line), taken out to show its share of a GET.
    patches: [
      { file: 'shared/metrics.ts', from: 'if (config().metricsEnabled) metricsLine(emfJson(outcome));', to: '' },
    ],
    scenario: 'get',
    modes: ['sdk', 'send'] as Mode[],
  },
] as const;

const variantLabel = (key: (typeof variants)[number]['key']) => variants.find((variant) => variant.key === key)!.label;

interface Bundle {
  readonly sdk: string;
  readonly send: string;
}

const bundlePair = async (
  name: string,
  entry: string,
  external: readonly string[] = [],
  patches: readonly Patch[] = [],
): Promise<Bundle> => {
  const sdk = path.join(out, name, 'index.mjs');
  const send = path.join(out, name, 'send', 'index.mjs');
  await Promise.all([
    bundleHandler({ entry, outfile: sdk, external, patches }),
    bundleHandler({ entry, outfile: send, send: true, external, patches }),
  ]);
  return { sdk, send };
};

rmSync(out, { recursive: true, force: true });
say('Bundling the runner, the API of each tree, the reference handler and the competitors…');
const runner = path.join(out, 'runner.mjs');
await build({
  entryPoints: [path.join(root, 'bench', 'support', 'runner.ts')],
  outfile: runner,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  logLevel: 'warning',
});

const treeBundles = new Map<Tree['key'], Record<string, Bundle>>();
for (const tree of trees) {
  const bundles: Record<string, Bundle> = {};
  for (const name of new Set(Object.values(FUNCTION_OF)))
    bundles[name] = await bundlePair(`${tree.key}/${name}`, path.join(tree.root, 'functions', `${name}.ts`));
  // The seed goes through the tree's own PUT /magazines, exactly as deployed.
  const seed = path.join(out, tree.key, 'replace-all-magazines', 'index.mjs');
  await bundleHandler({ entry: path.join(tree.root, 'functions', 'replace-all-magazines.ts'), outfile: seed });
  bundles['replace-all-magazines'] = { sdk: seed, send: seed };
  treeBundles.set(tree.key, bundles);
}
// The deployed bundles of this tree, as local/bundle-functions.ts makes them: what the cold start measures.
await bundleFunctions(path.join(out, 'deployed'), { names: [...new Set(Object.values(FUNCTION_OF))] });
const reference = await bundlePair('reference', path.join(root, 'bench', 'reference-handler.ts'));
const variantBundles = new Map<string, Bundle>();
for (const variant of variants)
  variantBundles.set(
    variant.key,
    await bundlePair(
      `variant-${variant.key}`,
      path.join(root, 'functions', `${FUNCTION_OF[variant.scenario]}.ts`),
      [],
      variant.patches,
    ),
  );
const competitorBundles = new Map<string, Bundle>();
for (const competitor of competitors)
  competitorBundles.set(
    competitor.key,
    await bundlePair(
      competitor.key,
      path.join(root, competitor.entry),
      'external' in competitor ? competitor.external : [],
    ),
  );

// ---------------------------------------------------------------------------------------------
// The API's calls, recorded against DynamoDB Local

interface Recorded1 {
  readonly recording: Recording;
  readonly response: Response;
}

const recordings = new Map<string, Recorded1>();
const recordingKey = (tree: Tree['key'], scenario: Scenario) => `${tree}:${scenario}`;

say('Starting DynamoDB Local to record the API’s calls…');
const dynamoDb = await startDynamoDbLocal();
try {
  const client = localDynamoDbClient(dynamoDb.endpoint);
  for (const tree of trees) {
    const bundles = treeBundles.get(tree.key)!;
    // Each tree's own table definition (the one before had an index).
    const { createTableInput } = (await import(path.join(tree.root, 'shared', 'db', 'table.ts'))) as {
      createTableInput: (name: string) => CreateTableCommandInput;
    };
    await client.send(new DeleteTableCommand({ TableName: 'bench' })).catch(() => undefined);
    await client.send(new CreateTableCommand(createTableInput('bench')));
    await ensureTable(client, 'bench');
    const env = localEnvironment(dynamoDb.endpoint);
    const seeded = await runJob<Recorded>(
      runner,
      { kind: 'record', bundle: bundles['replace-all-magazines']!.sdk, events: [seedEvent()], timeoutMs: 25_000 },
      env,
    );
    const seedStatus = seeded.invocations[0]?.response.statusCode;
    if (seedStatus !== 200 && seedStatus !== 204)
      throw new Error(`${tree.label}: PUT /magazines answered ${seedStatus}: ${seeded.invocations[0]?.response.body}`);
    for (const scenario of scenarios) {
      const event = scenarioEvent(scenario);
      // The second invocation of an instance is its steady state; of several writes, the one with the fewest calls (no fold).
      const events = scenario === 'post' ? [event, event, event, event, event] : [event, event];
      const recorded = await runJob<Recorded>(
        runner,
        { kind: 'record', bundle: bundles[FUNCTION_OF[scenario]]!.sdk, events },
        env,
      );
      const steady = recorded.invocations.slice(1).sort((a, b) => a.calls.length - b.calls.length)[0]!;
      recordings.set(recordingKey(tree.key, scenario), {
        recording: { init: recorded.init, invocation: steady.calls },
        response: steady.response,
      });
      say(
        `  ${tree.label} ${scenarioLabel[scenario]}: ${steady.response.statusCode}, init ${recorded.init.map((c) => c.operation).join('+') || 'no call'}, invocation ${steady.calls.map((c) => c.operation).join('+')}`,
      );
    }
  }
  client.destroy();
} finally {
  await dynamoDb.stop();
}

// ---------------------------------------------------------------------------------------------
// Cases

interface Case {
  readonly subject: string;
  readonly scenario: Scenario;
  readonly bundle: Bundle;
  readonly recording: Recording;
  /** Why a response is not the normal one, if it is not. */
  readonly check: (response: Response) => string | undefined;
  /** Only these modes (all when absent). */
  readonly modes?: readonly Mode[];
}

const sameAs =
  (expected: Response, scenario: Scenario) =>
  (response: Response): string | undefined => {
    if (response.statusCode !== expected.statusCode) return `status ${response.statusCode}, not ${expected.statusCode}`;
    if (scenario === 'post') return response.headers.Location ? undefined : 'no Location';
    if (response.body !== expected.body) return `body differs from DynamoDB Local's:\n${response.body.slice(0, 300)}`;
    if (response.headers.ETag !== expected.headers.ETag) return 'ETag differs';
    return undefined;
  };

const competitorCheck =
  (scenario: Scenario) =>
  (response: Response): string | undefined => {
    const wanted = scenario === 'post' ? 201 : 200;
    if (response.statusCode !== wanted) return `status ${response.statusCode}: ${response.body.slice(0, 200)}`;
    if (scenario === 'get' && !response.body.includes(`"${GET_ID}"`)) return 'not the magazine';
    if (scenario === 'listJson' && (JSON.parse(response.body) as { results: unknown[] }).results.length !== LIST_LIMIT)
      return 'not a full page';
    if (scenario === 'listXml' && response.body.split('<magazine>').length - 1 !== LIST_LIMIT) return 'not a full page';
    return undefined;
  };

const cases: Case[] = [];
for (const tree of trees)
  for (const scenario of scenarios) {
    const recorded = recordings.get(recordingKey(tree.key, scenario))!;
    cases.push({
      subject: tree.label,
      scenario,
      bundle: treeBundles.get(tree.key)![FUNCTION_OF[scenario]]!,
      recording: recorded.recording,
      check: sameAs(recorded.response, scenario),
    });
  }
for (const variant of variants) {
  const recorded = recordings.get(recordingKey('now', variant.scenario))!;
  cases.push({
    subject: variant.label,
    scenario: variant.scenario,
    bundle: variantBundles.get(variant.key)!,
    recording: recorded.recording,
    check: sameAs(recorded.response, variant.scenario),
    modes: variant.modes,
  });
}
cases.push({
  subject: REFERENCE,
  scenario: 'get',
  bundle: reference,
  recording: competitorRecording('get'),
  check: competitorCheck('get'),
});
for (const competitor of competitors)
  for (const scenario of scenarios)
    cases.push({
      subject: competitor.label,
      scenario,
      bundle: competitorBundles.get(competitor.key)!,
      recording: competitorRecording(scenario),
      check: competitorCheck(scenario),
    });

// ---------------------------------------------------------------------------------------------
// Warm calls

const modes: readonly Mode[] = ['sdk', 'send'];
const caseKey = (c: Pick<Case, 'subject' | 'scenario'>) => `${c.subject}|${c.scenario}`;
const warm = new Map<string, number[]>();
const warmKey = (c: Pick<Case, 'subject' | 'scenario'>, mode: Mode) => `${caseKey(c)}|${mode}`;
const unmatched = new Map<string, number>();

const warmJobs = rounds * cases.reduce((total, c) => total + (c.modes ?? modes).length, 0);
let done = 0;
for (let round = 0; round < rounds; round++) {
  for (const mode of modes) {
    for (const c of rotate(cases, round)) {
      if (c.modes && !c.modes.includes(mode)) continue;
      const result = await runJob<WarmResult>(
        runner,
        {
          kind: 'warm',
          bundle: c.bundle[mode],
          mode,
          recording: c.recording,
          event: scenarioEvent(c.scenario),
          warmup: 200,
          measureMs,
          batch: 100,
        },
        lambdaEnvironment(),
      );
      const problem = c.check(result.response);
      if (problem) throw new Error(`${c.subject} ${scenarioLabel[c.scenario]} [${mode}]: ${problem}`);
      const key = warmKey(c, mode);
      warm.set(key, [...(warm.get(key) ?? []), result.perCallUs]);
      unmatched.set(key, Math.max(unmatched.get(key) ?? 0, result.unmatched));
      done++;
      say(
        `warm ${done}/${warmJobs} round ${round + 1} [${mode}] ${c.subject} ${scenarioLabel[c.scenario]}: ${result.perCallUs.toFixed(1)} µs`,
      );
    }
  }
}

const baselineOf = (scenario: Scenario) => (scenario === 'get' ? REFERENCE : competitors[0].label);
/** Per round, `a / b` of two warm figures measured in the same round. */
const warmRatio = (a: string, b: string): Spread | undefined => {
  const x = warm.get(a);
  const y = warm.get(b);
  if (!x || !y) return undefined;
  return spread(x.map((value, round) => value / y[round]!));
};

// ---------------------------------------------------------------------------------------------
// Paired: the targets' ratios, both cases in one process with their batches alternated

interface Pair {
  readonly what: string;
  readonly mode: Mode;
  /** Numerator and denominator. */
  readonly cases: readonly [Case, Case];
  /** The target (at most), or none for a figure shown beside one. */
  readonly bound?: number;
  readonly text: string;
}

const thisTree = trees[0]!;
const otherTree = trees[1];
const caseOf = (subject: string, scenario: Scenario) => {
  const found = cases.find((c) => c.subject === subject && c.scenario === scenario);
  if (!found) throw new Error(`No case ${subject} ${scenario}.`);
  return found;
};
const pairs: Pair[] = [];
for (const mode of modes) {
  const nowList = caseOf(thisTree.label, 'listJson');
  pairs.push(
    {
      what: `GET one / reference [${mode}]`,
      mode,
      cases: [caseOf(thisTree.label, 'get'), caseOf(REFERENCE, 'get')],
      bound: 1.25,
      text: '≤ 1.25',
    },
    {
      what: `list XML / list JSON [${mode}]`,
      mode,
      cases: [caseOf(thisTree.label, 'listXml'), nowList],
      bound: 1.3,
      text: '≤ 1.30',
    },
  );
  if (otherTree)
    pairs.push(
      {
        what: `list JSON, now / before [${mode}]`,
        mode,
        cases: [nowList, caseOf(otherTree.label, 'listJson')],
        bound: 0.7,
        text: '≤ 0.70 (≥ 30 % faster)',
      },
      {
        what: `(before) list XML / list JSON [${mode}]`,
        mode,
        cases: [caseOf(otherTree.label, 'listXml'), caseOf(otherTree.label, 'listJson')],
        text: 'was 1.6',
      },
      {
        what: `(before) GET one / reference [${mode}]`,
        mode,
        cases: [caseOf(otherTree.label, 'get'), caseOf(REFERENCE, 'get')],
        text: '',
      },
    );
  pairs.push({
    what: `list JSON + 6 MB guard / list JSON [${mode}]`,
    mode,
    cases: [caseOf(variantLabel('guard'), 'listJson'), nowList],
    text: 'was 55 of 147 µs (1.6×)',
  });
  pairs.push(
    {
      what: `GET one without its metrics line / reference [${mode}]`,
      mode,
      cases: [caseOf(variantLabel('no-metrics'), 'get'), caseOf(REFERENCE, 'get')],
      text: 'a feature taken out (issue 11)',
    },
    {
      what: `GET one without its metrics line / GET one [${mode}]`,
      mode,
      cases: [caseOf(variantLabel('no-metrics'), 'get'), caseOf(thisTree.label, 'get')],
      text: "1 − the metrics line's share of a GET",
    },
  );
}
pairs.push({
  what: 'list JSON + SDK logger middleware / list JSON [sdk]',
  mode: 'sdk',
  cases: [caseOf(variantLabel('logger'), 'listJson'), caseOf(thisTree.label, 'listJson')],
  text: 'was 14 % of a list call (1.16×)',
});

const pairRatios = new Map<string, number[]>();
const pairJobs = rounds * pairs.length;
done = 0;
for (let round = 0; round < rounds; round++)
  for (const pair of rotate(pairs, round)) {
    const arm = (c: Case) => ({
      bundle: c.bundle[pair.mode],
      recording: c.recording,
      event: scenarioEvent(c.scenario),
    });
    const result = await runJob<PairedResult>(
      runner,
      {
        kind: 'paired',
        mode: pair.mode,
        arms: [arm(pair.cases[0]), arm(pair.cases[1])],
        warmup: 200,
        measureMs,
        batch: 50,
      },
      lambdaEnvironment(),
    );
    for (const [i, c] of pair.cases.entries()) {
      const problem = c.check(result.responses[i]!);
      if (problem) throw new Error(`${pair.what}, ${c.subject} ${scenarioLabel[c.scenario]}: ${problem}`);
    }
    const ratio = result.perCallUs[0] / result.perCallUs[1];
    pairRatios.set(pair.what, [...(pairRatios.get(pair.what) ?? []), ratio]);
    say(`paired ${++done}/${pairJobs} round ${round + 1} ${pair.what}: ${ratio.toFixed(2)}`);
  }
const pairRows = pairs.map((pair) => ({ ...pair, ratio: spread(pairRatios.get(pair.what) ?? []) }));

// ---------------------------------------------------------------------------------------------
// Cold starts

interface ColdSubject {
  readonly label: string;
  readonly bundle: string;
  readonly recording: Recording;
  readonly scenario: Scenario;
}

const deployed = (name: string) => path.join(out, 'deployed', name, 'index.mjs');
const coldSubjects: ColdSubject[] = [
  { label: REFERENCE, bundle: reference.sdk, recording: competitorRecording('get'), scenario: 'get' },
];
for (const tree of trees)
  for (const scenario of ['get', 'listJson', 'post'] as const)
    coldSubjects.push({
      label: `${tree.label} ${FUNCTION_OF[scenario]}`,
      bundle:
        tree.key === 'now' ? deployed(FUNCTION_OF[scenario]) : treeBundles.get(tree.key)![FUNCTION_OF[scenario]]!.sdk,
      recording: recordings.get(recordingKey(tree.key, scenario))!.recording,
      scenario,
    });
for (const competitor of competitors)
  coldSubjects.push({
    label: competitor.label,
    bundle: competitorBundles.get(competitor.key)!.sdk,
    recording: competitorRecording('get'),
    scenario: 'get',
  });

/** A copy of a recording whose items lack `title`: the decoder refuses them, the handler answers 500 and logs the stack. */
const corrupted = (recording: Recording): Recording => ({
  init: recording.init,
  invocation: recording.invocation.map((call) => ({
    ...call,
    response: call.response.replace(/"title":\{"S":"[^"]*"\},?/g, '').replace(/,\}/g, '}'),
  })),
});

interface ColdFigures {
  importMs: number[];
  firstCallMs: number[];
  secondCallMs: number[];
  firstErrorMs: number[];
  warmErrorMs: number[];
}
const cold = new Map<string, ColdFigures[]>();
const coldOnce = async (
  key: string,
  subject: ColdSubject,
  round: number,
  env: Record<string, string>,
  failing?: Recording,
) => {
  const figures = cold.get(key) ?? [];
  cold.set(key, figures);
  figures[round] ??= { importMs: [], firstCallMs: [], secondCallMs: [], firstErrorMs: [], warmErrorMs: [] };
  const now = figures[round];
  const result = await runJob<ColdResult>(
    runner,
    {
      kind: 'cold',
      bundle: subject.bundle,
      recording: subject.recording,
      event: scenarioEvent(subject.scenario),
      ...(failing && { failing, errors: 10 }),
    },
    env,
  );
  const wanted = subject.scenario === 'post' ? 201 : 200;
  if (result.response.statusCode !== wanted)
    throw new Error(`${subject.label} cold: ${result.response.statusCode} ${result.response.body.slice(0, 200)}`);
  if (failing && result.errorResponse?.statusCode !== 500)
    throw new Error(`${subject.label}: the corrupt item gave ${result.errorResponse?.statusCode}, not 500`);
  now.importMs.push(result.importMs);
  now.firstCallMs.push(result.firstCallMs);
  now.secondCallMs.push(result.secondCallMs);
  if (result.firstErrorMs !== undefined) now.firstErrorMs.push(result.firstErrorMs);
  if (result.warmErrorMs !== undefined) now.warmErrorMs.push(result.warmErrorMs);
};

const sourceMapped = coldSubjects.find((s) => s.label === `${trees[0]!.label} get-magazine`)!;
const sourceMapKeys = {
  off: 'source maps off',
  on: 'source maps on',
  refOff: 'reference, source maps off',
  refOn: 'reference, source maps on',
};
const failing = corrupted(sourceMapped.recording);
const coldJobs = rounds * coldRuns * (coldSubjects.length + 4);
done = 0;
for (let round = 0; round < rounds; round++) {
  for (let run = 0; run < coldRuns; run++) {
    for (const subject of rotate(coldSubjects, round + run)) {
      await coldOnce(subject.label, subject, round, lambdaEnvironment());
      say(`cold ${++done}/${coldJobs} round ${round + 1} ${subject.label}`);
    }
    const options = '--enable-source-maps';
    await coldOnce(sourceMapKeys.off, sourceMapped, round, lambdaEnvironment(), failing);
    await coldOnce(sourceMapKeys.on, sourceMapped, round, lambdaEnvironment({ NODE_OPTIONS: options }), failing);
    await coldOnce(sourceMapKeys.refOff, coldSubjects[0]!, round, lambdaEnvironment());
    await coldOnce(sourceMapKeys.refOn, coldSubjects[0]!, round, lambdaEnvironment({ NODE_OPTIONS: options }));
    done += 4;
    say(`cold ${done}/${coldJobs} round ${round + 1} source maps`);
  }
}

/** Per round, the median over its fresh processes of a figure. */
const perRound = (key: string, figure: (f: ColdFigures) => number[]) =>
  (cold.get(key) ?? []).map((round) => median(figure(round)));
const firstInvocation = (f: ColdFigures) => f.importMs.map((ms, i) => ms + f.firstCallMs[i]!);
const coldRatio = (a: string, b: string, figure: (f: ColdFigures) => number[]) => {
  const x = perRound(a, figure);
  const y = perRound(b, figure);
  return spread(x.map((value, round) => value / y[round]!));
};

// ---------------------------------------------------------------------------------------------
// Report

const kib = (file: string) => (readFileSync(file).length / 1024).toFixed(1);
const gzipKib = (file: string) => (gzipSync(readFileSync(file)).length / 1024).toFixed(1);
const now = trees[0]!;
const beforeTree = trees[1];

const warmRows = cases.map((c) => {
  const baseline = { subject: baselineOf(c.scenario), scenario: c.scenario };
  return [
    c.subject,
    scenarioLabel[c.scenario],
    ...modes.flatMap((mode) => [
      fixed(median(warm.get(warmKey(c, mode)) ?? [])),
      ratioText(warmRatio(warmKey(c, mode), warmKey(baseline, mode))),
    ]),
  ];
});

const targetRows: string[][] = [];
const target = (what: string, ratio: Spread | undefined, bound: number, text: string) => {
  const met =
    ratio === undefined ? '—' : ratio.median <= bound ? (ratio.max <= bound ? 'met' : 'met (median)') : 'missed';
  targetRows.push([what, text, ratioText(ratio), met]);
};
for (const row of pairRows) {
  if (row.bound === undefined) targetRows.push([row.what, row.text, ratioText(row.ratio), '']);
  else target(row.what, row.ratio, row.bound, row.text);
}
const nowGet = `${now.label} get-magazine`;
target(
  'first invocation (import + first call), get-magazine / reference',
  coldRatio(nowGet, REFERENCE, firstInvocation),
  1.1,
  '≤ 1.10',
);
if (beforeTree)
  targetRows.push([
    '(before) first invocation, get-magazine / reference',
    'was 1.16',
    ratioText(coldRatio(`${beforeTree.label} get-magazine`, REFERENCE, firstInvocation)),
    '',
  ]);

const coldRows = coldSubjects.map((subject) => {
  const rounds1 = (figure: (f: ColdFigures) => number[]) => median(perRound(subject.label, figure));
  return [
    subject.label,
    kib(subject.bundle),
    gzipKib(subject.bundle),
    fixed(rounds1((f) => f.importMs)),
    fixed(rounds1((f) => f.firstCallMs)),
    fixed(rounds1(firstInvocation)),
    ratioText(coldRatio(subject.label, REFERENCE, firstInvocation)),
    fixed(
      rounds1((f) => f.secondCallMs),
      2,
    ),
    `${fixed(
      rounds1((f) => f.firstCallMs.map((ms, i) => ms / f.secondCallMs[i]!)),
      0,
    )}×`,
  ];
});

const sm = (key: string, figure: (f: ColdFigures) => number[]) => median(perRound(key, figure));
const sourceMapRows = [
  ['import', (f: ColdFigures) => f.importMs],
  ['first call', (f: ColdFigures) => f.firstCallMs],
  ['import + first call', firstInvocation],
  ['first error (stack logged)', (f: ColdFigures) => f.firstErrorMs],
  ['later errors, each', (f: ColdFigures) => f.warmErrorMs],
] as const;
const sourceMapTable = table(
  ['get-magazine (this tree)', 'off, CPU ms', 'on, CPU ms', 'on / off'],
  sourceMapRows.map(([what, figure]) => [
    what,
    fixed(sm(sourceMapKeys.off, figure), 2),
    fixed(sm(sourceMapKeys.on, figure), 2),
    ratioText(coldRatio(sourceMapKeys.on, sourceMapKeys.off, figure)),
  ]),
);
const referenceSourceMaps = ratioText(coldRatio(sourceMapKeys.refOn, sourceMapKeys.refOff, firstInvocation));
const unmatchedCases = [...unmatched]
  .filter(([, n]) => n > 0)
  .map(([key, n]) => `${key.replaceAll('|', ' ')}: ${n.toFixed(2)}`);

const markdown = [
  '# Handlers: warm calls, cold starts, source maps',
  '',
  `Generated by \`npm run bench\` on ${new Date().toISOString()}, Node ${process.versions.node} (${process.arch}), ${rounds} rounds; every ratio is the median over the rounds (min–max), each round's figures measured side by side. Times are the CPU time of the process (user + system): the machine is shared, and waiting for a core is not cost.`,
  beforeTree
    ? `"Before" is ${beforeTree.label}: its functions bundled from its own sources with the same settings and dependencies, seeded and recorded the same way.`
    : 'No `--before`: no before/after ratios.',
  '',
  '## Targets (issue 10)',
  '',
  `Warm ratios here are paired: both cases in one fresh process, batches of 50 calls alternated (A B B A…) for ${measureMs} ms each, so that the machine's load weighs on both alike; one job per pair and round, median over the rounds (min–max). The side-by-side table below measures each case in a process of its own, and is noisier. The "+" rows are list-magazines of this tree with one piece of avoidable work put back (see below).`,
  '',
  table(['what', 'target', 'measured', ''], targetRows, ['l', 'l', 'r', 'l']),
  '',
  '## Warm per-call cost',
  '',
  `A fresh process per case and round; ${measureMs} ms of calls after 200 warm-up calls. \`[sdk]\`: DynamoDB answered in process under the SDK (it resolves, serialises, signs and parses; no socket). \`[send]\`: answered at the document client's \`send\`. The API's answers are its own calls as recorded against DynamoDB Local (${LIST_LIMIT} of 30 magazines, 2 tags each), and every response is checked against the one DynamoDB Local gave; competitors make one call (GetItem, Query, PutItem). Ratios: GET one to the reference handler, the others to the bare handler.`,
  '',
  table(['subject', 'operation', '[sdk] CPU µs', '[sdk] ratio', '[send] CPU µs', '[send] ratio'], warmRows, [
    'l',
    'l',
    'r',
    'r',
    'r',
    'r',
  ]),
  '',
  `The two "API list +" rows are list-magazines of this tree with one piece of avoidable work put back (source patched at bundling, see \`variants\` in bench/calls.ts): a 6 MB guard that serialises every item again to estimate the page's size, and the SDK's logger middleware, which the API removes from its client. Their ratios to the list as it is are in the targets table. "API GET one without its metrics line" is get-magazine with a feature taken out rather than waste put back: the EMF line every request writes (issue 11), to show its share of a GET beside the reference, which writes nothing.`,
  '',
  unmatchedCases.length > 0
    ? `Calls the recording did not hold, answered as on an empty table (per call): ${unmatchedCases.join('; ')}. A write folds counters one time in four, which the recorded write did not.`
    : 'Every call was answered from the recording.',
  '',
  '## Cold start',
  '',
  `A fresh \`node\` per figure (${coldRuns} per subject and round; median per round), Lambda's environment, no \`NODE_OPTIONS\` (as deployed), DynamoDB answered in process (\`[sdk]\`): the SDK's set-up is measured, the network is not. "First call" is the first invocation after the import (init-phase calls, such as the API's head read, are in the import). First invocation = import + first call; its ratio is to the reference handler's.`,
  '',
  table(
    [
      'bundle',
      'KiB',
      'gzip KiB',
      'import CPU ms',
      'first call CPU ms',
      'import + first',
      'ratio',
      'second call CPU ms',
      'first / second',
    ],
    coldRows,
  ),
  '',
  '## `NODE_OPTIONS=--enable-source-maps`',
  '',
  `The deployed get-magazine without and with the flag, cold, then one invocation whose item is corrupt (500, the error's stack logged) and ten more like it. The reference handler's first invocation with the flag: ${referenceSourceMaps} of without.`,
  '',
  sourceMapTable,
  '',
].join('\n');

mkdirSync(resultsDir, { recursive: true });
writeFileSync(path.join(resultsDir, 'calls.md'), markdown);
writeFileSync(
  path.join(resultsDir, 'calls.json'),
  `${JSON.stringify({ node: process.versions.node, rounds, measureMs, coldRuns, warm: Object.fromEntries(warm), cold: Object.fromEntries(cold) }, null, 2)}\n`,
);
process.stdout.write(markdown);
