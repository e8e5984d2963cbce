import {
  InternalServerError,
  ProvisionedThroughputExceededException,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { capacityByOperation, countByOperation, sumCapacity } from './dynamodb-faults';
import { failureOf, item, key, newId, proxy, sdk, stored, table, useFaultProxies } from './fault-proxy-fixture';

/** Each fault of the proxy, proven through the real AWS SDK v3 client against DynamoDB Local. */
useFaultProxies();

describe('pass-through and recording', () => {
  it('answers as DynamoDB Local does and records every call with its capacity', async () => {
    const [a, b, c] = [newId(), newId(), newId()];
    const client = sdk();
    await client.send(new PutCommand({ TableName: table, Item: item(a, { title: 'A' }) }));
    const got = await client.send(new GetCommand({ TableName: table, Key: key(a) }));
    await client.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: table, Item: item(b) } },
          {
            Update: {
              TableName: table,
              Key: key(c),
              UpdateExpression: 'SET n = :n',
              ExpressionAttributeValues: { ':n': 1 },
            },
          },
        ],
      }),
    );
    const listed = await client.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': `faults#${a}` },
      }),
    );
    await client.send(new DeleteCommand({ TableName: table, Key: key(a) }));

    expect(got.Item).toEqual(item(a, { title: 'A' }));
    expect(listed.Items).toEqual([item(a, { title: 'A' })]);
    // The proxy asked for the capacity, and took it out again, as the client had not.
    expect(got.ConsumedCapacity).toBeUndefined();
    expect(await stored(b)).toEqual(item(b));

    const calls = proxy.takeCalls();
    expect(countByOperation(calls)).toEqual({ PutItem: 1, GetItem: 1, TransactWriteItems: 1, Query: 1, DeleteItem: 1 });
    expect(calls.every((call) => call.status === 200 && call.outcome === 'passed' && call.forwarded)).toBe(true);
    expect(calls.every((call) => !('ReturnConsumedCapacity' in call.request) && call.responseBytes > 0)).toBe(true);
    expect(calls[0]?.request).toMatchObject({ TableName: table, Item: { PK: { S: `faults#${a}` } } });
    const byOperation = capacityByOperation(calls);
    expect(byOperation.PutItem).toEqual({ calls: 1, readCapacityUnits: 0, writeCapacityUnits: 1, responseBytes: 2 });
    expect(byOperation.GetItem?.readCapacityUnits).toBe(0.5);
    // DynamoDB Local's figure: 2 per table, whatever the number of items (real DynamoDB: 2 per item and KB).
    expect(byOperation.TransactWriteItems?.writeCapacityUnits).toBe(2);
    expect(sumCapacity(calls)).toMatchObject({ calls: 5, readCapacityUnits: 1, writeCapacityUnits: 4 });
    expect(proxy.calls()).toEqual([]);
  });

  it('leaves the ConsumedCapacity a client asked for', async () => {
    const output = await sdk().send(
      new GetCommand({ TableName: table, Key: key(newId()), ConsistentRead: true, ReturnConsumedCapacity: 'TOTAL' }),
    );
    expect(output.ConsumedCapacity).toEqual({ TableName: table, CapacityUnits: 1 });
    expect(proxy.calls()[0]?.readCapacityUnits).toBe(1);
  });

  it('does not emulate conflicts unless asked: DynamoDB Local runs overlapping transactions one after the other', async () => {
    const [a, b] = [newId(), newId()];
    const write = () =>
      sdk({ maxAttempts: 1 }).send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: table,
                Key: key(a),
                UpdateExpression: 'ADD n :one',
                ExpressionAttributeValues: { ':one': 1 },
              },
            },
            { Put: { TableName: table, Item: item(b) } },
          ],
        }),
      );
    await Promise.all([write(), write(), write()]);
    expect((await stored(a))?.n).toBe(3);
  });
});

describe('throttle', () => {
  it('answers ProvisionedThroughputExceededException, which a client without retries surfaces as is', async () => {
    const id = newId();
    proxy.inject({ operations: ['PutItem'], fault: 'throttle' });
    const failure = await failureOf(sdk({ maxAttempts: 1 }).send(new PutCommand({ TableName: table, Item: item(id) })));
    expect(failure).toBeInstanceOf(ProvisionedThroughputExceededException);
    expect(failure.$metadata).toMatchObject({ httpStatusCode: 400, attempts: 1 });
    expect((failure as ProvisionedThroughputExceededException).ThrottlingReasons?.[0]?.reason).toBe(
      'TableWriteKeyRangeThroughputExceeded',
    );
    expect(await stored(id)).toBeUndefined();
    expect(proxy.calls().map((call) => [call.outcome, call.forwarded, call.status])).toEqual([
      ['throttle', false, 400],
    ]);
  });

  it('can answer ThrottlingException instead', async () => {
    proxy.inject({ fault: { kind: 'throttle', error: 'ThrottlingException' } });
    const failure = await failureOf(
      sdk({ maxAttempts: 1 }).send(new GetCommand({ TableName: table, Key: key(newId()) })),
    );
    expect([failure.name, failure.$metadata.httpStatusCode]).toEqual(['ThrottlingException', 400]);
  });

  it('is retried by the default strategy, with the same invocation id on each attempt', async () => {
    const id = newId();
    proxy.inject({ operations: ['PutItem'], fault: 'throttle', times: 1 });
    const output = await sdk().send(new PutCommand({ TableName: table, Item: item(id) }));
    expect(output.$metadata.attempts).toBe(2);
    expect(await stored(id)).toEqual(item(id));
    const [first, second] = proxy.calls();
    expect([first?.outcome, first?.attempt, second?.outcome, second?.attempt]).toEqual(['throttle', 1, 'passed', 2]);
    expect(second?.invocationId).toBe(first?.invocationId);
  });

  it('cancels a TransactWriteItems with a ThrottlingError reason, which the SDK does not retry', async () => {
    const [a, b] = [newId(), newId()];
    proxy.inject({ operations: ['TransactWriteItems'], fault: 'throttle' });
    const failure = await failureOf(
      sdk().send(
        new TransactWriteCommand({
          TransactItems: [{ Put: { TableName: table, Item: item(a) } }, { Put: { TableName: table, Item: item(b) } }],
        }),
      ),
    );
    expect(failure).toBeInstanceOf(TransactionCanceledException);
    const reasons = (failure as TransactionCanceledException).CancellationReasons;
    expect(reasons?.map((reason) => reason.Code)).toEqual(['ThrottlingError', 'None']);
    expect(failure.$metadata).toMatchObject({ httpStatusCode: 400, attempts: 1 });
    expect(proxy.calls()).toHaveLength(1);
    expect([await stored(a), await stored(b)]).toEqual([undefined, undefined]);
  });
});

describe('internal and unavailable', () => {
  it('answers 500 InternalServerError without forwarding', async () => {
    const id = newId();
    proxy.inject({ fault: 'internal' });
    const failure = await failureOf(sdk({ maxAttempts: 1 }).send(new PutCommand({ TableName: table, Item: item(id) })));
    expect(failure).toBeInstanceOf(InternalServerError);
    expect([failure.$fault, failure.$metadata.httpStatusCode]).toEqual(['server', 500]);
    expect(await stored(id)).toBeUndefined();
  });

  it('is retried by the default strategy until it passes', async () => {
    const id = newId();
    proxy.inject({ fault: 'internal', times: 2 });
    const output = await sdk().send(new PutCommand({ TableName: table, Item: item(id) }));
    expect(output.$metadata.attempts).toBe(3);
    expect(await stored(id)).toEqual(item(id));
  });

  it('answers 503 ServiceUnavailable, which the default strategy tries 4 times in all', async () => {
    proxy.inject({ fault: 'unavailable' });
    const failure = await failureOf(sdk().send(new GetCommand({ TableName: table, Key: key(newId()) })));
    expect([failure.name, failure.$metadata.httpStatusCode, failure.$metadata.attempts]).toEqual([
      'ServiceUnavailable',
      503,
      4,
    ]);
    expect(proxy.calls().map((call) => call.attempt)).toEqual([1, 2, 3, 4]);
  });
});
