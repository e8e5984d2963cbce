import { existsSync } from 'node:fs';
import path from 'node:path';
import { type BuildOptions, build } from 'esbuild';
import { bundleSettings } from '../infra/bundling';
import { functionNames } from '../shared/routes/table';

export const projectRoot = path.resolve(import.meta.dirname, '..');

/**
 * The bundle budget: no function more than this times the reference handler (middy and one
 * GetItem through lib-dynamodb) in size. `npm test` holds it; `npm run bundle` reports it. It was
 * 1.28 while every function carried every route row and schema, and the write paths with their
 * SDK commands; since each carries only its own operation's (issue 19), the largest, the list
 * functions with the Secrets Manager client that reads their cursor key, are 1.21.
 */
export const BUNDLE_BUDGET = 1.22;

/** esbuild's options as the CDK stack bundles a function (infra/bundling.ts), for every bundle made here or measured. */
export const deployedBuild = {
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
} satisfies BuildOptions;

export interface Bundles {
  readonly dir: string;
  /** `dir/<name>/index.mjs`, the file Lambda's runtime imports for the handler `index.handler`. */
  file(name: string): string;
  readonly names: readonly string[];
  readonly milliseconds: number;
}

/**
 * Bundles `functions/<name>.ts` (every function, routes' and scheduled, unless told which) into
 * `dir/<name>/index.mjs` exactly as the CDK stack bundles a function (infra/bundling.ts): the
 * bundles that `npm start -- --bundled`, the events test and the benchmarks run are what deploys.
 * `extra` adds entries by name (the benchmark's reference handler).
 */
export const bundleFunctions = async (
  dir: string,
  options: { names?: readonly string[]; extra?: Readonly<Record<string, string>> } = {},
): Promise<Bundles> => {
  const names = options.names ?? functionNames();
  const missing = names.filter((name) => !existsSync(path.join(projectRoot, 'functions', `${name}.ts`)));
  if (missing.length > 0)
    throw new Error(`No handler module for ${missing.map((name) => `functions/${name}.ts`).join(', ')}.`);
  const entries = {
    ...Object.fromEntries(names.map((name) => [name, path.join(projectRoot, 'functions', `${name}.ts`)])),
    ...options.extra,
  };
  const started = performance.now();
  // One esbuild run for all entries; each is still its own self-contained bundle (no splitting).
  await build({
    ...deployedBuild,
    entryPoints: Object.fromEntries(Object.entries(entries).map(([name, entry]) => [`${name}/index`, entry])),
    outdir: dir,
    outExtension: { '.js': '.mjs' },
  });
  return {
    dir,
    names: Object.keys(entries),
    file: (name) => path.join(dir, name, 'index.mjs'),
    milliseconds: performance.now() - started,
  };
};
