import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { devNull, tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { CostJob } from './cost-child';
import type { Job } from './runner';

const run = promisify(execFile);

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
    await run(process.execPath, [runner, jobFile, resultFile], { env, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const { stderr = '', stdout = '' } = error as { stderr?: string; stdout?: string };
    throw new Error(
      `The ${'kind' in job ? job.kind : 'cost'} job on ${'bundle' in job ? job.bundle : job.arms.map((arm) => arm.bundle).join(' and ')} failed:\n${String(stderr).slice(-4000)}\n${String(stdout).slice(-2000)}`,
    );
  }
  const result = JSON.parse(readFileSync(resultFile, 'utf8')) as Result;
  rmSync(jobFile, { force: true });
  rmSync(resultFile, { force: true });
  return result;
};
