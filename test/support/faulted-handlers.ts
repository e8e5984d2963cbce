import './mocked-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { batchGetFrom } from './handler-faults';

/**
 * The magazine and article handlers over a document client that aws-sdk-client-mock answers, for
 * the faults DynamoDB Local does not produce. The mock is made before the handlers load, so that
 * their client is the mocked one; each test file gets its own (vitest isolates files).
 */
export const dynamo = mockClient(DynamoDBDocumentClient);

export const { handler: createArticle } = await import('../../functions/create-article');
export const { handler: createMagazine } = await import('../../functions/create-magazine');
export const { handler: deleteMagazine } = await import('../../functions/delete-magazine');
export const { handler: getMagazine } = await import('../../functions/get-magazine');
export const { handler: replaceMagazine } = await import('../../functions/replace-magazine');

/** Every answer forgotten, then a table that holds these items and nothing else: where each test starts. */
export const resetTable = (...items: readonly Record<string, unknown>[]) => {
  dynamo.reset();
  dynamo.on(GetCommand).resolves({});
  dynamo.on(BatchGetCommand).callsFake(batchGetFrom([...items]));
  dynamo.on(QueryCommand).resolves({ Items: [] });
};
