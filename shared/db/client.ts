import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type StoreConfig, storeConfig } from '../config';

/**
 * One document client per function instance, made at module load. `DYNAMODB_ENDPOINT` points it
 * at DynamoDB Local; in AWS the SDK finds region and credentials itself.
 */
export const createDocumentClient = (settings: Pick<StoreConfig, 'dynamoDbEndpoint' | 'region'> = storeConfig()) =>
  DynamoDBDocumentClient.from(
    new DynamoDBClient({
      ...(settings.dynamoDbEndpoint && { endpoint: settings.dynamoDbEndpoint }),
      region: settings.region,
      maxAttempts: 5,
    }),
    { marshallOptions: { removeUndefinedValues: true } },
  );

export type DocumentClient = ReturnType<typeof createDocumentClient>;
