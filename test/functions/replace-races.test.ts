import '../support/mocked-dynamodb';
import {
  BatchGetCommand,
  DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { batchGetFrom, cancelled, json, magazineItem } from '../support/handler-faults';
import { invoke } from '../support/proxy-event';

/** A replace that loses races DynamoDB Local seldom shows: to another replace, to another create, under If-Match. */
const dynamo = mockClient(DynamoDBDocumentClient);

const { handler: replaceMagazine } = await import('../../functions/replace-magazine');

beforeEach(() => {
  dynamo.reset();
  dynamo.on(GetCommand).resolves({});
  dynamo.on(BatchGetCommand).callsFake(batchGetFrom([]));
  dynamo.on(QueryCommand).resolves({ Items: [] });
});

/** `PUT /magazines/m1` with a new title. */
const replace = (headers: Record<string, string> = {}) =>
  invoke(replaceMagazine, {
    method: 'PUT',
    resource: '/magazines/{id}',
    params: { id: 'm1' },
    headers: { ...json, ...headers },
    body: { title: 'New' },
  });

describe('a replace that loses a race', () => {
  it('re-reads and retries a replace that raced with another writer', async () => {
    dynamo
      .on(BatchGetCommand)
      .callsFakeOnce(batchGetFrom([magazineItem('r1')]))
      .callsFake(batchGetFrom([magazineItem('r2')]));
    dynamo
      .on(TransactWriteCommand)
      .rejectsOnce(cancelled('None', 'ConditionalCheckFailed', 'None'))
      .resolves({});
    const res = await replace();
    expect(res.status).toBe(200);
    const last = dynamo.commandCalls(TransactWriteCommand)[1]?.args[0].input.TransactItems?.[1]?.Update;
    expect(last?.ExpressionAttributeValues?.[':previous']).toBe('r2');
  });

  it('answers 503 with Retry-After, not 500, when a replace loses its revision to other writers at every attempt', async () => {
    dynamo.on(BatchGetCommand).callsFake(batchGetFrom([magazineItem('r1')]));
    dynamo.on(TransactWriteCommand).rejects(cancelled('None', 'ConditionalCheckFailed', 'None'));
    const res = await replace();
    expect([res.status, res.headers['Retry-After']]).toEqual([503, '1']);
    expect(res.json).toMatchObject({ errorCode: '50301' });
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(10);
  });

  it('never answers a PUT with 405: one whose create keeps meeting another create tries again, then answers 503', async () => {
    // The magazine is missing at each read, and taken by another writer at each create.
    dynamo.on(BatchGetCommand).callsFake(batchGetFrom([]));
    dynamo.on(TransactWriteCommand).rejects(cancelled('None', 'ConditionalCheckFailed', 'None', 'None'));
    dynamo
      .on(GetCommand, { Key: { PK: 'G#0#MAG#m1', SK: 'MAGAZINE' } })
      .resolves({ Item: magazineItem('r1', { writeToken: 'someone-else' }) });
    const res = await replace();
    expect([res.status, res.headers['Retry-After'], res.json?.errorCode]).toEqual([503, '1', '50301']);
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(10);
  });

  it('checks If-None-Match again after a lost race: a revision it does not name goes through', async () => {
    dynamo
      .on(BatchGetCommand)
      .callsFakeOnce(batchGetFrom([magazineItem('r1')]))
      .callsFake(batchGetFrom([magazineItem('r2')]));
    dynamo
      .on(TransactWriteCommand)
      .rejectsOnce(cancelled('None', 'ConditionalCheckFailed', 'None'))
      .resolves({});
    const res = await replace({ 'If-None-Match': '"r0-json"' });
    expect(res.status).toBe(200);
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(2);
  });

  it('answers 412 when the If-Match revision lost the race', async () => {
    dynamo.on(BatchGetCommand).callsFake(batchGetFrom([magazineItem('r1')]));
    dynamo.on(TransactWriteCommand).rejects(cancelled('None', 'ConditionalCheckFailed', 'None'));
    const res = await replace({ 'If-Match': '"r1-json"' });
    expect(res.status).toBe(412);
    expect(res.json).toMatchObject({ errorCode: '41201' });
  });
});
