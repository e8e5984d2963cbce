import { existsSync } from 'node:fs';
import path from 'node:path';
import { type BuildOptions, build } from 'esbuild';
import { bundleSettings, credentialChain } from '../infra/bundling';
import { functionNames } from '../shared/routes/table';

export const projectRoot = path.resolve(import.meta.dirname, '..');

/**
 * The bundle budget: no function more than this times the reference handler (middy and one
 * GetItem through lib-dynamodb, with the SDK's default credential chain) in size. `npm test` holds
 * it; `npm run bundle` reports it. It was 1.28 while every function carried every route row and
 * schema, and the write paths with their SDK commands, then 1.22 once each carried only its own
 * operation's (issue 19); since the functions read their credentials only where Lambda puts them
 * (`credentialChain`, infra/bundling.ts), the largest, the bulk write and the list functions with
 * the Secrets Manager client that reads their cursor key, are 0.84-0.85 (0.82-0.83 without the
 * container endpoint's reader, 7.6 KiB, which SnapStart would need).
 */
export const BUNDLE_BUDGET = 0.87;

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

/**
 * The SDK's credential chain as a function of the tree at `root` is bundled: the module that reads
 * the environment, or nothing for a tree that has none (an older checkout measured beside this one).
 */
export const functionAlias = (root: string): Record<string, string> => {
  const replacement = path.join(root, credentialChain.replacement);
  return existsSync(replacement) ? { [credentialChain.module]: replacement } : {};
};

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
  const entries = Object.fromEntries(names.map((name) => [name, path.join(projectRoot, 'functions', `${name}.ts`)]));
  const started = performance.now();
  // One esbuild run for the functions, one for the extras, which are bundled as any handler is,
  // with the SDK's own credential chain; each entry is still its own self-contained bundle.
  const bundle = (group: Readonly<Record<string, string>>, alias: Record<string, string>) =>
    build({
      ...deployedBuild,
      alias,
      entryPoints: Object.fromEntries(Object.entries(group).map(([name, entry]) => [`${name}/index`, entry])),
      outdir: dir,
      outExtension: { '.js': '.mjs' },
    });
  await Promise.all([
    bundle(entries, functionAlias(projectRoot)),
    ...(options.extra ? [bundle(options.extra, {})] : []),
  ]);
  return {
    dir,
    names: [...Object.keys(entries), ...Object.keys(options.extra ?? {})],
    file: (name) => path.join(dir, name, 'index.mjs'),
    milliseconds: performance.now() - started,
  };
};
