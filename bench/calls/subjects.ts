import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { bundleFunctions, functionAlias } from '../../local/bundle-functions';
import { bundleChild, bundleHandler, type Patch } from '../support/bundle';
import type { Scenario } from '../support/fixtures';

/** What `npm run bench` measures: the API of each tree, the reference handler, the competitors and the variants. */

export const say = (line: string) => process.stderr.write(`${line}\n`);

export interface Tree {
  readonly key: 'now' | 'before';
  readonly label: string;
  readonly root: string;
}

/** The commit a tree's figures belong to, and whether its files had moved on from it: a label must not claim a commit it was not. */
const shortCommit = (dir: string) => {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();
  const commit = git('rev-parse', '--short', 'HEAD');
  // The bench's own reports (bundle.md is rewritten before this is asked) are not changes to the tree measured.
  const changed = git('status', '--porcelain', '--untracked-files=no', '--', '.', ':!bench/results');
  return changed ? `${commit} and changes not committed` : commit;
};

/** This tree, and the checkout `--before` names if any. */
export const treesOf = (root: string, before: string | undefined): Tree[] => {
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
  return trees;
};

export const FUNCTION_OF: Record<Scenario, string> = {
  get: 'get-magazine',
  listJson: 'list-magazines',
  listXml: 'list-magazines',
  post: 'create-magazine',
};

export const competitors = [
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
export const REFERENCE = 'reference (middy + GetItem)';
/** The reference from a bundle of its own: the instrument check's other arm (two bundles in one process, as in every pair). */
export const REFERENCE_AGAIN = 'reference, bundled again';

export type Mode = 'sdk' | 'send';

/**
 * Functions of this tree with their source patched at bundling, each measured against the function
 * as it is: the list with one piece of avoidable work put back (what issue 10 says that work
 * costs), and a GET with one feature taken out (what that feature costs).
 */
export const variants = [
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

export const variantLabel = (key: (typeof variants)[number]['key']) =>
  variants.find((variant) => variant.key === key)!.label;

export interface Bundle {
  readonly sdk: string;
  readonly send: string;
}

export interface Subjects {
  readonly out: string;
  /** The measuring child (bench/support/runner.ts), bundled. */
  readonly runner: string;
  readonly treeBundles: ReadonlyMap<Tree['key'], Record<string, Bundle>>;
  readonly reference: Bundle;
  readonly referenceAgain: Bundle;
  readonly variantBundles: ReadonlyMap<string, Bundle>;
  readonly competitorBundles: ReadonlyMap<string, Bundle>;
  /** The deployed bundle of a function of this tree, as local/bundle-functions.ts makes it: what the cold start measures. */
  deployed(name: string): string;
  /** This tree's list-magazines as deployed, and without the Secrets Manager client (a stub in its place). */
  readonly secretsClient: { readonly with: string; readonly without: string };
}

/** In place of the Secrets Manager client: nothing the cursor key's module imports is left but names. */
const SECRETS_CLIENT_STUB = [
  'export class SecretsManagerClient { send() { throw new Error("stub"); } }',
  'export class GetSecretValueCommand { constructor(input) { this.input = input; } }',
].join('\n');

/** Bundles the runner and every subject into `out` (emptied first). */
export const bundleSubjects = async (root: string, out: string, trees: readonly Tree[]): Promise<Subjects> => {
  const bundlePair = async (
    name: string,
    entry: string,
    options: { external?: readonly string[]; patches?: readonly Patch[]; alias?: Record<string, string> } = {},
  ): Promise<Bundle> => {
    const sdk = path.join(out, name, 'index.mjs');
    const send = path.join(out, name, 'send', 'index.mjs');
    await Promise.all([
      bundleHandler({ entry, outfile: sdk, ...options }),
      bundleHandler({ entry, outfile: send, send: true, ...options }),
    ]);
    return { sdk, send };
  };

  rmSync(out, { recursive: true, force: true });
  say('Bundling the runner, the API of each tree, the reference handler and the competitors…');
  const runner = path.join(out, 'runner.mjs');
  await bundleChild(path.join(root, 'bench', 'support', 'runner.ts'), runner);

  const treeBundles = new Map<Tree['key'], Record<string, Bundle>>();
  for (const tree of trees) {
    const bundles: Record<string, Bundle> = {};
    for (const name of new Set(Object.values(FUNCTION_OF)))
      bundles[name] = await bundlePair(`${tree.key}/${name}`, path.join(tree.root, 'functions', `${name}.ts`), {
        alias: functionAlias(tree.root),
      });
    // The seed goes through the tree's own PUT /magazines, exactly as deployed.
    const seed = path.join(out, tree.key, 'replace-all-magazines', 'index.mjs');
    await bundleHandler({
      entry: path.join(tree.root, 'functions', 'replace-all-magazines.ts'),
      outfile: seed,
      alias: functionAlias(tree.root),
    });
    bundles['replace-all-magazines'] = { sdk: seed, send: seed };
    treeBundles.set(tree.key, bundles);
  }
  await bundleFunctions(path.join(out, 'deployed'), { names: [...new Set(Object.values(FUNCTION_OF))] });
  const reference = await bundlePair('reference', path.join(root, 'bench', 'reference-handler.ts'));
  const referenceAgain = await bundlePair('reference-again', path.join(root, 'bench', 'reference-handler.ts'));
  const listEntry = path.join(root, 'functions', 'list-magazines.ts');
  const secretsClient = {
    with: path.join(out, 'secrets-client', 'with', 'index.mjs'),
    without: path.join(out, 'secrets-client', 'without', 'index.mjs'),
  };
  await bundleHandler({ entry: listEntry, outfile: secretsClient.with, alias: functionAlias(root) });
  await bundleHandler({
    entry: listEntry,
    outfile: secretsClient.without,
    alias: functionAlias(root),
    stubs: { '@aws-sdk/client-secrets-manager': SECRETS_CLIENT_STUB },
  });
  const variantBundles = new Map<string, Bundle>();
  for (const variant of variants)
    variantBundles.set(
      variant.key,
      await bundlePair(`variant-${variant.key}`, path.join(root, 'functions', `${FUNCTION_OF[variant.scenario]}.ts`), {
        patches: variant.patches,
        alias: functionAlias(root),
      }),
    );
  const competitorBundles = new Map<string, Bundle>();
  for (const competitor of competitors)
    competitorBundles.set(
      competitor.key,
      await bundlePair(
        competitor.key,
        path.join(root, competitor.entry),
        'external' in competitor ? { external: competitor.external } : {},
      ),
    );
  return {
    out,
    runner,
    treeBundles,
    reference,
    referenceAgain,
    variantBundles,
    competitorBundles,
    deployed: (name) => path.join(out, 'deployed', name, 'index.mjs'),
    secretsClient,
  };
};
