import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * One document client per function instance, made at module load. `DYNAMODB_ENDPOINT` points it
 * at DynamoDB Local; in AWS the SDK finds region and credentials itself.
 */
export const createDocumentClient = (env: NodeJS.ProcessEnv = process.env) =>
  DynamoDBDocumentClient.from(
    new DynamoDBClient({
      ...(env.DYNAMODB_ENDPOINT && { endpoint: env.DYNAMODB_ENDPOINT }),
      region: env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
      maxAttempts: 5,
    }),
    { marshallOptions: { removeUndefinedValues: true } },
  );

export type DocumentClient = ReturnType<typeof createDocumentClient>;
