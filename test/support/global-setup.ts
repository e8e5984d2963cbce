import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../local/dynamodb-local';
import { operations } from '../../shared/routes/table';
import { backgroundTasks } from '../../shared/routes/tasks';
import { startDynamoDbProxy } from './dynamodb-proxy';
import { GrantRecorder, grantViolations } from './grants';
import { startLoadLock } from './load-lock';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Endpoint of the DynamoDB Local shared by every test file of the run. */
    dynamoDbEndpoint: string;
    /**
     * Endpoint of a second DynamoDB Local, for the load test that writes most: after its load the
     * shared one answered every write two to three times slower for the rest of the run (its
     * table deleted or not), and the files after it timed out.
     */
    loadDynamoDbEndpoint: string;
  }
}

/**
 * Starts one DynamoDB Local for the run and hands the test files, through
 * `inject('dynamoDbEndpoint')`, a recording proxy in front of it (with `DYNAMODB_ENDPOINT` set,
 * in front of that DynamoDB instead). Every call a function makes, on every path any test drives,
 * is checked at the end against its route row's `actions`, the grant the CDK stack gives it.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const given = process.env.DYNAMODB_ENDPOINT;
  const [dynamoDb, loadDynamoDb] = given
    ? [undefined, undefined]
    : await Promise.all([startDynamoDbLocal(), startDynamoDbLocal()]);
  const recorder = new GrantRecorder();
  const record = (target: string, body: string, headers: Parameters<GrantRecorder['record']>[0]) => {
    recorder.record(headers, target, body);
  };
  const proxy = await startDynamoDbProxy(given ?? dynamoDb!.endpoint, record);
  const loadProxy = await startDynamoDbProxy(given ?? loadDynamoDb!.endpoint, record);
  project.provide('dynamoDbEndpoint', proxy.endpoint);
  project.provide('loadDynamoDbEndpoint', loadProxy.endpoint);
  const loadLock = await startLoadLock();
  project.provide('loadLock', loadLock.url);
  return async () => {
    await loadLock.close();
    await Promise.all([proxy.close(), loadProxy.close()]);
    await Promise.all([dynamoDb?.stop(), loadDynamoDb?.stop()]);
    const { testFiles } = await project.globTestFiles();
    const ran = project.vitest.state.getTestModules();
    const wholeSuite =
      !project.vitest.config.testNamePattern &&
      ran.length === testFiles.length &&
      ran.every((module) => module.ok() && [...module.children.allTests('skipped')].length === 0);
    const problems = grantViolations(recorder.recorded, [...operations, ...backgroundTasks], wholeSuite);
    if (problems.length > 0) {
      throw new Error(
        `The functions' DynamoDB calls and their grants (route rows' actions) disagree:\n  ${problems.join('\n  ')}`,
      );
    }
  };
}
