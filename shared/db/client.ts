import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type StoreConfig, storeConfig } from '../config';
import { countForRequest } from '../metrics';
import { CALL_ATTEMPT_MS, CALL_ATTEMPTS, CONNECTION_MS } from '../timing';
import { isThrottling } from './failures';

interface ClientOptions {
  /** The operation the client works for: DynamoDB sees it in the user agent (CloudTrail data events, the test proxy). */
  readonly operation?: string;
  readonly settings?: Pick<StoreConfig, 'dynamoDbEndpoint' | 'region'>;
}

/**
 * One document client per function instance, made during its init phase. `DYNAMODB_ENDPOINT`
 * points it at DynamoDB Local; in AWS the SDK finds region and credentials itself. Each call is
 * bounded in time (socket and connection timeouts, few attempts) so that a request can give up,
 * in form, well before the function's timeout.
 */
export const createDocumentClient = ({ operation, settings = storeConfig() }: ClientOptions = {}) => {
  const client = new DynamoDBClient({
    // A named endpoint (DynamoDB Local) is used as it is, whatever the environment says of FIPS or dual-stack endpoints.
    ...(settings.dynamoDbEndpoint && {
      endpoint: settings.dynamoDbEndpoint,
      useFipsEndpoint: false,
      useDualstackEndpoint: false,
    }),
    region: settings.region,
    maxAttempts: CALL_ATTEMPTS,
    requestHandler: {
      requestTimeout: CALL_ATTEMPT_MS,
      connectionTimeout: CONNECTION_MS,
      throwOnRequestTimeout: true,
    },
    ...(operation && { customUserAgent: [['magazine-api', operation]] as [string, string][] }),
  });
  // With no logger set, the SDK's logger middleware still filters every input and output: 14 % of a list call.
  client.middlewareStack.remove('loggerMiddleware');
  // Inside the SDK's retries, so that a throttle it retried away still counts: the table alarm
  // sees DynamoDB's figure, and this one says which operation and request met it.
  client.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        if (error instanceof Error && isThrottling(error)) countForRequest('StoreThrottled');
        throw error;
      }
    },
    { step: 'deserialize', priority: 'high', name: 'countThrottles' },
  );
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
};

export type DocumentClient = ReturnType<typeof createDocumentClient>;
