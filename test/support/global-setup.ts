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
  const dynamoDb = given ? undefined : await startDynamoDbLocal();
  const recorder = new GrantRecorder();
  const proxy = await startDynamoDbProxy(given ?? dynamoDb!.endpoint, (target, body, headers) => {
    recorder.record(headers, target, body);
  });
  project.provide('dynamoDbEndpoint', proxy.endpoint);
  const loadLock = await startLoadLock();
  project.provide('loadLock', loadLock.url);
  return async () => {
    await loadLock.close();
    await proxy.close();
    await dynamoDb?.stop();
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
