import { readConfig, requiredTableName } from '../shared/config';
import { localCredentials, localDynamoDbClient, startDynamoDbLocal, type DynamoDbLocalOptions } from './dynamodb-local';
import { ensureTable } from './ensure-table';

export interface HandlerTable {
  readonly endpoint: string;
  readonly tableName: string;
  /** Whether the table had to be created. */
  readonly table: 'created' | 'existed';
  /** Whether a DynamoDB Local was started here (and `stop` stops it). */
  readonly started: boolean;
  stop(): Promise<void>;
}

/**
 * The table the handlers will use, ready before the first of them is imported: DynamoDB at
 * `DYNAMODB_ENDPOINT` when that is set, else a DynamoDB Local started here; the table the shared
 * config names, created from the shared definition. Sets, for the handlers, what their DynamoDB
 * client reads; the table name, mock mode and base URL stay the shared config's business.
 */
export const prepareHandlerTable = async (options: DynamoDbLocalOptions & { readonly onStartingLocal?: () => void } = {}): Promise<HandlerTable> => {
  const { onStartingLocal, ...localOptions } = options;
  const given = process.env.DYNAMODB_ENDPOINT;
  if (!given) onStartingLocal?.();
  const dynamoDb = given ? undefined : await startDynamoDbLocal(localOptions);
  const endpoint = given || dynamoDb!.endpoint;
  process.env.DYNAMODB_ENDPOINT = endpoint;
  process.env.AWS_ACCESS_KEY_ID ||= localCredentials.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY ||= localCredentials.secretAccessKey;

  const tableName = requiredTableName(readConfig());
  const client = localDynamoDbClient(endpoint);
  try {
    const table = await ensureTable(client, tableName).catch(async (error: unknown) => {
      await dynamoDb?.stop();
      throw error;
    });
    return { endpoint, tableName, table, started: dynamoDb !== undefined, stop: async () => dynamoDb?.stop() };
  } finally {
    client.destroy();
  }
};
