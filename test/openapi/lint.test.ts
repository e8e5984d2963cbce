import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { openApiFile, openApiJson } from '../../shared/openapi/document';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;

const lint = async (file: string) => {
  const { stdout } = await run(
    join(root, 'node_modules/.bin/redocly'),
    ['lint', file, '--config', join(root, 'redocly.yaml'), '--format', 'json'],
    {
      cwd: root,
      maxBuffer: 64 * 1024 * 1024,
    },
  ).catch((error: { stdout?: string; stderr?: string }) => ({
    stdout: error.stdout ?? '',
    stderr: error.stderr ?? '',
  }));
  return JSON.parse(stdout) as {
    totals: { errors: number; warnings: number };
    problems: { ruleId: string; message: string; location: { pointer: string }[] }[];
  };
};

it.each([
  ['as served', () => openApiJson('http://127.0.0.1:3000')],
  ['as written to openapi.json', openApiFile],
])(
  'passes `redocly lint` with the recommended rules, without a warning, %s',
  async (_, text) => {
    const file = join(mkdtempSync(join(tmpdir(), 'openapi-')), 'openapi.json');
    writeFileSync(file, text());
    const report = await lint(file);
    const problems = report.problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? '?'}`);
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  },
  60_000,
);
