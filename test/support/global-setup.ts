import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../local/dynamodb-local';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Endpoint of the DynamoDB Local shared by every test file of the run. */
    dynamoDbEndpoint: string;
  }
}

/**
 * Starts one DynamoDB Local for the run and hands its endpoint to the test files through
 * `inject('dynamoDbEndpoint')`. With `DYNAMODB_ENDPOINT` set, that DynamoDB is used instead.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const given = process.env.DYNAMODB_ENDPOINT;
  if (given) {
    project.provide('dynamoDbEndpoint', given);
    return async () => undefined;
  }
  const dynamoDb = await startDynamoDbLocal();
  project.provide('dynamoDbEndpoint', dynamoDb.endpoint);
  return () => dynamoDb.stop();
}
