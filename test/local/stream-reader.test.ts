import { randomUUID } from 'node:crypto';
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { localDynamoDbClient } from '../../local/dynamodb-local';
import { ensureTable } from '../../local/ensure-table';
import { type StreamReaderOptions, startStreamReader } from '../../local/stream-reader';

const endpoint = inject('dynamoDbEndpoint');
const client = localDynamoDbClient(endpoint);
afterAll(() => client.destroy());

/** A reader of a new table's tickets (`#T…`), as the folder's task reads them, polling every 20 ms. */
const readerOfNewTable = async (
  options: Pick<StreamReaderOptions, 'handle'> & Partial<Pick<StreamReaderOptions, 'parallelization' | 'onError'>>,
) => {
  const tableName = `stream-${randomUUID()}`;
  await ensureTable(client, tableName);
  const reader = await startStreamReader({
    endpoint,
    tableName,
    dynamoDbClient: client,
    prefixes: ['#T'],
    idleMs: 20,
    onError: () => {},
    ...options,
  });
  return { tableName, reader };
};

describe('the local stream reader', () => {
  it('hands a batch whose handling failed over again, before newer records, as an event source mapping retries it', async () => {
    const batches: string[][] = [];
    let failures = 1;
    const { tableName, reader } = await readerOfNewTable({
      handle: async (event: DynamoDBStreamEvent) => {
        batches.push(event.Records.map((record) => record.dynamodb?.Keys?.SK?.S ?? ''));
        if (failures-- > 0) throw new Error('The fold failed.');
      },
    });
    try {
      await client.send(new PutItemCommand({ TableName: tableName, Item: { PK: { S: 'L' }, SK: { S: '#T1' } } }));
      await reader.caughtUp();
      await client.send(new PutItemCommand({ TableName: tableName, Item: { PK: { S: 'L' }, SK: { S: '#T2' } } }));
      await reader.caughtUp();
    } finally {
      await reader.stop();
    }
    expect(batches).toEqual([['#T1'], ['#T1'], ['#T2']]);
  }, 60_000);

  it('hands over the records of one partition key in order, and does not hold others behind a slow batch', async () => {
    const handled: string[] = [];
    let release = () => {};
    const slow = new Promise<void>((done) => {
      release = done;
    });
    const { tableName, reader } = await readerOfNewTable({
      parallelization: 10,
      handle: async (event: DynamoDBStreamEvent) => {
        const keys = event.Records.map((record) => `${record.dynamodb?.Keys?.PK?.S}${record.dynamodb?.Keys?.SK?.S}`);
        if (keys.includes('A#T1')) await slow;
        handled.push(...keys);
      },
    });
    const put = (PK: string, SK: string) =>
      client.send(new PutItemCommand({ TableName: tableName, Item: { PK: { S: PK }, SK: { S: SK } } }));
    try {
      await put('A', '#T1');
      await put('A', '#T2');
      await put('B', '#T1');
      await expect.poll(() => handled, { timeout: 20_000 }).toEqual(['B#T1']);
      release();
      await reader.caughtUp();
    } finally {
      release();
      await reader.stop();
    }
    expect(handled).toEqual(['B#T1', 'A#T1', 'A#T2']);
  }, 60_000);
});
