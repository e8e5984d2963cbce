import {
  BatchGetCommand,
  BatchWriteCommand,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { lambdaContext } from '../../local/lambda-context';
import {
  createArticle,
  createMagazine,
  deleteMagazine,
  dynamo,
  getMagazine,
  replaceMagazine,
  resetTable,
} from '../support/faulted-handlers';
import { article, awsError, batchGetFrom, cancelled, json, magazineItem, serverFault } from '../support/handler-faults';
import { type EventOptions, invoke, type ProxyHandler, proxyEvent } from '../support/proxy-event';

/** Faults DynamoDB Local never produces: throttling, lost races, lost replies, partial batches, silence. */
beforeEach(() => resetTable());

describe('handlers facing DynamoDB faults', () => {
  it('answers 503 with Retry-After and the error object when reads stay throttled', async () => {
    dynamo.on(BatchGetCommand).rejects(awsError('ProvisionedThroughputExceededException'));
    const res = await invoke(getMagazine, { resource: '/magazines/{id}', params: { id: 'm1' } });
    expect(res.status).toBe(503);
    expect(res.headers['Retry-After']).toBe('1');
    expect(res.json).toMatchObject({ errorCode: '50301', moreInfo: expect.stringMatching(/50301\.html$/) });
    expect(res.body).not.toMatch(/Provisioned|DynamoDB/);
  });

  it('answers 503, never 500, when DynamoDB keeps failing with 5xx', async () => {
    dynamo.on(BatchGetCommand).rejects(serverFault());
    const res = await invoke(getMagazine, { resource: '/magazines/{id}', params: { id: 'm1' } });
    expect([res.status, res.headers['Retry-After'], res.json?.errorCode]).toEqual([503, '1', '50301']);
  });

  it('answers 503 in time when DynamoDB does not answer: before the function times out', async () => {
    dynamo.on(BatchGetCommand).callsFake(() => new Promise(() => undefined));
    const started = Date.now();
    const res = (await (getMagazine as unknown as ProxyHandler)(
      proxyEvent({ resource: '/magazines/{id}', params: { id: 'm1' } }),
      lambdaContext('get-magazine', 'request-1', { timeoutMs: 3_000 }),
    )) as { statusCode: number };
    expect(res.statusCode).toBe(503);
    // Given up 2 s before a 3 s timeout.
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  // TAGS closed to new tags for 1.5 s more, and requests with too little time left to outwait it.
  const heldBack: { name: string; handler: unknown; event: EventOptions }[] = [
    { name: 'a create', handler: createMagazine, event: { method: 'POST', resource: '/magazines', params: {} } },
    {
      name: 'a replace that adds a tag',
      handler: replaceMagazine,
      event: { method: 'PUT', resource: '/magazines/{id}', params: { id: 'm1' } },
    },
  ];
  it.each(heldBack)(
    'answers $name held back longer than it can wait with 503 50302 and Retry-After, writing nothing',
    async ({ handler, event }) => {
      const closing = { PK: 'G#0#L#TAGS', SK: '#Z', closedUntil: Date.now() + 1_500 };
      dynamo.on(BatchGetCommand).callsFake(batchGetFrom([magazineItem('r1'), closing]));
      const res = (await (handler as unknown as ProxyHandler)(
        proxyEvent({ ...event, headers: json, body: { title: 'New', tags: [{ name: 'Fresh' }] } }),
        lambdaContext('magazine-writer', 'request-1', { timeoutMs: 4_000 }),
      )) as { statusCode: number; headers: Record<string, string>; body: string };
      expect([res.statusCode, res.headers['Retry-After'], JSON.parse(res.body).errorCode]).toEqual([503, '1', '50302']);
      expect(dynamo).toHaveReceivedCommandTimes(TransactWriteCommand, 0);
    },
  );

  it('retries a transaction that lost to a concurrent one, then creates', async () => {
    dynamo
      .on(TransactWriteCommand)
      .rejectsOnce(cancelled('TransactionConflict', 'None', 'None', 'None'))
      .rejectsOnce(cancelled('None', 'TransactionConflict', 'None', 'None'))
      .resolves({});
    const res = await invoke(createMagazine, {
      method: 'POST',
      resource: '/magazines',
      headers: json,
      body: { id: 'm1', title: 'New' },
    });
    expect(res.status).toBe(201);
    expect(dynamo).toHaveReceivedCommandTimes(TransactWriteCommand, 3);
  });

  it('creates in one transaction of items no other write shares: a random guard, the magazine, a ticket per list', async () => {
    dynamo.on(TransactWriteCommand).resolves({});
    await invoke(createMagazine, {
      method: 'POST',
      resource: '/magazines',
      headers: json,
      body: { id: 'm1', title: 'New', tags: [{ name: 'Science' }], created: 1_700_000_000 },
    });
    const items = dynamo.commandCalls(TransactWriteCommand)[0]?.args[0].input.TransactItems ?? [];
    expect(items.map((item) => Object.keys(item)[0])).toEqual(['ConditionCheck', 'Put', 'Put', 'Put', 'Put']);
    expect(items[0]?.ConditionCheck?.Key?.PK).toMatch(/^G#0#GUARD#\d{3}$/);
    expect(items[1]?.Put).toMatchObject({
      Item: { PK: 'G#0#MAG#m1', title: 'New' },
      ConditionExpression: 'attribute_not_exists(#pk)',
    });
    // Each ticket is a new item of its own (no condition, nothing shared), in the partition of the list it changes.
    const tickets = items.slice(2).map((item) => item.Put);
    expect(tickets.map((put) => [put?.Item?.PK, put?.Item?.changes])).toEqual([
      // A plain change is front-coded (no prefix shared with the one before: `0`); one with spellings is JSON.
      ['G#0#L#ALL', '0001700000000#m1'],
      ['G#0#L#TAG#science', JSON.stringify([['001700000000#m1', 1, [['Science', 1]]]])],
      ['G#0#L#TAGS', JSON.stringify([['science', 1, [['Science', 1]]]])],
    ]);
    for (const put of tickets) {
      expect(put?.Item?.SK).toMatch(/^#T\d{13}#[\w-]{11}$/);
      expect(put?.ConditionExpression).toBeUndefined();
    }
  });

  it('turns a create whose id is taken into 405, the duplicate-id answer', async () => {
    dynamo.on(TransactWriteCommand).rejects(cancelled('None', 'ConditionalCheckFailed', 'None', 'None'));
    dynamo
      .on(GetCommand, { Key: { PK: 'G#0#MAG#m1', SK: 'MAGAZINE' } })
      .resolves({ Item: magazineItem('r1', { writeToken: 'someone-else' }) });
    const res = await invoke(createMagazine, {
      method: 'POST',
      resource: '/magazines',
      headers: json,
      body: { id: 'm1', title: 'New' },
    });
    expect(res.status).toBe(405);
    expect(res.json).toMatchObject({ errorCode: '40502' });
  });

  it('answers 201 when the create was applied but its answer lost: the magazine carries its write token', async () => {
    let token: unknown;
    dynamo
      .on(TransactWriteCommand)
      .callsFake((input: { TransactItems: { Put?: { Item: Record<string, unknown> } }[] }) => {
        token = input.TransactItems[1]?.Put?.Item.writeToken;
        throw serverFault();
      });
    dynamo
      .on(GetCommand, { Key: { PK: 'G#0#MAG#m1', SK: 'MAGAZINE' } })
      .callsFake(() => ({ Item: magazineItem('r1', { writeToken: token }) }));
    const res = await invoke(createMagazine, {
      method: 'POST',
      resource: '/magazines',
      headers: json,
      body: { id: 'm1', title: 'New' },
    });
    expect(res.status).toBe(201);
    expect(res.json).toEqual({ id: 'm1' });
  });

  it('closes a magazine with articles to new ones before its deletion, then deletes it and notes its articles as garbage', async () => {
    dynamo.on(BatchGetCommand).callsFake(batchGetFrom([magazineItem('r1', { articles: 2 })]));
    dynamo.on(UpdateCommand).resolves({});
    dynamo.on(TransactWriteCommand).resolves({});
    dynamo.on(QueryCommand).resolves({
      Items: [
        { PK: 'ART#inc1', SK: '0000000001' },
        { PK: 'ART#inc1', SK: '0000000002' },
      ],
    });
    dynamo
      .on(BatchWriteCommand)
      .resolvesOnce({
        UnprocessedItems: { magazines: [{ DeleteRequest: { Key: { PK: 'ART#inc1', SK: '0000000002' } } }] },
      })
      .resolves({ UnprocessedItems: {} });
    const res = await invoke(deleteMagazine, { method: 'DELETE', resource: '/magazines/{id}', params: { id: 'm1' } });
    expect(res.status).toBe(200);
    expect(dynamo.commandCalls(UpdateCommand)[0]?.args[0].input.UpdateExpression).toBe('SET #closing = :now');
    const items = dynamo.commandCalls(TransactWriteCommand)[0]?.args[0].input.TransactItems ?? [];
    expect(items[1]?.Delete).toMatchObject({
      Key: { PK: 'G#0#MAG#m1' },
      ExpressionAttributeValues: { ':revision': 'r1' },
    });
    expect(items.at(-1)?.Put?.Item).toMatchObject({ PK: 'TRASH', kind: 'articles', incarnation: 'inc1' });
    // The unprocessed article is sent again.
    expect(dynamo.commandCalls(BatchWriteCommand)[1]?.args[0].input.RequestItems?.magazines).toEqual([
      { DeleteRequest: { Key: { PK: 'ART#inc1', SK: '0000000002' } } },
    ]);
  });

  it('deletes nothing when the deletion loses to a concurrent change under If-Match', async () => {
    dynamo.on(BatchGetCommand).callsFake(batchGetFrom([magazineItem('r1')]));
    dynamo.on(TransactWriteCommand).rejects(cancelled('None', 'ConditionalCheckFailed', 'None', 'None'));
    const res = await invoke(deleteMagazine, {
      method: 'DELETE',
      resource: '/magazines/{id}',
      params: { id: 'm1' },
      headers: { 'If-Match': '"r1-json"' },
    });
    expect(res.status).toBe(412);
    expect(dynamo).toHaveReceivedCommandTimes(BatchWriteCommand, 0);
  });

  it('refuses an article to a magazine being deleted (404), rather than hold its deletion back', async () => {
    dynamo.on(BatchGetCommand).callsFake(batchGetFrom([magazineItem('r1', { articles: 3, closing: Date.now() })]));
    const res = await invoke(createArticle, {
      method: 'POST',
      resource: '/magazines/{id}/articles',
      params: { id: 'm1' },
      headers: json,
      body: article,
    });
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ errorCode: '40402' });
    expect(dynamo).toHaveReceivedCommandTimes(TransactWriteCommand, 0);
  });

  it('numbers articles in their magazine: the next number is taken in the same transaction as the article', async () => {
    dynamo.on(BatchGetCommand).callsFake(batchGetFrom([magazineItem('r1', { articles: 4 })]));
    dynamo.on(TransactWriteCommand).resolves({});
    const res = await invoke(createArticle, {
      method: 'POST',
      resource: '/magazines/{id}/articles',
      params: { id: 'm1' },
      headers: json,
      body: article,
    });
    expect(res.status).toBe(201);
    expect(res.json).toEqual({ id: 'm1~inc1~5' });
    const items = dynamo.commandCalls(TransactWriteCommand)[0]?.args[0].input.TransactItems ?? [];
    expect(items[1]?.Update?.ExpressionAttributeValues).toMatchObject({
      ':seq': 5,
      ':previous': 4,
      ':incarnation': 'inc1',
    });
    expect(items[2]?.Put?.Item).toMatchObject({ PK: 'ART#inc1', SK: '0000000005', title: 'T' });
  });
});

describe('DynamoDB calls per request', () => {
  it('reads one magazine with one BatchGetItem: the magazine and a head replica', async () => {
    dynamo.on(BatchGetCommand).callsFake(batchGetFrom([magazineItem('r1')]));
    const res = await invoke(getMagazine, { resource: '/magazines/{id}', params: { id: 'm1' } });
    expect(res.status).toBe(200);
    expect(dynamo.calls()).toHaveLength(1);
    const keys = dynamo.commandCalls(BatchGetCommand)[0]?.args[0].input.RequestItems?.magazines?.Keys ?? [];
    expect(keys.map((key) => key.PK)).toEqual([expect.stringMatching(/^HEAD#\d\d$/), 'G#0#MAG#m1']);
  });

  it('does not touch the table at all in mock mode', async () => {
    const create = await invoke(createMagazine, {
      method: 'POST',
      resource: '/magazines',
      query: { mock: '' },
      headers: json,
      body: { title: 'x' },
    });
    const remove = await invoke(deleteMagazine, {
      method: 'DELETE',
      resource: '/magazines/{id}',
      params: { id: 'm1' },
      query: { mock: '1' },
    });
    expect([create.status, remove.status]).toEqual([201, 200]);
    expect(dynamo.calls()).toHaveLength(0);
  });
});
