import { DescribeTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import { startFaultProxy } from '../support/dynamodb-faults';
import {
  articleBody,
  expectError,
  expectTableUnchanged,
  magazineBody,
  nowSeconds,
  scanTable,
  uniqueId,
  useLocalApi,
} from './expect-api';

/** The API's DynamoDB calls pass a proxy that can lose replies and hold transactions, as DynamoDB can. */
const proxy = await startFaultProxy(inject('dynamoDbEndpoint'));
afterAll(() => proxy.close());
afterEach(() => proxy.clearFaults());

const local = useLocalApi({ env: { DYNAMODB_ENDPOINT: proxy.endpoint } });

const withKey = (key: string) => ({ headers: { 'Idempotency-Key': key } });
const articlesOf = async (magazineId: string) =>
  (await local.client.get(`/magazines/${magazineId}/articles`)).json<{ metadata: { resultset: { count: number } } }>()
    .metadata.resultset.count;
const magazineCount = async () =>
  (await local.client.get('/magazines')).json<{ metadata: { resultset: { count: number } } }>().metadata.resultset
    .count;

describe('Idempotency-Key on POST /magazines', () => {
  it('a second request with the key and the same body gets the first answer again and writes nothing', async () => {
    const key = uniqueId('key');
    const body = magazineBody({ title: 'Once', tags: [{ name: 'News' }] });
    const first = await local.client.post('/magazines', body, withKey(key));
    expect(first.status, first.text).toBe(201);
    const again = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
      local.client.post('/magazines', body, withKey(key)),
    );
    expect([again.status, again.headers.location, again.text]).toEqual([201, first.headers.location, first.text]);
  });

  it('makes one magazine of a body without id, however often it is sent with the key', async () => {
    const before = await magazineCount();
    const key = uniqueId('key');
    const body = { title: 'No id given' };
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await local.client.post('/magazines', body, withKey(key)));
    expect(new Set(answers.map((answer) => `${answer.status} ${answer.headers.location}`)).size).toBe(1);
    expect(await magazineCount()).toBe(before + 1);
  });

  it('the same key with another body: 422, nothing written', async () => {
    const key = uniqueId('key');
    expect((await local.client.post('/magazines', magazineBody({ title: 'First' }), withKey(key))).status).toBe(201);
    const reused = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
      local.client.post('/magazines', magazineBody({ title: 'Second' }), withKey(key)),
    );
    expect(
      expectError(reused, { status: 422, baseUrl: local.api.baseUrl, mentions: ['Idempotency-Key'] })?.errorCode,
    ).toBe('42201');
  });

  it('a key that is not 1 to 255 printable characters: 400 naming the header, nothing written', async () => {
    for (const key of ['', 'x'.repeat(256), 'tab\there', 'café']) {
      const refused = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
        local.client.post('/magazines', magazineBody(), {
          headers: { 'Idempotency-Key': Buffer.from(key, 'utf8').toString('latin1') },
        }),
      );
      expect(
        expectError(refused, { status: 400, baseUrl: local.api.baseUrl, mentions: ['Idempotency-Key'] })?.errorCode,
      ).toBe('40014');
    }
  });

  it('a request refused for what it asks (405, id taken) leaves the key free for the corrected request', async () => {
    const id = uniqueId();
    expect((await local.client.post('/magazines', magazineBody({ id }))).status).toBe(201);
    const key = uniqueId('key');
    const taken = await local.client.post('/magazines', magazineBody({ id }), withKey(key));
    expect(taken.status).toBe(405);
    // The same request again is refused again, not replayed from a record of success.
    expect((await local.client.post('/magazines', magazineBody({ id }), withKey(key))).status).toBe(405);
  });

  // Found by the hostile-request property: the refused request used to leave its key's reservation in the table.
  it('a request refused with a key writes nothing, not even the key (405 for a taken id, 404 for an unknown magazine)', async () => {
    const id = uniqueId();
    expect((await local.client.post('/magazines', magazineBody({ id }))).status).toBe(201);
    const taken = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
      local.client.post('/magazines', magazineBody({ id }), withKey(uniqueId('key'))),
    );
    expect(taken.status).toBe(405);
    const unknown = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
      local.client.post(`/magazines/${uniqueId('none')}/articles`, articleBody(), withKey(uniqueId('key'))),
    );
    expect(unknown.status).toBe(404);
  });

  it('while the first request is still running: 409 for the second; once it has failed, the key is free again', {
    timeout: 30_000,
  }, async () => {
    const key = uniqueId('key');
    const id = uniqueId();
    // The create's transaction gets no answer: the first request waits until its deadline, then answers 503.
    const held = proxy.inject({ operations: ['TransactWriteItems'], fault: 'timeout' });
    const first = local.client.post('/magazines', magazineBody({ id }), withKey(key));
    while (held.fired === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    const second = await local.client.post('/magazines', magazineBody({ id }), withKey(key));
    expect(expectError(second, { status: 409, baseUrl: local.api.baseUrl })?.errorCode).toBe('40901');
    const firstAnswer = await first;
    expect(firstAnswer.status).toBe(503);
    expect(firstAnswer.headers['retry-after']).toMatch(/^\d+$/);
    held.remove();
    const third = await local.client.post('/magazines', magazineBody({ id }), withKey(key));
    expect(third.status, third.text).toBe(201);
    expect((await local.client.get(`/magazines/${id}`)).status).toBe(200);
  });

  it('is kept at least 24 hours, by the table’s time to live', async () => {
    const key = uniqueId('key');
    const start = nowSeconds();
    expect((await local.client.post('/magazines', magazineBody(), withKey(key))).status).toBe(201);
    const ttl = await local.api.dynamoDbClient.send(new DescribeTimeToLiveCommand({ TableName: local.api.tableName }));
    const attribute = ttl.TimeToLiveDescription?.AttributeName;
    expect(ttl.TimeToLiveDescription?.TimeToLiveStatus).toBe('ENABLED');
    const expiring = (await scanTable(local.api.documentClient, local.api.tableName)).filter(
      (item) => attribute && typeof item[attribute] === 'number',
    );
    expect(expiring.length).toBeGreaterThan(0);
    for (const item of expiring) expect(Number(item[attribute!])).toBeGreaterThanOrEqual(start + 24 * 3600);
  });
});

describe('Idempotency-Key on POST /magazines/{id}/articles', () => {
  it('a reply lost after the article was written: the retry with the key gets the same article, and there is one', async () => {
    const magazine = uniqueId();
    expect((await local.client.post('/magazines', magazineBody({ id: magazine }))).status).toBe(201);
    const key = uniqueId('key');
    const body = articleBody({ title: 'Written once' });
    // The transaction is applied but no answer comes back, on every attempt, and the check of
    // whether it was applied fails too: the client is told to retry.
    proxy.inject({ operations: ['TransactWriteItems'], fault: { kind: 'lostReply', reply: 'drop' } });
    proxy.inject({ operations: ['GetItem', 'BatchGetItem'], fault: 'internal', after: 1 });
    const lost = await local.client.post(`/magazines/${magazine}/articles`, body, withKey(key));
    expect(lost.status, lost.text).toBe(503);
    expect(lost.headers['retry-after']).toMatch(/^\d+$/);
    proxy.clearFaults();

    const retried = await local.client.post(`/magazines/${magazine}/articles`, body, withKey(key));
    expect(retried.status, retried.text).toBe(201);
    expect(await articlesOf(magazine)).toBe(1);
    const again = await local.client.post(`/magazines/${magazine}/articles`, body, withKey(key));
    expect([again.status, again.headers.location, again.text]).toEqual([201, retried.headers.location, retried.text]);
    expect(await articlesOf(magazine)).toBe(1);
  });

  it('one key for two magazines is two different requests: the second gets 422', async () => {
    const [a, b] = [uniqueId(), uniqueId()];
    for (const id of [a, b]) expect((await local.client.post('/magazines', magazineBody({ id }))).status).toBe(201);
    const key = uniqueId('key');
    expect((await local.client.post(`/magazines/${a}/articles`, articleBody(), withKey(key))).status).toBe(201);
    const other = await local.client.post(`/magazines/${b}/articles`, articleBody(), withKey(key));
    expect(other.status).toBe(422);
    expect(await articlesOf(b)).toBe(0);
  });

  it('a key belongs to one operation: the same key on a magazine and on an article is two requests, both carried out', async () => {
    const key = uniqueId('key');
    const magazine = uniqueId();
    expect((await local.client.post('/magazines', magazineBody({ id: magazine }), withKey(key))).status).toBe(201);
    const article = await local.client.post(`/magazines/${magazine}/articles`, articleBody(), withKey(key));
    expect(article.status, article.text).toBe(201);
    expect(await articlesOf(magazine)).toBe(1);
  });

  it('without the key, a POST sent twice adds two articles: the key is what makes a retry safe', async () => {
    const magazine = uniqueId();
    expect((await local.client.post('/magazines', magazineBody({ id: magazine }))).status).toBe(201);
    for (let i = 0; i < 2; i++)
      expect((await local.client.post(`/magazines/${magazine}/articles`, articleBody())).status).toBe(201);
    expect(await articlesOf(magazine)).toBe(2);
  });
});

describe('DELETE /magazines/{id}, safe to send again without a key', () => {
  it('a reply lost after the delete was applied, on every attempt: the request looks, finds it made, and answers 200', async () => {
    const magazine = uniqueId();
    expect((await local.client.post('/magazines', magazineBody({ id: magazine }))).status).toBe(201);
    proxy.inject({ operations: ['TransactWriteItems'], fault: { kind: 'lostReply', reply: 'drop' } });
    const deleted = await local.client.delete(`/magazines/${magazine}`);
    expect(deleted.status, deleted.text).toBe(200);
    proxy.clearFaults();
    expect((await local.client.get(`/magazines/${magazine}`)).status).toBe(404);
  });
});
