import '../support/mocked-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { beforeEach, describe, expect, it } from 'vitest';
import { handler as createArticle } from '../../functions/create-article';
import { handler as createMagazine } from '../../functions/create-magazine';
import { handler as deleteMagazine } from '../../functions/delete-magazine';
import { handler as getMagazine } from '../../functions/get-magazine';
import { handler as listMagazines } from '../../functions/list-magazines';
import { handler as replaceAllMagazines } from '../../functions/replace-all-magazines';
import { handler as replaceMagazine } from '../../functions/replace-magazine';
import { invoke } from '../support/proxy-event';

/** Faults DynamoDB Local never produces: throttling, lost races, partial batches. */
const dynamo = mockClient(DynamoDBDocumentClient);

const awsError = (name: string, extra: object = {}) => Object.assign(new Error(name), { name, $metadata: {} }, extra);
const cancelled = (...codes: string[]) =>
  awsError('TransactionCanceledException', { CancellationReasons: codes.map((Code) => ({ Code })) });

const storedMagazine = (revision: string, extra: object = {}) => ({
  PK: 'MAG#m1',
  SK: 'MAGAZINE',
  id: 'm1',
  title: 'Old',
  tags: [{ id: 'science', name: 'Science' }],
  created: 1_700_000_000,
  updated: 1_700_000_000,
  revision,
  articleCount: 0,
  ...extra,
});

const json = { 'Content-Type': 'application/json' };

beforeEach(() => {
  dynamo.reset();
});

describe('handlers facing DynamoDB faults', () => {
  it('answers 503 with Retry-After and the error object when reads stay throttled', async () => {
    dynamo.on(GetCommand).rejects(awsError('ProvisionedThroughputExceededException'));
    const res = await invoke(getMagazine, { resource: '/magazines/{id}', params: { id: 'm1' } });
    expect(res.status).toBe(503);
    expect(res.headers['Retry-After']).toBe('1');
    expect(res.json).toMatchObject({
      errorCode: '50301',
      userMessage: expect.any(String),
      moreInfo: expect.stringMatching(/50301\.html$/),
    });
    expect(res.body).not.toMatch(/Provisioned|DynamoDB/);
  });

  it('retries a transaction that lost to a concurrent one, then creates', async () => {
    dynamo
      .on(TransactWriteCommand)
      .rejectsOnce(cancelled('TransactionConflict', 'None', 'None'))
      .rejectsOnce(cancelled('None', 'TransactionConflict', 'None'))
      .resolves({});
    const res = await invoke(createMagazine, {
      method: 'POST',
      resource: '/magazines',
      headers: json,
      body: { id: 'm1', title: 'New', tags: [{ name: 'Science' }] },
    });
    expect(res.status).toBe(201);
    expect(dynamo).toHaveReceivedCommandTimes(TransactWriteCommand, 3);
  });

  it('turns a lost create race into 405, the duplicate-id answer', async () => {
    dynamo.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'None', 'None', 'None'));
    dynamo.on(GetCommand).resolves({ Item: storedMagazine('r1') });
    const res = await invoke(createMagazine, {
      method: 'POST',
      resource: '/magazines',
      headers: json,
      body: { id: 'm1', title: 'New', tags: [{ name: 'Science' }] },
    });
    expect(res.status).toBe(405);
    expect(res.json).toMatchObject({ errorCode: '40502' });
  });

  it('writes the magazine, its memberships and the counters in one conditional transaction', async () => {
    dynamo.on(TransactWriteCommand).resolves({});
    await invoke(createMagazine, {
      method: 'POST',
      resource: '/magazines',
      headers: json,
      body: { id: 'm1', title: 'New', tags: [{ name: 'Science' }], created: 1_700_000_000 },
    });
    const items = dynamo.commandCalls(TransactWriteCommand)[0]?.args[0].input.TransactItems ?? [];
    expect(items).toHaveLength(4);
    expect(items[0]?.Put?.ConditionExpression).toBe('attribute_not_exists(#pk)');
    expect(items[1]?.Put?.Item).toMatchObject({ PK: 'TAG#science', SK: 'MAG#001700000000#m1', title: 'New' });
    const [shard, collection] = [items[2]?.Update, items[3]?.Update];
    expect(shard?.Key).toMatchObject({ PK: 'CATALOGUE', SK: expect.stringMatching(/^TAGS#\d\d$/) });
    expect(Object.values(shard?.ExpressionAttributeNames ?? {})).toEqual(
      expect.arrayContaining(['count#T#science', 'count#T#science#Y2023', 'name#T#science']),
    );
    expect(collection?.Key).toEqual({ PK: 'CATALOGUE', SK: 'MAGAZINES' });
    expect(Object.values(collection?.ExpressionAttributeNames ?? {})).toEqual(
      expect.arrayContaining(['count', 'count#Y2023', 'revision', 'lastModified']),
    );
  });

  it('re-reads and retries a replace that raced with another writer', async () => {
    dynamo
      .on(GetCommand)
      .resolvesOnce({ Item: storedMagazine('r1') })
      .resolves({ Item: storedMagazine('r2') });
    dynamo
      .on(TransactWriteCommand)
      .rejectsOnce(cancelled('ConditionalCheckFailed', 'None', 'None', 'None'))
      .resolves({});
    const res = await invoke(replaceMagazine, {
      method: 'PUT',
      resource: '/magazines/{id}',
      params: { id: 'm1' },
      headers: json,
      body: { title: 'New' },
    });
    expect(res.status).toBe(200);
    // Two reads of the magazine, then the shard of the tag it was uncounted from (pruning).
    expect(dynamo.commandCalls(GetCommand).filter((call) => call.args[0].input.Key?.SK === 'MAGAZINE')).toHaveLength(2);
    const last = dynamo.commandCalls(TransactWriteCommand)[1]?.args[0].input.TransactItems?.[0]?.Update;
    expect(last?.ExpressionAttributeValues?.[':previous']).toBe('r2');
  });

  it('answers 412 when the If-Match revision lost the race', async () => {
    dynamo.on(GetCommand).resolves({ Item: storedMagazine('r1') });
    dynamo.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'None', 'None', 'None'));
    const res = await invoke(replaceMagazine, {
      method: 'PUT',
      resource: '/magazines/{id}',
      params: { id: 'm1' },
      headers: { ...json, 'If-Match': '"r1-json"' },
      body: { title: 'New' },
    });
    expect(res.status).toBe(412);
    expect(res.json).toMatchObject({ errorCode: '41201' });
  });

  it('answers 412 when the collection changed between the If-Match check and the first write', async () => {
    dynamo.on(GetCommand).resolves({ Item: { PK: 'CATALOGUE', SK: 'MAGAZINES', revision: 'c1', count: 0 } });
    dynamo.on(QueryCommand).resolves({ Items: [] });
    dynamo.on(BatchGetCommand).resolves({ Responses: { magazines: [] } });
    dynamo.on(TransactWriteCommand).rejects(cancelled('None', 'ConditionalCheckFailed'));
    const res = await invoke(replaceAllMagazines, {
      method: 'PUT',
      resource: '/magazines',
      headers: { ...json, 'If-Match': '"c1-json"' },
      body: [{ id: 'm1', title: 'New' }],
    });
    expect(res.status).toBe(412);
    const catalogue = dynamo.commandCalls(TransactWriteCommand)[0]?.args[0].input.TransactItems?.at(-1)?.Update;
    expect(catalogue?.ConditionExpression).toBe('#revision = :expected');
    expect(catalogue?.ExpressionAttributeValues?.[':expected']).toBe('c1');
  });

  it('deletes nothing when the tombstone write loses to a concurrent change under If-Match', async () => {
    dynamo.on(GetCommand).resolves({ Item: storedMagazine('r1', { articleCount: 2 }) });
    dynamo.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'None', 'None', 'None'));
    const res = await invoke(deleteMagazine, {
      method: 'DELETE',
      resource: '/magazines/{id}',
      params: { id: 'm1' },
      headers: { 'If-Match': '"r1-json"' },
    });
    expect(res.status).toBe(412);
    expect(dynamo).toHaveReceivedCommandTimes(BatchWriteCommand, 0);
    expect(dynamo).toHaveReceivedCommandTimes(QueryCommand, 0);
  });

  it('tombstones first, then deletes the articles (retrying UnprocessedItems), then the tombstone', async () => {
    dynamo.on(GetCommand).resolves({});
    dynamo
      .on(GetCommand, { Key: { PK: 'MAG#m1', SK: 'MAGAZINE' } })
      .resolves({ Item: storedMagazine('r1', { articleCount: 2 }) });
    dynamo.on(QueryCommand).resolves({
      Items: [
        { PK: 'ARTICLE#a1', SK: 'ARTICLE' },
        { PK: 'ARTICLE#a2', SK: 'ARTICLE' },
      ],
    });
    dynamo
      .on(BatchWriteCommand)
      .resolvesOnce({
        UnprocessedItems: { magazines: [{ DeleteRequest: { Key: { PK: 'ARTICLE#a2', SK: 'ARTICLE' } } }] },
      })
      .resolves({ UnprocessedItems: {} });
    dynamo.on(TransactWriteCommand).resolves({});
    const res = await invoke(deleteMagazine, { method: 'DELETE', resource: '/magazines/{id}', params: { id: 'm1' } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ id: 'm1' });
    const transactions = dynamo
      .commandCalls(TransactWriteCommand)
      .map((call) => call.args[0].input.TransactItems ?? []);
    const tombstone = transactions[0]?.[0]?.Update;
    expect(tombstone?.UpdateExpression).toBe('SET #tombstone = :now, #gsi1pk = :tombstones, #gsi1sk = :id');
    expect(tombstone?.ExpressionAttributeValues).toMatchObject({ ':revision': 'r1', ':articleCount': 2 });
    expect(transactions[0]?.[1]?.Delete?.Key).toEqual({ PK: 'TAG#science', SK: 'MAG#001700000000#m1' });
    expect(dynamo).toHaveReceivedCommandTimes(BatchWriteCommand, 2);
    expect(dynamo.commandCalls(BatchWriteCommand)[1]?.args[0].input.RequestItems?.magazines).toEqual([
      { DeleteRequest: { Key: { PK: 'ARTICLE#a2', SK: 'ARTICLE' } } },
    ]);
    expect(transactions.at(-1)?.[0]?.Delete).toMatchObject({
      Key: { PK: 'MAG#m1', SK: 'MAGAZINE' },
      ConditionExpression: 'attribute_exists(#tombstone)',
    });
  });

  it('answers 404 for an article whose magazine keeps disappearing between read and write', async () => {
    dynamo.on(GetCommand).resolves({ Item: storedMagazine('r1', { generation: 'g1' }) });
    dynamo.on(TransactWriteCommand).rejects(cancelled('None', 'ConditionalCheckFailed'));
    const res = await invoke(createArticle, {
      method: 'POST',
      resource: '/magazines/{id}/articles',
      params: { id: 'gone' },
      headers: json,
      body: {
        title: 'T',
        author_first_name: 'A',
        author_last_name: 'L',
        author_email: 'a@example.com',
        date: '2024-01-31',
        text: 'x',
      },
    });
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ errorCode: '40402' });
  });

  it('decides a bulk replace on the table, not on a lagging index: a copy it has not indexed yet is still replaced', async () => {
    dynamo.on(GetCommand).resolves({ Item: { PK: 'CATALOGUE', SK: 'MAGAZINES', revision: 'c1', count: 1 } });
    // GSI1 has not caught up: it lists nothing, the table has m1 with another title.
    dynamo.on(QueryCommand).resolves({ Items: [] });
    dynamo.on(BatchGetCommand).resolves({ Responses: { magazines: [storedMagazine('r7', { title: 'Newer' })] } });
    dynamo.on(TransactWriteCommand).resolves({});
    const res = await invoke(replaceAllMagazines, {
      method: 'PUT',
      resource: '/magazines',
      headers: json,
      body: [{ id: 'm1', title: 'Old', tags: [{ name: 'Science' }], created: 1_700_000_000 }],
    });
    expect(res.status).toBe(200);
    expect(dynamo.commandCalls(BatchGetCommand)[0]?.args[0].input.RequestItems?.magazines).toMatchObject({
      ConsistentRead: true,
      Keys: [{ PK: 'MAG#m1', SK: 'MAGAZINE' }],
    });
    const update = dynamo.commandCalls(TransactWriteCommand)[0]?.args[0].input.TransactItems?.[0]?.Update;
    expect(update?.ExpressionAttributeValues).toMatchObject({ ':title': 'Old', ':previous': 'r7' });
  });
});

describe('DynamoDB calls per request', () => {
  it('reads one magazine with one GetItem', async () => {
    dynamo.on(GetCommand).resolves({ Item: storedMagazine('r1') });
    const res = await invoke(getMagazine, { resource: '/magazines/{id}', params: { id: 'm1' } });
    expect(res.status).toBe(200);
    expect(dynamo.calls()).toHaveLength(1);
  });

  it('reads a first page with one GetItem (the count) and one Query, whatever the collection size', async () => {
    dynamo.on(GetCommand).resolves({ Item: { count: 1_000_000 } });
    dynamo.on(QueryCommand).resolves({ Items: [storedMagazine('r1')], LastEvaluatedKey: { PK: 'x' } });
    const res = await invoke(listMagazines, { resource: '/magazines', query: { limit: '1' } });
    expect(res.json?.metadata).toEqual({ resultset: { count: 1_000_000, offset: 0, limit: 1 } });
    expect(dynamo).toHaveReceivedCommandTimes(GetCommand, 1);
    expect(dynamo).toHaveReceivedCommandTimes(QueryCommand, 1);
  });

  it('does not touch the table at all in mock mode', async () => {
    const list = await invoke(listMagazines, { resource: '/magazines', query: { mock: 'True' } });
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
    expect([list.status, create.status, remove.status]).toEqual([200, 201, 200]);
    expect(dynamo.calls()).toHaveLength(0);
  });
});
