import { randomUUID } from 'node:crypto';
import {
  IdempotentParameterMismatchException,
  InternalServerError,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import { PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  failureOf,
  item,
  key,
  lowLevel,
  newId,
  proxy,
  sdk,
  stored,
  table,
  useFaultProxies,
  wireKey,
} from './fault-proxy-fixture';

/** The proxy's timeouts and lost replies, and ClientRequestToken on DynamoDB Local, proven through the real AWS SDK v3 client. */
useFaultProxies();

describe('timeout', () => {
  it('never answers, so the SDK fails once its requestTimeout has passed', async () => {
    const id = newId();
    proxy.inject({ fault: 'timeout' });
    const started = Date.now();
    const failure = await failureOf(
      sdk({ maxAttempts: 1, requestTimeout: 300 }).send(new PutCommand({ TableName: table, Item: item(id) })),
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    expect([failure.name, failure.code]).toEqual(['TimeoutError', 'ETIMEDOUT']);
    expect(await stored(id)).toBeUndefined();
    expect(proxy.calls().map((call) => [call.outcome, call.status])).toEqual([['timeout', 0]]);
  });

  it('is retried by the SDK', async () => {
    const id = newId();
    proxy.inject({ fault: 'timeout', times: 1 });
    const output = await sdk({ requestTimeout: 300 }).send(new PutCommand({ TableName: table, Item: item(id) }));
    expect(output.$metadata.attempts).toBe(2);
    expect(await stored(id)).toEqual(item(id));
  });
});

describe('lostReply', () => {
  it('applies the write, then answers 500', async () => {
    const id = newId();
    proxy.inject({ fault: 'lostReply' });
    const failure = await failureOf(sdk({ maxAttempts: 1 }).send(new PutCommand({ TableName: table, Item: item(id) })));
    expect(failure).toBeInstanceOf(InternalServerError);
    expect(await stored(id)).toEqual(item(id));
    expect(proxy.calls()[0]).toMatchObject({
      outcome: 'lostReply',
      forwarded: true,
      status: 500,
      writeCapacityUnits: 1,
    });
  });

  it('can drop the connection instead, which the SDK reports as a TimeoutError (ECONNRESET)', async () => {
    const id = newId();
    proxy.inject({ fault: { kind: 'lostReply', reply: 'drop' } });
    const failure = await failureOf(sdk({ maxAttempts: 1 }).send(new PutCommand({ TableName: table, Item: item(id) })));
    expect([failure.name, failure.code]).toEqual(['TimeoutError', 'ECONNRESET']);
    expect(await stored(id)).toEqual(item(id));
    expect(proxy.calls()[0]).toMatchObject({ outcome: 'lostReply', forwarded: true, status: 0 });
  });

  it('makes the SDK apply a retried UpdateItem twice', async () => {
    const id = newId();
    proxy.inject({ fault: 'lostReply', times: 1 });
    await sdk().send(
      new UpdateCommand({
        TableName: table,
        Key: key(id),
        UpdateExpression: 'ADD n :one',
        ExpressionAttributeValues: { ':one': 1 },
      }),
    );
    expect((await stored(id))?.n).toBe(2);
  });

  it('does not make the SDK apply a retried TransactWriteItems twice: its retry carries the same ClientRequestToken', async () => {
    const id = newId();
    proxy.inject({ fault: 'lostReply', times: 1 });
    const output = await sdk().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: table,
              Key: key(id),
              UpdateExpression: 'ADD n :one',
              ExpressionAttributeValues: { ':one': 1 },
            },
          },
        ],
      }),
    );
    expect(output.$metadata.attempts).toBe(2);
    expect((await stored(id))?.n).toBe(1);
    const tokens = proxy.calls().map((call) => call.request.ClientRequestToken);
    expect(tokens).toHaveLength(2);
    expect(typeof tokens[0]).toBe('string');
    expect(tokens[1]).toBe(tokens[0]);
  });
});

describe('conflict', () => {
  it('cancels a transaction without applying it; after a lost reply the SDK resent it, and its failure says so', async () => {
    const id = newId();
    proxy.inject({ operations: (call) => call.attempt === 1, fault: 'lostReply', times: 1 });
    proxy.inject({ operations: (call) => (call.attempt ?? 1) > 1, fault: 'conflict', times: 1 });
    const failure = await failureOf(
      sdk().send(new TransactWriteCommand({ TransactItems: [{ Put: { TableName: table, Item: item(id) } }] })),
    );
    expect(failure.name).toBe('TransactionCanceledException');
    expect((failure as unknown as { CancellationReasons: unknown }).CancellationReasons).toEqual([
      { Code: 'TransactionConflict', Message: expect.any(String) },
    ]);
    // The first send landed: a cancelled resend does not prove that nothing was written.
    expect(failure.$metadata.attempts).toBe(2);
    expect(await stored(id)).toEqual(item(id));
    expect(proxy.calls().map((call) => [call.outcome, call.forwarded])).toEqual([
      ['lostReply', true],
      ['conflict', false],
    ]);
  });
});

describe('ClientRequestToken on DynamoDB Local', () => {
  const increment = (id: string, token: string, by = 1) =>
    new TransactWriteItemsCommand({
      ClientRequestToken: token,
      TransactItems: [
        {
          Update: {
            TableName: table,
            Key: wireKey(id),
            UpdateExpression: 'ADD n :by',
            ExpressionAttributeValues: { ':by': { N: String(by) } },
          },
        },
      ],
    });

  it('is honoured: the same transaction with the same token is applied once; another input is refused', async () => {
    const id = newId();
    const token = randomUUID();
    const low = lowLevel({ maxAttempts: 1 });
    await low.send(increment(id, token));
    await low.send(increment(id, token));
    expect((await stored(id))?.n).toBe(1);
    expect(await failureOf(low.send(increment(id, token, 2)))).toBeInstanceOf(IdempotentParameterMismatchException);
  });

  it('is a new one on each send of the same command', async () => {
    const command = new TransactWriteCommand({
      TransactItems: [{ Put: { TableName: table, Item: item(newId()) } }],
    });
    const client = sdk();
    await client.send(command);
    await client.send(command);
    const [first, second] = proxy.calls().map((call) => call.request.ClientRequestToken);
    expect(first).not.toBe(second);
  });
});
