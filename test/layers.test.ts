import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The project's Biome rules, run on a small tree of files laid out as the project is: an import
 * that points up a layer, or a circle of files, fails the lint (so `npm test` and CI), and an
 * import that points down passes. The layers, ground up: domain; config, logger and metrics;
 * operation, db, mock and http; routes; openapi; docs; shared/*.ts; functions; infra; local.
 */

const root = new URL('..', import.meta.url).pathname;

/** A file's path and the module it imports, for each import that points up. */
const upward: readonly (readonly [string, string])[] = [
  ['shared/domain/upward.ts', '../db/keys'],
  ['shared/domain/upward-config.ts', '../config'],
  ['shared/config.ts', './http/errors'],
  ['shared/logger.ts', './app'],
  ['shared/operation/upward.ts', '../http/errors'],
  ['shared/operation/upward-db.ts', '../db/keys'],
  ['shared/db/upward.ts', '../http/errors'],
  ['shared/db/upward-routes.ts', '../routes/table'],
  ['shared/db/upward-operation.ts', '../operation/row'],
  ['shared/db/upward-app.ts', '../app'],
  ['shared/mock/upward.ts', '../db/keys'],
  ['shared/mock/upward-http.ts', '../http/errors'],
  ['shared/http/upward.ts', '../routes/table'],
  ['shared/http/middleware/upward.ts', '../../routes/api'],
  ['shared/http/upward-db.ts', '../db/keys'],
  ['shared/http/upward-openapi.ts', '../openapi/document'],
  ['shared/http/upward-bindings.ts', '../bindings'],
  ['shared/routes/upward.ts', '../openapi/document'],
  ['shared/routes/upward-db.ts', '../db/keys'],
  ['shared/openapi/upward.ts', '../docs/html'],
  ['shared/openapi/upward-mock.ts', '../mock/repository'],
  ['shared/docs/upward.ts', '../app'],
  ['shared/app.ts', '../functions/get-magazine'],
  ['shared/janitor.ts', '../infra/magazine-api-stack'],
  ['functions/upward.ts', '../infra/magazine-api-stack'],
  ['functions/upward-db.ts', '../shared/db/keys'],
  ['functions/upward-sdk.ts', '@aws-sdk/lib-dynamodb'],
  ['infra/upward.ts', '../local/server'],
  ['local/upward.ts', '../scripts/bundle'],
];

/** Imports that point down: the lint lets them be. */
const downward: readonly (readonly [string, string])[] = [
  ['shared/db/downward.ts', '../domain/errors'],
  ['shared/http/downward.ts', '../operation/row'],
  ['shared/routes/downward.ts', '../http/api'],
  ['shared/openapi/downward.ts', '../routes/table'],
  ['shared/docs/downward.ts', '../openapi/document'],
  ['shared/app-like.ts', './routes/api'],
  ['functions/downward.ts', '../shared/app'],
  ['infra/downward.ts', '../functions/get-magazine'],
  ['local/downward.ts', '../infra/magazine-api-stack'],
];

/** Two files that import each other. */
const circle: readonly (readonly [string, string])[] = [
  ['shared/db/circle-a.ts', './circle-b'],
  ['shared/db/circle-b.ts', './circle-a'],
];

interface Diagnostic {
  readonly category: string;
  readonly location: { readonly path: string };
}

let dir: string;
let diagnostics: readonly Diagnostic[];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'layers-'));
  const config = JSON.parse(readFileSync(join(root, 'biome.json'), 'utf8'));
  // The tree is not a git work tree, and the schema's path is the project's own.
  delete config.$schema;
  delete config.vcs;
  writeFileSync(join(dir, 'biome.json'), JSON.stringify(config));
  for (const [file, target] of [...upward, ...downward, ...circle]) {
    mkdirSync(join(dir, dirname(file)), { recursive: true });
    writeFileSync(join(dir, file), `import * as imported from '${target}';\n\nexport const used = () => imported;\n`);
  }
  let output: string;
  try {
    output = execFileSync(join(root, 'node_modules/.bin/biome'), ['lint', '--reporter=json', '--colors=off', '.'], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch (error) {
    output = (error as { stdout: string }).stdout;
  }
  diagnostics = (JSON.parse(output) as { diagnostics: Diagnostic[] }).diagnostics;
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const categoriesOf = (file: string) =>
  diagnostics.filter((diagnostic) => diagnostic.location.path === file).map((diagnostic) => diagnostic.category);

describe('the lint keeps the layers pointing down', () => {
  it.each(upward)('%s importing %s fails the lint', (file) => {
    expect(categoriesOf(file)).toContain('lint/style/noRestrictedImports');
  });

  it.each(downward)('%s importing %s passes', (file) => {
    expect(categoriesOf(file)).toEqual([]);
  });

  it('a circle of files fails the lint, at each of its imports', () => {
    for (const [file] of circle) expect(categoriesOf(file)).toContain('lint/suspicious/noImportCycles');
  });
});
