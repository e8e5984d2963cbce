import { randomUUID } from 'node:crypto';
import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  DynamoDBClient,
  type DynamoDBClientConfig,
  IdempotentParameterMismatchException,
  InternalServerError,
  ProvisionedThroughputExceededException,
  TransactionCanceledException,
  TransactionConflictException,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactGetCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { localCredentials, localDynamoDbClient, localRegion } from '../../local/dynamodb-local';
import { ensureTable } from '../../local/ensure-table';
import {
  capacityByOperation,
  countByOperation,
  type FaultProxy,
  type JsonObject,
  type RecordedCall,
  startFaultProxy,
  sumCapacity,
} from './dynamodb-faults';

/** Each fault of the proxy, proven through the real AWS SDK v3 client against DynamoDB Local. */
const upstream = inject('dynamoDbEndpoint');
const directClient = localDynamoDbClient(upstream);
/** Straight to DynamoDB Local, to see what was really stored. */
const direct = DynamoDBDocumentClient.from(directClient);
const table = `faults-${randomUUID()}`;

let proxy: FaultProxy;
let conflicting: FaultProxy;
/** Draws for `probability`, taken in order; Math.random once empty. */
let draws: number[] = [];
const clients: DynamoDBClient[] = [];

beforeAll(async () => {
  await ensureTable(directClient, table, { stream: false });
  proxy = await startFaultProxy(upstream, { random: () => draws.shift() ?? Math.random() });
  conflicting = await startFaultProxy(upstream, { conflicts: { holdMs: 250 } });
});

afterEach(() => {
  for (const target of [proxy, conflicting]) {
    target.clearFaults();
    target.resetCalls();
    target.resetCounters();
  }
  for (const client of clients.splice(0)) client.destroy();
});

afterAll(async () => {
  direct.destroy();
  await proxy?.close();
  await conflicting?.close();
});

interface ClientSettings {
  readonly maxAttempts?: number;
  readonly requestTimeout?: number;
  readonly via?: FaultProxy;
}

/** A low-level client of the proxy. Without `maxAttempts`, the SDK's own default retry strategy. */
const lowLevel = (settings: ClientSettings = {}) => {
  const config: DynamoDBClientConfig = {
    endpoint: (settings.via ?? proxy).endpoint,
    region: localRegion,
    credentials: localCredentials,
    requestHandler: { requestTimeout: settings.requestTimeout ?? 2_000, throwOnRequestTimeout: true },
    ...(settings.maxAttempts === undefined ? {} : { maxAttempts: settings.maxAttempts }),
  };
  const client = new DynamoDBClient(config);
  clients.push(client);
  return client;
};

/** A document client of the proxy, as the Lambda handlers make one. */
const sdk = (settings: ClientSettings = {}) => DynamoDBDocumentClient.from(lowLevel(settings));

const newId = () => randomUUID().slice(0, 8);
const key = (id: string) => ({ PK: `faults#${id}`, SK: 'item' });
const item = (id: string, extra: Record<string, unknown> = {}) => ({ ...key(id), ...extra });
const wireKey = (id: string) => ({ PK: { S: `faults#${id}` }, SK: { S: 'item' } });

const stored = async (id: string) =>
  (await direct.send(new GetCommand({ TableName: table, Key: key(id), ConsistentRead: true }))).Item;

interface SdkFailure {
  readonly name: string;
  readonly code?: string;
  readonly $fault?: string;
  readonly $metadata: { readonly httpStatusCode?: number; readonly attempts?: number };
}

const failureOf = async (pending: Promise<unknown>): Promise<SdkFailure> => {
  try {
    await pending;
  } catch (error) {
    return error as SdkFailure;
  }
  throw new Error('Expected the call to fail.');
};

const until = async (condition: () => boolean, timeoutMs = 2_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('Timed out waiting for the proxy.');
    await new Promise((tick) => setTimeout(tick, 5));
  }
};

const arrived = (target: FaultProxy, operation: string) => () =>
  target.calls().some((call) => call.operation === operation);

const only = (calls: readonly RecordedCall[], operation: string) =>
  calls.filter((call) => call.operation === operation);

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

describe('unprocessed', () => {
  const put = (id: string) => ({ PutRequest: { Item: wireKey(id) } });

  it('writes the first half of a BatchWriteItem and returns the rest as UnprocessedItems', async () => {
    const ids = [newId(), newId(), newId(), newId()];
    proxy.inject({ fault: 'unprocessed' });
    const low = lowLevel();
    const output = await low.send(new BatchWriteItemCommand({ RequestItems: { [table]: ids.map(put) } }));
    expect(output.UnprocessedItems).toEqual({ [table]: ids.slice(2).map(put) });
    expect(await Promise.all(ids.map(stored))).toEqual([item(ids[0] ?? ''), item(ids[1] ?? ''), undefined, undefined]);
    expect(proxy.calls()[0]?.writeCapacityUnits).toBe(2);
  });

  it('reads part of a BatchGetItem and returns the other keys, with their settings, as UnprocessedKeys', async () => {
    const ids = [newId(), newId(), newId()];
    for (const id of ids) await direct.send(new PutCommand({ TableName: table, Item: item(id) }));
    proxy.inject({ fault: 'unprocessed' });
    const low = lowLevel();
    const output = await low.send(
      new BatchGetItemCommand({
        RequestItems: { [table]: { Keys: ids.map(wireKey), ConsistentRead: true, ProjectionExpression: 'PK, SK' } },
      }),
    );
    expect(output.Responses?.[table]).toEqual([wireKey(ids[0] ?? '')]);
    expect(output.UnprocessedKeys).toEqual({
      [table]: { Keys: ids.slice(1).map(wireKey), ConsistentRead: true, ProjectionExpression: 'PK, SK' },
    });
  });

  it('returns a batch of one unprocessed without forwarding it', async () => {
    const id = newId();
    proxy.inject({ operations: ['BatchWriteItem'], fault: 'unprocessed' });
    const low = lowLevel();
    const output = await low.send(new BatchWriteItemCommand({ RequestItems: { [table]: [put(id)] } }));
    expect(output.UnprocessedItems).toEqual({ [table]: [put(id)] });
    expect(await stored(id)).toBeUndefined();
    expect(proxy.calls()[0]?.forwarded).toBe(false);
  });
});

describe('transaction conflicts', () => {
  const putBoth = (a: string, b: string) =>
    new TransactWriteCommand({
      TransactItems: [{ Put: { TableName: table, Item: item(a) } }, { Put: { TableName: table, Item: item(b) } }],
    });

  it('refuses what overlaps an in-flight TransactWriteItems, and lets it finish', async () => {
    const [x, y, z] = [newId(), newId(), newId()];
    const client = sdk({ via: conflicting });
    const first = client.send(putBoth(x, y));
    await until(arrived(conflicting, 'TransactWriteItems'));

    const second = await failureOf(
      client.send(
        new TransactWriteCommand({
          TransactItems: [
            { ConditionCheck: { TableName: table, Key: key(y), ConditionExpression: 'attribute_not_exists(PK)' } },
            { Put: { TableName: table, Item: item(z) } },
          ],
        }),
      ),
    );
    expect(second).toBeInstanceOf(TransactionCanceledException);
    expect((second as TransactionCanceledException).CancellationReasons).toEqual([
      { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' },
      { Code: 'None' },
    ]);
    expect(second.$metadata.attempts).toBe(1);

    const put = await failureOf(client.send(new PutCommand({ TableName: table, Item: item(x, { late: true }) })));
    expect(put).toBeInstanceOf(TransactionConflictException);
    expect(put.$metadata).toMatchObject({ httpStatusCode: 400, attempts: 1 });

    const read = await failureOf(
      client.send(new TransactGetCommand({ TransactItems: [{ Get: { TableName: table, Key: key(x) } }] })),
    );
    expect((read as TransactionCanceledException).CancellationReasons?.map((reason) => reason.Code)).toEqual([
      'TransactionConflict',
    ]);

    await first;
    expect(await Promise.all([x, y, z].map(stored))).toEqual([item(x), item(y), undefined]);
    expect(conflicting.counters().conflicts).toEqual({ TransactWriteItems: 1, PutItem: 1, TransactGetItems: 1 });
    expect(only(conflicting.calls(), 'TransactWriteItems').map((call) => [call.outcome, call.forwarded])).toEqual([
      ['passed', true],
      ['conflict', false],
    ]);
    // Once it is over, the same items are free again.
    await client.send(new PutCommand({ TableName: table, Item: item(x, { late: true }) }));
  });

  it('lets transactions on other items run side by side', async () => {
    const client = sdk({ via: conflicting });
    await Promise.all([client.send(putBoth(newId(), newId())), client.send(putBoth(newId(), newId()))]);
    expect(conflicting.counters().conflicts).toEqual({});
  });

  it('cancels an in-flight TransactGetItems when one of its items is written meanwhile', async () => {
    const [x, w] = [newId(), newId()];
    const client = sdk({ via: conflicting });
    const read = failureOf(
      client.send(
        new TransactGetCommand({
          TransactItems: [{ Get: { TableName: table, Key: key(x) } }, { Get: { TableName: table, Key: key(w) } }],
        }),
      ),
    );
    await until(arrived(conflicting, 'TransactGetItems'));
    await client.send(new PutCommand({ TableName: table, Item: item(w) }));
    expect(((await read) as TransactionCanceledException).CancellationReasons?.map((reason) => reason.Code)).toEqual([
      'None',
      'TransactionConflict',
    ]);
    expect(await stored(w)).toEqual(item(w));
  });

  it('answers TransactionInProgressException to the same token while the first is in flight', async () => {
    const [x, y] = [newId(), newId()];
    const client = sdk({ via: conflicting, maxAttempts: 1 });
    const input = {
      ClientRequestToken: randomUUID(),
      TransactItems: [{ Put: { TableName: table, Item: item(x) } }, { Put: { TableName: table, Item: item(y) } }],
    };
    const first = client.send(new TransactWriteCommand(input));
    await until(arrived(conflicting, 'TransactWriteItems'));
    const again = await failureOf(client.send(new TransactWriteCommand(input)));
    expect([again.name, again.$metadata.httpStatusCode]).toEqual(['TransactionInProgressException', 400]);
    await first;
    expect(await stored(x)).toEqual(item(x));
  });
});

describe('rules', () => {
  const get = (client: DynamoDBDocumentClient) =>
    client.send(new GetCommand({ TableName: table, Key: key('rules') })).then(
      () => 200,
      (error: SdkFailure) => error.$metadata.httpStatusCode,
    );

  it('skip the first `after` matching calls and fire `times` times', async () => {
    const client = sdk({ maxAttempts: 1 });
    const rule = proxy.inject({ operations: ['GetItem'], fault: 'internal', after: 1, times: 2 });
    await client.send(new PutCommand({ TableName: table, Item: item('rules') }));
    const statuses = [await get(client), await get(client), await get(client), await get(client)];
    expect(statuses).toEqual([200, 500, 500, 200]);
    expect([rule.seen, rule.fired]).toEqual([4, 2]);
    expect(proxy.counters().injected).toMatchObject({ internal: 2, throttle: 0 });
  });

  it('match on a predicate over the call, fire with a probability, and stop once removed', async () => {
    const client = sdk({ maxAttempts: 1 });
    const onRulesItem = (call: { readonly request: JsonObject }) =>
      JSON.stringify(call.request.Key ?? null).includes('faults#rules');
    const rule = proxy.inject({ operations: onRulesItem, fault: 'unavailable', probability: 0.5 });
    draws = [0.9, 0.1, 0.6, 0.4];
    const statuses = [await get(client), await get(client), await get(client), await get(client)];
    expect(statuses).toEqual([200, 503, 200, 503]);
    const elsewhere = await client.send(new GetCommand({ TableName: table, Key: key(newId()) }));
    expect(elsewhere.$metadata.httpStatusCode).toBe(200);
    rule.remove();
    expect(await get(client)).toBe(200);
    expect(rule.fired).toBe(2);
  });

  it('apply one fault per call, the first rule that fires', async () => {
    const client = sdk({ maxAttempts: 1 });
    proxy.inject({ fault: 'internal', times: 1 });
    proxy.inject({ fault: 'unavailable', times: 1 });
    expect([await get(client), await get(client), await get(client)]).toEqual([500, 503, 200]);
  });
});

describe('close', () => {
  it('ends a held request at once, and leaves nothing open', async () => {
    const closing = await startFaultProxy(upstream);
    closing.inject({ fault: 'timeout' });
    const client = sdk({ via: closing, maxAttempts: 1, requestTimeout: 20_000 });
    const pending = failureOf(client.send(new GetCommand({ TableName: table, Key: key(newId()) })));
    await until(() => closing.calls().length === 1);
    const started = Date.now();
    await closing.close();
    const failure = await pending;
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(failure.code).toBe('ECONNRESET');
    // The port is closed: a new client cannot connect.
    const refused = await failureOf(
      sdk({ via: closing, maxAttempts: 1 }).send(new GetCommand({ TableName: table, Key: key(newId()) })),
    );
    expect(refused.code).toBe('ECONNREFUSED');
  });
});
