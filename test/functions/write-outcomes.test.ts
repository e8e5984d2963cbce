import { BatchGetCommand, DeleteCommand, GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { lambdaContext } from '../../local/lambda-context';
import {
  createArticle,
  createMagazine,
  deleteMagazine,
  dynamo,
  replaceMagazine,
  resetTable,
} from '../support/faulted-handlers';
import { article, batchGetFrom, cancelled, json, magazineItem, serverFault } from '../support/handler-faults';
import { type EventOptions, invoke, type ProxyHandler, proxyEvent } from '../support/proxy-event';

/**
 * What a client is told when a write cannot be finished: writers of one magazine's articles that
 * keep taking each other's number, and a write whose answer is lost with no time left to look
 * whether it was made. Faults DynamoDB Local does not produce.
 */
const addArticle: EventOptions = {
  method: 'POST',
  resource: '/magazines/{id}/articles',
  params: { id: 'm1' },
  headers: json,
  body: article,
};

beforeEach(() => resetTable(magazineItem('r1')));

describe('articles written by many clients at once', () => {
  it('takes turns till its deadline, then answers 503 with Retry-After, not 500, when every number it takes is taken first', async () => {
    dynamo.on(TransactWriteCommand).rejects(cancelled('None', 'ConditionalCheckFailed', 'ConditionalCheckFailed'));
    dynamo.on(GetCommand).resolves({ Item: { PK: 'ART#inc1', SK: '0000000001', writeToken: 'another-writer' } });
    const started = Date.now();
    const res = (await (createArticle as unknown as ProxyHandler)(
      proxyEvent(addArticle),
      lambdaContext('create-article', 'request-1', { timeoutMs: 6_000 }),
    )) as { statusCode: number; headers: Record<string, string>; body: string };
    expect([res.statusCode, res.headers['Retry-After'], JSON.parse(res.body).errorCode]).toEqual([503, '1', '50301']);
    // Past ten turns, and given up a second before its deadline (2 s before the function's timeout).
    expect(dynamo.commandCalls(TransactWriteCommand).length).toBeGreaterThan(10);
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  it('takes the next number when another article took its own', async () => {
    dynamo
      .on(BatchGetCommand)
      .callsFakeOnce(batchGetFrom([magazineItem('r1')]))
      .callsFake(batchGetFrom([magazineItem('r2', { articles: 1 })]));
    dynamo
      .on(TransactWriteCommand)
      .rejectsOnce(cancelled('None', 'ConditionalCheckFailed', 'ConditionalCheckFailed'))
      .resolves({});
    dynamo.on(GetCommand).resolves({ Item: { PK: 'ART#inc1', SK: '0000000001', writeToken: 'another-writer' } });
    const res = await invoke(createArticle, addArticle);
    expect([res.status, res.json]).toEqual([201, { id: 'm1~inc1~2' }]);
  });
});

describe('a write whose answer is lost, with no way to look whether it was made', () => {
  const writes: { name: string; handler: unknown; event: EventOptions }[] = [
    {
      name: 'POST /magazines',
      handler: createMagazine,
      event: { method: 'POST', resource: '/magazines', headers: json, body: { id: 'm1', title: 'New' } },
    },
    {
      name: 'PUT /magazines/{id}',
      handler: replaceMagazine,
      event: {
        method: 'PUT',
        resource: '/magazines/{id}',
        params: { id: 'm1' },
        headers: json,
        body: { title: 'New' },
      },
    },
    {
      name: 'DELETE /magazines/{id}',
      handler: deleteMagazine,
      event: { method: 'DELETE', resource: '/magazines/{id}', params: { id: 'm1' } },
    },
    { name: 'POST /magazines/{id}/articles', handler: createArticle, event: addArticle },
  ];

  it.each(writes)(
    '$name answers 503 50303 (it may have been made), never "not carried out"',
    async ({ handler, event }) => {
      if (handler === createMagazine) dynamo.on(BatchGetCommand).callsFake(batchGetFrom([]));
      dynamo.on(TransactWriteCommand).rejects(serverFault());
      dynamo.on(GetCommand).rejects(serverFault());
      const res = await invoke(handler, event);
      expect([res.status, res.headers['Retry-After'], res.json?.errorCode]).toEqual([503, '1', '50303']);
      expect(String(res.json?.developerMessage)).toMatch(/may have been made/);
    },
  );

  it('answers 503 50301 when the look shows the write was not made', async () => {
    dynamo.on(TransactWriteCommand).rejects(serverFault());
    // No article at its number, and the magazine still has its incarnation (its articles go only with it).
    dynamo.on(GetCommand, { Key: { PK: 'G#0#MAG#m1', SK: 'MAGAZINE' } }).resolves({ Item: magazineItem('r1') });
    const res = await invoke(createArticle, addArticle);
    expect([res.status, res.json?.errorCode]).toEqual([503, '50301']);
  });

  it('answers 503 50303 when no article is at its number but its magazine is gone: its articles went with it', async () => {
    dynamo.on(TransactWriteCommand).rejects(serverFault());
    const res = await invoke(createArticle, addArticle);
    expect([res.status, res.json?.errorCode]).toEqual([503, '50303']);
  });
});

describe('an idempotency key after a request that failed', () => {
  it('frees the key even when the deadline is what failed the request, so that its retry is not 409', async () => {
    dynamo.on(UpdateCommand).resolves({});
    dynamo.on(DeleteCommand).resolves({});
    dynamo.on(TransactWriteCommand).callsFake(() => new Promise(() => undefined));
    const res = (await (createArticle as unknown as ProxyHandler)(
      proxyEvent({ ...addArticle, headers: { ...json, 'Idempotency-Key': 'k-1' } }),
      lambdaContext('create-article', 'request-1', { timeoutMs: 3_000 }),
    )) as { statusCode: number; body: string };
    expect([res.statusCode, JSON.parse(res.body).errorCode]).toEqual([503, '50303']);
    const released = dynamo.commandCalls(DeleteCommand).map((call) => call.args[0].input.Key?.PK);
    expect(released).toEqual([expect.stringMatching(/^IDEM#/)]);
  });

  it('carries on when its reservation, sent again by the SDK after a lost answer, finds itself there', async () => {
    let reservation: Record<string, unknown> = {};
    dynamo.on(UpdateCommand).callsFake((input) => {
      const values = input.ExpressionAttributeValues;
      reservation = {
        fingerprint: values[':fingerprint'],
        state: 'running',
        leaseUntil: values[':lease'],
        writeToken: values[':token'],
      };
      throw Object.assign(new Error('taken'), { name: 'ConditionalCheckFailedException' });
    });
    dynamo.on(GetCommand).callsFake(() => ({ Item: { PK: 'IDEM#x', SK: 'IDEM', expiresAt: 0, ...reservation } }));
    dynamo.on(TransactWriteCommand).resolves({});
    const res = await invoke(createArticle, { ...addArticle, headers: { ...json, 'Idempotency-Key': 'k-1' } });
    expect([res.status, res.json]).toEqual([201, { id: 'm1~inc1~1' }]);
  });

  it('tells a duplicate to come back in a second while the first may still run, and when the lease ends after', async () => {
    const now = Date.now();
    let fingerprint: unknown;
    dynamo.on(UpdateCommand).callsFake((input) => {
      fingerprint = input.ExpressionAttributeValues[':fingerprint'];
      throw Object.assign(new Error('taken'), { name: 'ConditionalCheckFailedException' });
    });
    const retryAfter = async (leaseUntil: number) => {
      dynamo.on(GetCommand).callsFake(() => ({
        Item: { PK: 'IDEM#x', SK: 'IDEM', fingerprint, state: 'running', leaseUntil, expiresAt: 0, writeToken: 't' },
      }));
      const res = await invoke(createArticle, { ...addArticle, headers: { ...json, 'Idempotency-Key': 'k-1' } });
      return [res.status, res.json?.errorCode, res.headers['Retry-After']];
    };
    expect(await retryAfter(now + 29_000)).toEqual([409, '40901', '1']);
    expect(await retryAfter(now + 3_500)).toEqual([409, '40901', '4']);
  });
});
