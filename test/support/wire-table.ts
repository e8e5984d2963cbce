import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, inject } from 'vitest';
import { localDynamoDbClient } from '../../local/dynamodb-local';
import { ensureTable } from '../../local/ensure-table';
import { type TableAccess, tableAccess } from '../../shared/db/table-access';
import { type FaultProxy, type RecordedCall, startFaultProxy } from './dynamodb-faults';

/**
 * What a read costs on the wire: a table on DynamoDB Local that `fill` writes through the data
 * layer, and reads through the recording proxy, each with the BatchGetItem calls it made.
 */
export const useWireTable = (name: string, fill: (writes: () => TableAccess) => Promise<unknown>) => {
  const upstream = inject('dynamoDbEndpoint');
  const direct = DynamoDBDocumentClient.from(localDynamoDbClient(upstream), {
    marshallOptions: { removeUndefinedValues: true },
  });
  const tableName = `${name}-${randomUUID()}`;
  let proxy: FaultProxy | undefined;

  beforeAll(async () => {
    await ensureTable(localDynamoDbClient(upstream), tableName, { stream: false });
    await fill(() => tableAccess(direct, tableName, Date.now() + 60_000));
    proxy = await startFaultProxy(upstream);
  }, 120_000);

  afterAll(async () => {
    await proxy?.close();
    direct.destroy();
  });

  /** `read` through the proxy: its outcome (fulfilled or not), its calls, and the BatchGetItem ones among them. */
  const reading = async <T>(read: (access: TableAccess) => Promise<T>) => {
    if (!proxy) throw new Error('The wire table is not set up.');
    const client = DynamoDBDocumentClient.from(localDynamoDbClient(proxy.endpoint));
    try {
      const outcome: { value?: T; error?: unknown } = await read(
        tableAccess(client, tableName, Date.now() + 20_000),
      ).then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      );
      const calls: RecordedCall[] = proxy.takeCalls();
      return { ...outcome, calls, batches: calls.filter((call) => call.operation === 'BatchGetItem') };
    } finally {
      client.destroy();
    }
  };

  return { tableName, direct, reading };
};
