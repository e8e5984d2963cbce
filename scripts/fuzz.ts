/**
 * `npm run fuzz [-- --seed N] [--runs N] [--only hostile|model|faults]`: the property tests of
 * test/properties with many more cases than `npm test` gives them, against the real handlers on
 * DynamoDB Local. `--runs N` (default 10,000) is about how many requests the run sends in all,
 * shared out as hostile requests (50%, one generated request each), model-based sequences (30%,
 * about 60 requests each: their commands and the reads that check each step) and sequences under
 * injected faults (20%, about 40 each). The seed is printed first (a random one unless given):
 * `--seed` with the same `--runs` replays a run.
 * Prints, per property and in total, what was sent and what broke; a broken rule fails the run
 * with the minimal counterexample fast-check shrank it to.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Figures } from '../test/support/properties/run';
import { readCommandLine, refuse } from './support/cli';

const FILES = {
  hostile: 'test/properties/hostile-requests.test.ts',
  model: 'test/properties/model-sequences.test.ts',
  faults: 'test/properties/fault-sequences.test.ts',
} as const;

const usage = `Usage: npm run fuzz [-- options]

Runs the property tests of test/properties with many more cases than \`npm test\` gives them,
against the real handlers on DynamoDB Local, and prints what was sent and what broke.

Options:
  --seed N                        replay a run (its seed is printed first)   [random]
  --runs N                        about how many requests in all             [10000]
  --only hostile|model|faults     one property only                          [all three]
  --help                          this text; runs nothing
`;

const { values } = readCommandLine({
  command: 'npm run fuzz',
  usage,
  options: {
    seed: { type: 'string' },
    runs: { type: 'string' },
    only: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
const wholeNumber = (name: string, text: string, least: number) => {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < least)
    refuse('npm run fuzz', `--${name} ${text} is not a whole number of at least ${least}`, usage);
  return value;
};
const seed = wholeNumber('seed', values.seed ?? String(Math.floor(Math.random() * 2 ** 31)), 0);
const runs = wholeNumber('runs', values.runs ?? '10000', 1);
const only = values.only;
if (only !== undefined && !(only in FILES))
  refuse('npm run fuzz', `--only ${only} is none of ${Object.keys(FILES).join(', ')}`, usage);
const files = only === undefined ? Object.values(FILES) : [FILES[only as keyof typeof FILES]];

const directory = mkdtempSync(join(tmpdir(), 'magazine-fuzz-'));
const report = join(directory, 'figures.jsonl');
process.stdout.write(`fuzz: seed ${seed}, about ${runs} requests${only ? ` (${only} only)` : ''}\n`);
process.stdout.write(`replay: npm run fuzz -- --seed ${seed} --runs ${runs}${only ? ` --only ${only}` : ''}\n\n`);

const started = Date.now();
const vitest = spawnSync(
  process.execPath,
  ['node_modules/vitest/vitest.mjs', 'run', ...files, '--reporter=default', `--maxWorkers=${files.length}`],
  {
    stdio: 'inherit',
    env: { ...process.env, FUZZ_SEED: String(seed), FUZZ_RUNS: String(runs), FUZZ_REPORT: report },
  },
);
const elapsed = (Date.now() - started) / 1000;

let figures: Figures[] = [];
try {
  figures = readFileSync(report, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Figures);
} catch {
  // No property got as far as reporting: vitest's own output says why.
}
rmSync(directory, { recursive: true, force: true });

const rows = figures.map((f) => ({
  property: f.property,
  runs: f.runs,
  cases: f.cases,
  requests: f.requests,
  '5xx but 503': f.serverErrors,
  '503s': f.unavailable,
  leaks: f.leaks,
  'state changes': f.stateChanges,
  'failed runs': f.failedRuns,
  seconds: Math.round(f.durationMs / 1000),
}));
const total = (key: keyof (typeof rows)[number]) => rows.reduce((sum, row) => sum + Number(row[key]), 0);
process.stdout.write(`\nfuzz figures (seed ${seed}, about ${runs} requests asked, ${Math.round(elapsed)} s in all):\n`);
console.table([
  ...rows,
  {
    property: 'total',
    runs: total('runs'),
    cases: total('cases'),
    requests: total('requests'),
    '5xx but 503': total('5xx but 503'),
    '503s': total('503s'),
    leaks: total('leaks'),
    'state changes': total('state changes'),
    'failed runs': total('failed runs'),
    seconds: Math.round(elapsed),
  },
]);
for (const f of figures) {
  if (f.faults) process.stdout.write(`faults injected (${f.property}): ${JSON.stringify(f.faults)}\n`);
  if (Object.keys(f.violations).length > 0)
    process.stdout.write(`rules broken (${f.property}): ${JSON.stringify(f.violations)}\n`);
  for (const failure of f.failures)
    process.stdout.write(
      `counterexample (${f.property}, seed ${failure.seed}, path ${failure.path}):\n${failure.counterexample}\n${failure.error}\n`,
    );
}
if (figures.length < files.length)
  process.stdout.write(`${files.length - figures.length} of ${files.length} properties reported no figures.\n`);
process.exit(vitest.status ?? 1);
