import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { type BuildOptions, build, type Plugin } from 'esbuild';
import { esmRequireBanner } from '../../infra/bundling';
import { deployedBuild } from '../../local/bundle-functions';
import { SEND_HOOK } from './answers';

/**
 * Bundles one handler module as the CDK stack bundles a function (infra/bundling.ts, the settings
 * local/bundle-functions.ts uses), into `outfile`. With `send`, the bundle first runs a prelude
 * that answers DynamoDB at the document client's `send` (the `[send]` mode of the benchmarks):
 * the same handler code, with the SDK's own work taken out.
 */
export interface BundleOptions {
  readonly entry: string;
  readonly outfile: string;
  readonly send?: boolean;
  /** Packages a framework imports lazily and never uses here (lambda-api's S3 client). */
  readonly external?: readonly string[];
  /** Source edits for a variant of the handler: in the file whose path ends with `file`, `from` becomes `to`. */
  readonly patches?: readonly Patch[];
  /** Packages replaced by a module of the project (a function's credential chain: `functionAlias`). */
  readonly alias?: Readonly<Record<string, string>>;
  /** Packages replaced by a module of the given text: what the bundle would weigh without them. */
  readonly stubs?: Readonly<Record<string, string>>;
}

export interface Patch {
  readonly file: string;
  readonly from: string;
  readonly to: string;
}

/** Applies the patches; a patch whose text is not found fails the build (the source moved on: fix the variant). */
const patchPlugin = (patches: readonly Patch[]): Plugin => ({
  name: 'variant-patches',
  setup(builder) {
    const files = patches.map((patch) => patch.file.replaceAll('\\', '/'));
    builder.onLoad({ filter: /\.ts$/ }, (args) => {
      const file = args.path.replaceAll('\\', '/');
      const mine = patches.filter((_, i) => file.endsWith(files[i]!));
      if (mine.length === 0) return undefined;
      let contents = readFileSync(args.path, 'utf8');
      for (const patch of mine) {
        if (!contents.includes(patch.from))
          throw new Error(`${patch.file}: no ${JSON.stringify(patch.from)} to patch.`);
        contents = contents.replace(patch.from, patch.to);
      }
      return { contents, loader: 'ts' };
    });
  },
});

const stubPlugin = (stubs: Readonly<Record<string, string>>): Plugin => ({
  name: 'stubs',
  setup(builder) {
    for (const name of Object.keys(stubs))
      builder.onResolve({ filter: new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) }, () => ({
        path: name,
        namespace: 'stub',
      }));
    builder.onLoad({ filter: /.*/, namespace: 'stub' }, (args) => ({ contents: stubs[args.path], loader: 'js' }));
  },
});

const PRELUDE = 'magazine-api-bench:send-prelude';

/** The prelude resolves lib-dynamodb from the handler's own tree, so it patches the class the handler uses. */
const preludePlugin = (resolveDir: string): Plugin => ({
  name: 'send-prelude',
  setup(builder) {
    builder.onResolve({ filter: new RegExp(`^${PRELUDE}$`) }, () => ({ path: PRELUDE, namespace: 'bench' }));
    builder.onLoad({ filter: /.*/, namespace: 'bench' }, () => ({
      resolveDir,
      loader: 'js',
      contents: [
        "import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';",
        `const answer = globalThis[${JSON.stringify(SEND_HOOK)}];`,
        "if (typeof answer !== 'function') throw new Error('No [send] answers installed.');",
        'DynamoDBDocumentClient.prototype.send = function send(command) { return answer(command); };',
      ].join('\n'),
    }));
  },
});

export const bundleHandler = async ({
  entry,
  outfile,
  send = false,
  external = [],
  patches = [],
  alias = {},
  stubs = {},
}: BundleOptions) => {
  const common: BuildOptions = {
    ...deployedBuild,
    alias: { ...alias },
    outfile,
    external: [...deployedBuild.external, ...external],
    plugins: [
      ...(patches.length > 0 ? [patchPlugin(patches)] : []),
      ...(Object.keys(stubs).length > 0 ? [stubPlugin(stubs)] : []),
    ],
  };
  if (!send) {
    await build({ ...common, entryPoints: [entry] });
  } else {
    const resolveDir = path.dirname(entry);
    await build({
      ...common,
      stdin: {
        contents: `import '${PRELUDE}';\nexport { handler } from ${JSON.stringify(entry)};\n`,
        resolveDir,
        sourcefile: 'send-entry.js',
        loader: 'js',
      },
      plugins: [preludePlugin(resolveDir), ...(common.plugins ?? [])],
    });
  }
  return { file: outfile, bytes: statSync(outfile).size };
};

/**
 * Bundles a measuring child of the benchmarks (not a function: no handler, no deployed settings)
 * into `outfile`, for Node 24 as ESM. Its AWS SDK clients' CommonJS parts require Node built-ins,
 * hence the deployed bundles' `require` banner; `external` is left to Node.
 */
export const bundleChild = async (entry: string, outfile: string, external: readonly string[] = []) => {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    mainFields: ['module', 'main'],
    banner: { js: esmRequireBanner },
    external: [...external],
    logLevel: 'warning',
  });
};
