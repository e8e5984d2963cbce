import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { devNull, tmpdir } from 'node:os';
import path from 'node:path';
import type { CostJob } from './cost-child';
import type { Job } from './runner';

/** What a deployed function's process sees: Lambda's variables, credentials from the environment, no AWS files. */
export const lambdaEnvironment = (extra: Readonly<Record<string, string>> = {}): Record<string, string> => ({
  PATH: process.env.PATH ?? '',
  AWS_LAMBDA_FUNCTION_NAME: 'bench',
  AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '512',
  AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
  AWS_REGION: 'us-east-1',
  AWS_DEFAULT_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'ASIABENCH00000000000',
  AWS_SECRET_ACCESS_KEY: 'bench0000000000000000000000000000000000000',
  AWS_SESSION_TOKEN: 'IQoJb3JpZ2luX2VjEbench',
  AWS_CONFIG_FILE: devNull,
  AWS_SHARED_CREDENTIALS_FILE: devNull,
  TABLE_NAME: 'bench',
  CURSOR_KEY: 'bench',
  LOG_LEVEL: 'ERROR',
  ...extra,
});

/** What a function started here against DynamoDB Local sees (the recording of its calls). */
export const localEnvironment = (endpoint: string): Record<string, string> => ({
  PATH: process.env.PATH ?? '',
  DYNAMODB_ENDPOINT: endpoint,
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
  AWS_CONFIG_FILE: devNull,
  AWS_SHARED_CREDENTIALS_FILE: devNull,
  TABLE_NAME: 'bench',
  CURSOR_KEY: 'bench',
  LOG_LEVEL: 'ERROR',
});

const scratch = mkdtempSync(path.join(tmpdir(), 'magazine-bench-'));
process.once('exit', () => rmSync(scratch, { recursive: true, force: true }));
let jobs = 0;

/** The last `limit` characters a child wrote: enough to say why it failed, however much it wrote. */
const tail = (limit: number) => {
  let text = '';
  return {
    add(chunk: Buffer) {
      text = (text + chunk.toString('utf8')).slice(-limit);
    },
    get text() {
      return text;
    },
  };
};

/**
 * Runs `node <args>` and resolves when it exits 0. Its output goes to a pipe, as a function's
 * does, and only its tail is kept: a paired job of a fast case writes one metrics line per call,
 * tens of megabytes in all.
 */
const runNode = (args: readonly string[], env: Readonly<Record<string, string>>) =>
  new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const stdout = tail(2000);
    const stderr = tail(4000);
    child.stdout.on('data', (chunk: Buffer) => stdout.add(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.add(chunk));
    child.once('error', reject);
    child.once('close', (code, signal) =>
      code === 0
        ? resolve()
        : reject(Object.assign(new Error(`exit ${code ?? signal}`), { stdout: stdout.text, stderr: stderr.text })),
    );
  });

/** Runs one job in a fresh `node` (the project's, Node 24) and returns what it wrote: `runner` is runner.mjs, or cost-child.mjs for a `CostJob`. */
export const runJob = async <Result>(
  runner: string,
  job: Job | CostJob,
  env: Readonly<Record<string, string>>,
): Promise<Result> => {
  const id = jobs++;
  const jobFile = path.join(scratch, `job-${id}.json`);
  const resultFile = path.join(scratch, `result-${id}.json`);
  writeFileSync(jobFile, JSON.stringify(job));
  try {
    await runNode([runner, jobFile, resultFile], env);
  } catch (error) {
    const { stderr = '', stdout = '' } = error as { stderr?: string; stdout?: string };
    throw new Error(
      `The ${'kind' in job ? job.kind : 'cost'} job on ${'bundle' in job ? job.bundle : job.arms.map((arm) => arm.bundle).join(' and ')} failed (${(error as Error).message}):\n${String(stderr).slice(-4000)}\n${String(stdout).slice(-2000)}`,
    );
  }
  const result = JSON.parse(readFileSync(resultFile, 'utf8')) as Result;
  rmSync(jobFile, { force: true });
  rmSync(resultFile, { force: true });
  return result;
};
