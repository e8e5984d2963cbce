import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceInUseException,
  ResourceNotFoundException,
  type TableDescription,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { createTableInput, tableDefinition } from '../shared/db/table';

const delay = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

const tableStatus = async (client: DynamoDBClient, tableName: string): Promise<string | undefined> => {
  const table = await describe(client, tableName);
  return table && (table.TableStatus ?? 'UNKNOWN');
};

const describe = async (client: DynamoDBClient, tableName: string): Promise<TableDescription | undefined> => {
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    return Table ?? {};
  } catch (error) {
    if (error instanceof ResourceNotFoundException) return undefined;
    throw error;
  }
};

/**
 * Creates the API's table (from the one definition in `shared/db/table.ts`) unless it exists, and
 * resolves once it is ACTIVE. Returns whether it had to create it.
 */
export const ensureTable = async (
  client: DynamoDBClient,
  tableName: string,
  { timeoutMs = 30_000, stream = true }: { readonly timeoutMs?: number; readonly stream?: boolean } = {},
): Promise<'created' | 'existed'> => {
  let outcome: 'created' | 'existed' = 'existed';
  if ((await tableStatus(client, tableName)) === undefined) {
    try {
      await client.send(new CreateTableCommand(createTableInput(tableName, { stream })));
      outcome = 'created';
    } catch (error) {
      // Someone else created it in the meantime: just as good.
      if (!(error instanceof ResourceInUseException)) throw error;
    }
  }
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await tableStatus(client, tableName);
    if (status === 'ACTIVE') {
      // As the CDK table has it: idempotency keys and finished bulk records expire by themselves.
      if (outcome === 'created')
        await client.send(
          new UpdateTimeToLiveCommand({
            TableName: tableName,
            TimeToLiveSpecification: { AttributeName: tableDefinition.timeToLiveAttribute, Enabled: true },
          }),
        );
      // A table kept from before the folder (`--data`) gets the stream the folder reads.
      else if (stream && !(await describe(client, tableName))?.StreamSpecification?.StreamEnabled)
        await client.send(
          new UpdateTableCommand({
            TableName: tableName,
            StreamSpecification: createTableInput(tableName).StreamSpecification,
          }),
        );
      return outcome;
    }
    if (Date.now() > deadline)
      throw new Error(
        `Table ${tableName} is not ACTIVE after ${Math.round(timeoutMs / 1000)} s (status ${status ?? 'missing'}).`,
      );
    await delay(100);
  }
};
