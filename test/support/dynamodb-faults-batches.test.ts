import { randomUUID } from 'node:crypto';
import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  TransactionCanceledException,
  TransactionConflictException,
} from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  TransactGetCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { type JsonObject, startFaultProxy } from './dynamodb-faults';
import {
  arrived,
  conflicting,
  direct,
  draws,
  failureOf,
  item,
  key,
  lowLevel,
  newId,
  only,
  proxy,
  type SdkFailure,
  sdk,
  stored,
  table,
  until,
  upstream,
  useFaultProxies,
  wireKey,
} from './fault-proxy-fixture';

/** The proxy's batches cut short, transaction conflicts and fault rules, proven through the real AWS SDK v3 client against DynamoDB Local. */
useFaultProxies();

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
    draws.splice(0, draws.length, 0.9, 0.1, 0.6, 0.4);
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
