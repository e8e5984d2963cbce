import { randomUUID } from 'node:crypto';
import {
  BatchGetItemCommand,
  CreateTableCommand,
  PutItemCommand,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Meter, meterSockets, sizeReader } from '../../bench/support/metered-sockets';
import { localDynamoDbClient } from '../../local/dynamodb-local';
import { createTableInput } from '../../shared/db/table';

/**
 * The cost model's meter (`npm run bench`, bench/cost/): read units as DynamoDB Local reports
 * them, write units as DynamoDB bills them where DynamoDB Local reports less, and the caller's
 * answers as it asked for them.
 */
const TableName = `meter-${randomUUID()}`;
const client = localDynamoDbClient(inject('dynamoDbEndpoint'));
const direct = localDynamoDbClient(inject('dynamoDbEndpoint'));
// Before any call: the SDK takes `http.request` once, at its first.
const meter: Meter = meterSockets(sizeReader(direct));

const S = (value: string) => ({ S: value });
const small = (sk: string) => ({ PK: S('meter'), SK: S(sk) });
/** Over 2 KB and under 3 KB: 3 write units, 1 read unit. */
const large = (sk: string) => ({ ...small(sk), text: S('x'.repeat(2_500)) });

beforeAll(async () => {
  await client.send(new CreateTableCommand(createTableInput(TableName, { stream: false })));
  await client.send(new PutItemCommand({ TableName, Item: small('checked') }));
});

afterAll(() => {
  meter.stop();
  client.destroy();
  direct.destroy();
});

const last = () => meter.calls.at(-1)!;

describe('the cost model’s meter', () => {
  it('bills each item of a transaction by its size, twice, condition checks included', async () => {
    meter.phase('transaction');
    await client.send(
      new TransactWriteItemsCommand({
        TransactItems: [
          { Put: { TableName, Item: large('large') } },
          { Put: { TableName, Item: small('small') } },
          {
            ConditionCheck: {
              TableName,
              Key: small('checked'),
              ConditionExpression: 'attribute_exists(PK)',
            },
          },
        ],
      }),
    );
    expect(last()).toMatchObject({
      operation: 'TransactWriteItems',
      phase: 'transaction',
      writeUnits: 2 * (3 + 1 + 1),
    });
    // DynamoDB Local's own figure for the same transaction is a floor.
    expect(last().reportedWriteUnits).toBeLessThan(last().writeUnits);
  });

  it('bills an item overwritten by a smaller one at its size before', async () => {
    await client.send(new PutItemCommand({ TableName, Item: small('large') }));
    expect(last()).toMatchObject({ operation: 'PutItem', writeUnits: 3 });
  });

  it('counts the read units DynamoDB Local reports, and answers without the capacity nobody asked for', async () => {
    const got = await client.send(
      new BatchGetItemCommand({
        RequestItems: { [TableName]: { Keys: [small('small'), small('checked')], ConsistentRead: true } },
      }),
    );
    expect(last()).toMatchObject({ operation: 'BatchGetItem', readUnits: 2, writeUnits: 0 });
    expect(got.Responses?.[TableName]).toHaveLength(2);
    expect(got.ConsumedCapacity).toBeUndefined();
    expect(last().answeredAt).toBeGreaterThan(last().sentAt);
  });
});
