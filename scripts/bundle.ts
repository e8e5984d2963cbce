/**
 * `npm run bundle`: bundles every function exactly as the CDK stack does (infra/bundling.ts), then
 * measures each bundle's minified size and its cold import time in a fresh Node process, beside a
 * reference handler (middy + one DynamoDB GetItem). Writes bench/results/bundle.{md,json}.
 *
 * Options: `--runs N` imports per bundle (default 9; the median is reported).
 */
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { bundleSettings } from '../infra/bundling';
import { expandRoutes } from '../shared/routes';

const root = path.resolve(import.meta.dirname, '..');
const distDir = path.join(root, 'dist');
const resultsDir = path.join(root, 'bench', 'results');
const referenceName = '(reference) middy + GetItem';
/** The issue's budget: no function more than this times the reference, in size or import time. */
const budget = 1.25;

const runsArgument = process.argv.indexOf('--runs');
const runs = runsArgument > 0 ? Number(process.argv[runsArgument + 1]) : 9;
if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs needs a positive integer');

const handlers = [...new Set(expandRoutes().map((route) => route.handler))].sort();
const missing = handlers.filter((handler) => !existsSync(path.join(root, 'functions', `${handler}.ts`)));
const entries: Record<string, string> = {
  reference: path.join(root, 'bench', 'reference-handler.ts'),
  ...Object.fromEntries(handlers.filter((h) => !missing.includes(h)).map((h) => [h, path.join(root, 'functions', `${h}.ts`)])),
};

rmSync(distDir, { recursive: true, force: true });
mkdirSync(resultsDir, { recursive: true });

/** One esbuild run for all entries; each entry is still its own self-contained bundle (no splitting). */
const started = performance.now();
await build({
  entryPoints: Object.fromEntries(Object.entries(entries).map(([name, entry]) => [`${name}/index`, entry])),
  outdir: distDir,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  target: bundleSettings.target,
  platform: bundleSettings.platform,
  format: bundleSettings.format,
  minify: bundleSettings.minify,
  sourcemap: bundleSettings.sourcemap,
  sourcesContent: bundleSettings.sourcesContent,
  mainFields: [...bundleSettings.mainFields],
  banner: { js: bundleSettings.banner },
  external: [...bundleSettings.external],
  logLevel: 'warning',
});
const bundleMs = performance.now() - started;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** Time to import the module once in a new process, as Lambda does at a cold start (source maps on). */
const importOnce = (file: string) => {
  const script = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); process.stdout.write(String(performance.now() - t));`;
  const output = execFileSync(process.execPath, ['--enable-source-maps', '--input-type=module', '-e', script], {
    env: { PATH: process.env.PATH, AWS_REGION: 'us-east-1', TABLE_NAME: 'bench', MOCK_ENABLED: 'true' },
    encoding: 'utf8',
  });
  return Number(output);
};

interface Row {
  readonly name: string;
  readonly bytes: number;
  readonly gzipBytes: number;
  readonly mapBytes: number;
  readonly importMs: number;
}

const names = Object.keys(entries);
const fileOf = (name: string) => path.join(distDir, name, 'index.mjs');
/** Rounds over all bundles, so that a busy moment of the machine weighs on every bundle alike. */
const times = new Map<string, number[]>(names.map((name) => [name, []]));
for (let run = 0; run < runs; run++) for (const name of names) times.get(name)!.push(importOnce(fileOf(name)));

const measure = (name: string): Row => {
  const file = fileOf(name);
  return {
    name: name === 'reference' ? referenceName : name,
    bytes: statSync(file).size,
    gzipBytes: gzipSync(readFileSync(file)).length,
    mapBytes: statSync(`${file}.map`).size,
    importMs: median(times.get(name)!),
  };
};

const reference = measure('reference');
const rows = names.filter((name) => name !== 'reference').map(measure);

const ratio = (value: number, base: number) => value / base;
const kb = (bytes: number) => (bytes / 1024).toFixed(1);
const over = rows.filter((row) => ratio(row.bytes, reference.bytes) > budget || ratio(row.importMs, reference.importMs) > budget);

const table = [
  `| function | minified KiB | gzip KiB | map KiB | cold import ms (median of ${runs}) | size / ref | import / ref |`,
  '|---|---:|---:|---:|---:|---:|---:|',
  ...[reference, ...rows].map(
    (row) =>
      `| ${row.name} | ${kb(row.bytes)} | ${kb(row.gzipBytes)} | ${kb(row.mapBytes)} | ${row.importMs.toFixed(1)} | ${ratio(row.bytes, reference.bytes).toFixed(2)} | ${ratio(row.importMs, reference.importMs).toFixed(2)} |`,
  ),
].join('\n');

const markdown = [
  '# Function bundles',
  '',
  `Generated by \`npm run bundle\` on ${new Date().toISOString()} with Node ${process.versions.node} (${process.arch}).`,
  `esbuild ${bundleSettings.format}, ${bundleSettings.target}, minified, AWS SDK bundled; ${Object.keys(entries).length} bundles in ${bundleMs.toFixed(0)} ms.`,
  'Cold import: a fresh `node --enable-source-maps` process per import, the module imported once and timed; rounds interleave all bundles.',
  '',
  table,
  '',
  `Budget: at most ${budget}x the reference in size and in import time. ${over.length ? `Over budget: ${over.map((row) => row.name).join(', ')}.` : 'Every function is within budget.'}`,
  ...(missing.length ? ['', `Not bundled (no module yet): ${missing.join(', ')}.`] : []),
  '',
].join('\n');

writeFileSync(path.join(resultsDir, 'bundle.md'), markdown);
writeFileSync(
  path.join(resultsDir, 'bundle.json'),
  `${JSON.stringify({ node: process.versions.node, runs, budget, bundleMs, reference, functions: rows, overBudget: over.map((row) => row.name), missing }, null, 2)}\n`,
);
process.stdout.write(markdown);
