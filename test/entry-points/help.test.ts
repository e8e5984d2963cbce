import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { projectRoot, runNpm } from '../support/as-a-user';

/**
 * Every npm script, asked for help as a new user asks (`npm run X -- --help`), prints its usage
 * and does nothing else; a slip of the keyboard is named, with what was probably meant.
 */

const scripts = Object.keys(
  (JSON.parse(readFileSync(`${projectRoot}/package.json`, 'utf8')) as { scripts: Record<string, string> }).scripts,
);

/** The project's own commands; the others are tools (tsc, biome, vitest, cdk) that answer `--help` themselves. */
const own = [
  'start',
  'start:data',
  'seed',
  'bench',
  'bench:scale',
  'fuzz',
  'events',
  'invoke',
  'logical-ids',
  'openapi',
  'bundle',
];
const tools = ['test', 'typecheck', 'lint', 'format', 'synth', 'deploy', 'destroy'];

/** What the scripts write and the repository keeps: a help run must leave each as it was. */
const written = () =>
  execFileSync('git', ['status', '--porcelain', '--', 'bench/results', 'events', 'openapi.json', 'cdk.out', 'dist'], {
    cwd: projectRoot,
    encoding: 'utf8',
  });

const npmRun = async (args: readonly string[]) => {
  const command = runNpm(['run', '--silent', ...args]);
  const code = await command.exited;
  return { code, output: command.output() };
};

describe('npm scripts', () => {
  it('are each either one of the project commands below or a tool with its own --help', () => {
    expect([...scripts].sort()).toEqual([...own, ...tools].sort());
  });

  it.each(own)('npm run %s -- --help prints its usage and runs nothing', async (script) => {
    const before = written();
    const { code, output } = await npmRun([script, '--', '--help']);
    expect(code, output).toBe(0);
    expect(output).toMatch(/^Usage: npm (start|run [a-z:-]+)/);
    expect(output).toMatch(/--help +this text; runs nothing/);
    expect(output).not.toMatch(/Starting DynamoDB Local|listening on|Bundling|Wrote/);
    expect(written()).toBe(before);
  });

  it('name an unknown option, and the option it probably was', async () => {
    const before = written();
    const start = await npmRun(['start', '--', '--prot', '3001']);
    expect(start.code).toBe(2);
    expect(start.output).toContain('npm start: unknown option --prot; did you mean --port?');
    const scale = await npmRun(['bench:scale', '--', '--szie', '10']);
    expect(scale.code).toBe(2);
    expect(scale.output).toContain('npm run bench:scale: unknown option --szie; did you mean --size?');
    expect(written()).toBe(before);
  });

  it('npm run synth names a context setting a stage lacks, without a stack trace', async () => {
    const { code, output } = await npmRun(['synth', '--', '-c', 'stage=prod']);
    expect(code).not.toBe(0);
    expect(output).toContain('Context `alarmEmail` is required in prod');
    expect(output).not.toMatch(/^\s+at /m);
  });

  it('npm run invoke names a function that does not exist, and the one it probably was', async () => {
    const { code, output } = await npmRun(['invoke', '--', 'get-magazin']);
    expect(code).toBe(2);
    expect(output).toContain('npm run invoke: no function get-magazin; did you mean get-magazine?');
    expect(output).not.toContain('Starting DynamoDB Local');
  });
});
