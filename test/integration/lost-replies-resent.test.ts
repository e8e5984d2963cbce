import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import { startFaultProxy } from '../support/dynamodb-faults';
import type { ProxiedCall } from '../support/fault-types';
import { firstClients } from '../support/first-clients';
import { articleBody, expectError, magazineBody, uniqueId, useLocalApi } from './expect-api';

/**
 * A write whose first send landed and whose answer was lost, which the SDK sent again (the same
 * ClientRequestToken) only to have that send cancelled, as DynamoDB cancels a transaction that meets
 * another in flight; meanwhile another client's write of the same magazine landed. The cancelled
 * resend does not show that nothing was written: the write must look for itself, and answer 503
 * 50303 when it cannot tell, never write itself a second time, nor answer 404, 405 or 50301.
 * The SDK's second send goes unanswered till its request timeout, while the other client writes;
 * its third is cancelled.
 */
const proxy = await startFaultProxy(inject('dynamoDbEndpoint'));
afterAll(() => proxy.close());
afterEach(() => proxy.clearFaults());

const local = useLocalApi({ events: true, env: { DYNAMODB_ENDPOINT: proxy.endpoint } });

/**
 * The write `matches` picks: its first send lands and its answer is lost; the SDK's second send
 * is held, unanswered, while `overtake` writes; its third is cancelled (TransactionConflict). Any
 * later send of the write (a new transaction, with a new token) goes through.
 */
const resentAndOvertaken = async <T>(
  matches: (call: ProxiedCall) => boolean,
  write: () => Promise<T>,
  overtake: () => Promise<unknown>,
) => {
  proxy.resetCalls();
  const send = (attempt: number) => (call: ProxiedCall) => matches(call) && (call.attempt ?? 1) === attempt;
  proxy.inject({ operations: send(1), fault: 'lostReply', times: 1 });
  proxy.inject({ operations: send(2), fault: 'timeout', times: 1 });
  const cancelled = proxy.inject({ operations: send(3), fault: 'conflict', times: 1 });
  const answer = write();
  while (!proxy.calls().some(send(2))) await new Promise((tick) => setTimeout(tick, 5));
  await overtake();
  const answered = await answer;
  // The case as described: the first send landed, the SDK's last resend was cancelled.
  expect(proxy.calls().find(send(1))).toMatchObject({ outcome: 'lostReply', forwarded: true });
  expect(cancelled.fired).toBe(1);
  return answered;
};

const eventsOf = async (magazineId: string) => {
  await local.api.foldersCaughtUp();
  return local.api.eventBus!.events.filter((event) => event.detail.magazineId === magazineId);
};
const kindsOf = async (magazineId: string) => (await eventsOf(magazineId)).map((event) => event['detail-type']);

const expectUnconfirmed = (response: Awaited<ReturnType<typeof local.client.get>>) => {
  expect(expectError(response, { status: 503, baseUrl: local.api.baseUrl })?.errorCode, response.text).toBe('50303');
  expect(response.headers['retry-after']).toMatch(/^\d+$/);
};

describe('a write resent by the SDK, the resend cancelled, overtaken by another write', { timeout: 30_000 }, () => {
  it('PUT /magazines/{id}, then another PUT: 503 50303, and it is not applied a second time', async () => {
    const id = uniqueId();
    expect((await local.client.post('/magazines', magazineBody({ id }))).status).toBe(201);
    const replaced = await resentAndOvertaken(
      firstClients('replaceMagazine', 'First'),
      () => local.client.put(`/magazines/${id}`, magazineBody({ title: 'First' })),
      async () =>
        expect((await local.client.put(`/magazines/${id}`, magazineBody({ title: 'Second' }))).status).toBe(200),
    );
    expectUnconfirmed(replaced);
    expect((await local.client.get(`/magazines/${id}`)).json<{ title: string }>().title).toBe('Second');
    expect(await kindsOf(id)).toEqual(['MagazineCreated', 'MagazineReplaced', 'MagazineReplaced']);
  });

  it('PUT /magazines/{id}, then a DELETE: 503 50303, and the magazine is not made again', async () => {
    const id = uniqueId();
    expect((await local.client.post('/magazines', magazineBody({ id }))).status).toBe(201);
    const replaced = await resentAndOvertaken(
      firstClients('replaceMagazine', 'First'),
      () => local.client.put(`/magazines/${id}`, magazineBody({ title: 'First' })),
      async () => expect((await local.client.delete(`/magazines/${id}`)).status).toBe(200),
    );
    expectUnconfirmed(replaced);
    expect((await local.client.get(`/magazines/${id}`)).status).toBe(404);
    expect(await kindsOf(id)).toEqual(['MagazineCreated', 'MagazineReplaced', 'MagazineDeleted']);
  });

  it.each([false, true])(
    'POST /magazines (with an Idempotency-Key: %s), then a DELETE: 201, created once, and a replay answers the same',
    async (withKey) => {
      const id = uniqueId();
      const headers = withKey ? { headers: { 'Idempotency-Key': uniqueId('key') } } : {};
      const body = magazineBody({ id, title: 'First' });
      const created = await resentAndOvertaken(
        firstClients('createMagazine', 'First'),
        () => local.client.post('/magazines', body, headers),
        async () => expect((await local.client.delete(`/magazines/${id}`)).status).toBe(200),
      );
      expect(created.status, created.text).toBe(201);
      expect((await local.client.get(`/magazines/${id}`)).status).toBe(404);
      const events = await eventsOf(id);
      expect(events.map((event) => [event['detail-type'], event.detail.requestId])).toEqual([
        ['MagazineCreated', created.headers['x-amzn-requestid']],
        ['MagazineDeleted', expect.any(String)],
      ]);
      if (withKey) {
        const replay = await local.client.post('/magazines', body, headers);
        expect([replay.status, replay.text]).toEqual([created.status, created.text]);
      }
    },
  );

  it('POST /magazines, then a DELETE and a POST of the id: 201, never 405 for its own magazine', async () => {
    const id = uniqueId();
    const created = await resentAndOvertaken(
      firstClients('createMagazine', 'First'),
      () => local.client.post('/magazines', magazineBody({ id, title: 'First' })),
      async () => {
        expect((await local.client.delete(`/magazines/${id}`)).status).toBe(200);
        expect((await local.client.post('/magazines', magazineBody({ id, title: 'Again' }))).status).toBe(201);
      },
    );
    expect(created.status, created.text).toBe(201);
    expect(await kindsOf(id)).toEqual(['MagazineCreated', 'MagazineDeleted', 'MagazineCreated']);
  });

  it('DELETE /magazines/{id}, then a POST of the id: 200, and the magazine made anew is not deleted', async () => {
    const id = uniqueId();
    expect((await local.client.post('/magazines', magazineBody({ id }))).status).toBe(201);
    const deleted = await resentAndOvertaken(
      firstClients('deleteMagazine'),
      () => local.client.delete(`/magazines/${id}`),
      async () =>
        expect((await local.client.post('/magazines', magazineBody({ id, title: 'Again' }))).status).toBe(201),
    );
    expect(deleted.status, deleted.text).toBe(200);
    expect((await local.client.get(`/magazines/${id}`)).json<{ title: string }>().title).toBe('Again');
    expect(await kindsOf(id)).toEqual(['MagazineCreated', 'MagazineDeleted', 'MagazineCreated']);
  });

  it('POST /magazines/{id}/articles, then a DELETE of the magazine: 503 50303, never 404 for an article it added', async () => {
    const id = uniqueId();
    expect((await local.client.post('/magazines', magazineBody({ id }))).status).toBe(201);
    const added = await resentAndOvertaken(
      firstClients('createArticle', 'First'),
      () => local.client.post(`/magazines/${id}/articles`, articleBody({ title: 'First' })),
      async () => expect((await local.client.delete(`/magazines/${id}`)).status).toBe(200),
    );
    expectUnconfirmed(added);
    expect(await kindsOf(id)).toEqual(['MagazineCreated', 'ArticleAdded', 'MagazineDeleted']);
  });
});
