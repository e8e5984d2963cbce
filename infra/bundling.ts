/**
 * How every function is built and sized, stated once: the CDK function construct and `scripts/bundle.ts`
 * (which measures what is deployed) both read these settings.
 */

/** Node version of the Lambda runtime and of the esbuild target; keep the two in step. */
export const nodeMajor = 24;
/** Lambda's name of that runtime. */
export const runtimeName = `nodejs${nodeMajor}.x`;
/** Memory of every function (MB); CPU grows with it, and 512 MB halves cold starts against 128 MB. */
export const memorySize = 512;

/**
 * ESM output still meets CommonJS inside dependencies (parts of the AWS SDK, Powertools) that
 * call `require` for Node built-ins; esbuild cannot turn those into imports, so give the module a
 * real `require`.
 */
export const esmRequireBanner =
  "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

/**
 * The SDK's default credential chain, swapped when a function is bundled for the module that reads
 * only what Lambda gives a function, its environment or the container endpoint that names (why,
 * and what it saves: its header). A path from the project's root: esbuild resolves an alias from
 * its working directory, which is the project's root under the CDK's local bundling and the
 * mounted project in Docker (`workingDirectory` in infra/api-function.ts).
 */
export const credentialChain = {
  module: '@aws-sdk/credential-provider-node',
  replacement: 'shared/lambda-credentials.ts',
} as const;

export const bundleSettings = {
  target: `node${nodeMajor}`,
  platform: 'node',
  format: 'esm',
  minify: true,
  sourcemap: true,
  /** The map only needs names and positions for stack traces; the sources are in the repository. */
  sourcesContent: false,
  /** `module` first, so that packages with an ESM build are tree-shaken. */
  mainFields: ['module', 'main'],
  banner: esmRequireBanner,
  /** The AWS SDK is bundled, not taken from the runtime: a pinned version and smaller cold starts. */
  external: [] as string[],
} as const;
