/**
 * `npm run bench` (`npm run bundle` first): the API's functions beside the reference handler and
 * other ways of writing them, as ratios measured in one run, and what each request costs. Writes
 * bench/results/calls.{md,json} and cost.{md,json}, only once every step is done.
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
 * 5. The list path's avoidable work, put back in variants of list-magazines (a 6 MB guard that
 *    serialises every item; the SDK's logger middleware), each against the list as it is; and a
 *    GET without its metrics line, against the reference: that feature's share of a GET.
 * 6. The cost model (bench/cost/): each priced request's request units and waits metered on
 *    DynamoDB Local, with the folds and change events its writes set off, and its warm `[sdk]`
 *    CPU time; priced in dollars per million in bench/results/cost.{md,json}.
 *
 * Each step is a module of bench/calls/. Options: `npm run bench -- --help` (bench/support/calls-options.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot as root } from '../local/bundle-functions';
import { casesOf } from './calls/cases';
import { coldSubjectsOf, runCold } from './calls/cold';
import { runPaired } from './calls/paired';
import { recordScenarios } from './calls/record';
import { callsReport } from './calls/report';
import { bundleSubjects, treesOf } from './calls/subjects';
import { runWarm } from './calls/warm';
import { measureCost } from './cost/measure';
import { costReport } from './cost/report';
import { benchOptions } from './support/calls-options';

const { before, rounds, measureMs, coldRuns } = benchOptions();

// The bundle sizes first, as `npm run bundle` measures them (it writes its own report when done).
execFileSync(process.execPath, [path.join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), 'scripts/bundle.ts'], {
  cwd: root,
  stdio: 'inherit',
});

const resultsDir = path.join(root, 'bench', 'results');
const trees = treesOf(root, before);
const subjects = await bundleSubjects(root, path.join(root, 'dist', 'bench-calls'), trees);
const recordings = await recordScenarios(subjects, trees);
const cases = casesOf(subjects, trees, recordings);
const warm = await runWarm(subjects.runner, cases, { rounds, measureMs });
const pairRows = await runPaired(subjects.runner, cases, trees, { rounds, measureMs });
const coldSubjects = coldSubjectsOf(subjects, trees, recordings);
const sourceMapped = coldSubjects.find((s) => s.label === `${trees[0]!.label} get-magazine`)!;
const cold = await runCold(subjects.runner, coldSubjects, sourceMapped, { rounds, coldRuns });
const cost = await measureCost({
  root,
  out: path.join(subjects.out, 'cost'),
  runner: subjects.runner,
  rounds,
  measureMs,
});

const markdown = callsReport({
  trees,
  cases,
  warm,
  pairRows,
  coldSubjects,
  cold,
  subjects,
  rounds,
  measureMs,
  coldRuns,
});
mkdirSync(resultsDir, { recursive: true });
writeFileSync(path.join(resultsDir, 'calls.md'), markdown);
writeFileSync(
  path.join(resultsDir, 'calls.json'),
  `${JSON.stringify({ node: process.versions.node, rounds, measureMs, coldRuns, warm: Object.fromEntries(warm.warm), cold: Object.fromEntries(cold) }, null, 2)}\n`,
);
const { markdown: costMarkdown, json: costJson } = costReport(cost, { rounds, measureMs });
writeFileSync(path.join(resultsDir, 'cost.md'), costMarkdown);
writeFileSync(path.join(resultsDir, 'cost.json'), `${JSON.stringify(costJson, null, 2)}\n`);
process.stdout.write(markdown);
process.stdout.write(`\n${costMarkdown}`);
