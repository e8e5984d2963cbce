import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import { startFaultProxy } from '../support/dynamodb-faults';
import type { ProxiedCall } from '../support/fault-types';
import { firstClients } from '../support/first-clients';
import { expectError, magazineBody, uniqueId, useLocalApi } from './expect-api';

/**
 * A write whose answer was lost, and that another client's write of the same magazine overtook
 * before the request could look whether it was made: the look must not take the later write for
 * proof that this one was not made. The first attempt of the write lands and its answer is lost;
 * the SDK's next attempts are never answered, which leaves the other client time to write.
 */
const proxy = await startFaultProxy(inject('dynamoDbEndpoint'));
afterAll(() => proxy.close());
afterEach(() => proxy.clearFaults());

const local = useLocalApi({ events: true, env: { DYNAMODB_ENDPOINT: proxy.endpoint } });

/** Loses the answer of the write `matches` picks once it has landed, and lets `overtake` write before the request looks. */
const overtaken = async <T>(
  matches: (call: ProxiedCall) => boolean,
  write: () => Promise<T>,
  overtake: () => Promise<unknown>,
) => {
  proxy.resetCalls();
  proxy.inject({ operations: (call) => matches(call) && (call.attempt ?? 1) === 1, fault: 'lostReply' });
  proxy.inject({ operations: (call) => matches(call) && (call.attempt ?? 1) > 1, fault: 'timeout' });
  const answer = write();
  const landed = () => proxy.calls().some((call) => matches(call) && call.status !== 0);
  while (!landed()) await new Promise((tick) => setTimeout(tick, 5));
  await overtake();
  return answer;
};

const eventsOf = async (magazineId: string) => {
  await local.api.foldersCaughtUp();
  return local.api.eventBus!.events.filter((event) => event.detail.magazineId === magazineId);
};

describe('a write whose answer was lost, overtaken by another before its look', { timeout: 30_000 }, () => {
  it.each([false, true])(
    'POST /magazines (with an Idempotency-Key: %s), then a PUT: 201 as it was created, and a replay answers the same',
    async (withKey) => {
      const id = uniqueId();
      const headers = withKey ? { headers: { 'Idempotency-Key': uniqueId('key') } } : {};
      const body = magazineBody({ id, title: 'First' });
      const created = await overtaken(
        firstClients('createMagazine', 'First'),
        () => local.client.post('/magazines', body, headers),
        async () =>
          expect((await local.client.put(`/magazines/${id}`, magazineBody({ title: 'Second' }))).status).toBe(200),
      );
      expect(created.status, created.text).toBe(201);
      const events = await eventsOf(id);
      expect(events.map((event) => [event['detail-type'], event.detail.requestId])).toEqual([
        ['MagazineCreated', created.headers['x-amzn-requestid']],
        ['MagazineReplaced', expect.any(String)],
      ]);
      if (withKey) {
        const replay = await local.client.post('/magazines', body, headers);
        expect([replay.status, replay.text]).toEqual([created.status, created.text]);
      }
    },
  );

  it('POST /magazines, then a DELETE: 201, as it was created', async () => {
    const id = uniqueId();
    const created = await overtaken(
      firstClients('createMagazine', 'First'),
      () => local.client.post('/magazines', magazineBody({ id, title: 'First' })),
      async () => expect((await local.client.delete(`/magazines/${id}`)).status).toBe(200),
    );
    expect(created.status, created.text).toBe(201);
  });

  it('DELETE /magazines/{id}, then a POST of the id: 200, as it was deleted', async () => {
    const id = uniqueId();
    expect((await local.client.post('/magazines', magazineBody({ id }))).status).toBe(201);
    const deleted = await overtaken(
      firstClients('deleteMagazine'),
      () => local.client.delete(`/magazines/${id}`),
      async () =>
        expect((await local.client.post('/magazines', magazineBody({ id, title: 'Again' }))).status).toBe(201),
    );
    expect(deleted.status, deleted.text).toBe(200);
    expect((await eventsOf(id)).map((event) => event['detail-type'])).toEqual([
      'MagazineCreated',
      'MagazineDeleted',
      'MagazineCreated',
    ]);
  });

  it('PUT /magazines/{id}, then another PUT: never 503 “not carried out” (50301), since it was', async () => {
    const id = uniqueId();
    expect((await local.client.post('/magazines', magazineBody({ id }))).status).toBe(201);
    const replaced = await overtaken(
      firstClients('replaceMagazine', 'First'),
      () => local.client.put(`/magazines/${id}`, magazineBody({ title: 'First' })),
      async () =>
        expect((await local.client.put(`/magazines/${id}`, magazineBody({ title: 'Second' }))).status).toBe(200),
    );
    // It was made and then replaced: it cannot tell, and says so.
    expect(expectError(replaced, { status: 503, baseUrl: local.api.baseUrl })?.errorCode).toBe('50303');
    expect(replaced.headers['retry-after']).toMatch(/^\d+$/);
    expect((await eventsOf(id)).map((event) => event['detail-type'])).toEqual([
      'MagazineCreated',
      'MagazineReplaced',
      'MagazineReplaced',
    ]);
  });
});
