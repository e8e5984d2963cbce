import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { type RecordedCall, startFaultProxy } from '../support/dynamodb-faults';
import { runsAlone } from '../support/load-lock';
import { useLocalApi } from './expect-api';

/**
 * PUT /magazines cut short after its DynamoDB calls, then sent again: whatever the cut, the
 * collection's change shows as exactly one CollectionReplaced, and none of the bulk write's items
 * (new generation, sealed guards, swept old generation) ever becomes an event.
 */
// Sixteen bulk writes of 256 guards' seals each, timed by the cuts: beside other files' load,
// DynamoDB Local answers them late, and the API rightly says 503.
runsAlone();
const proxy = await startFaultProxy(inject('dynamoDbEndpoint'));
afterAll(() => proxy.close());
afterEach(() => proxy.clearFaults());

const local = useLocalApi({ env: { DYNAMODB_ENDPOINT: proxy.endpoint }, events: true });

const SIZE = 12;
const oldSet = Array.from({ length: SIZE }, (_, i) => ({ id: `o-${i}`, title: `Old ${i}`, tags: [{ name: 'ta' }] }));
const newSet = [
  ...Array.from({ length: SIZE / 2 }, (_, i) => ({ id: `o-${i}`, title: `New ${i}`, tags: [{ name: 'tc' }] })),
  ...Array.from({ length: SIZE / 2 }, (_, i) => ({ id: `n-${i}`, title: `Fresh ${i}`, tags: [{ name: 'tc' }] })),
];
const replace = (body: unknown) => local.client.put('/magazines', body);
const bulkCalls = (call: { readonly caller?: string }) => call.caller === 'replaceAllMagazines';

let calls: RecordedCall[] = [];

beforeAll(async () => {
  const first = await replace(oldSet);
  expect(first.status, first.text).toBe(200);
  proxy.resetCalls();
  expect((await replace(newSet)).status).toBe(200);
  calls = proxy.takeCalls().filter(bulkCalls);
}, 120_000);

/** Eight cut points spread over the request's calls, the first and the last among them. */
const cutPoints = () => {
  const last = calls.length - 1;
  return [...new Set(Array.from({ length: 8 }, (_, i) => Math.round((i * last) / 7)))];
};

describe('PUT /magazines cut short, then sent again', () => {
  it('publishes exactly one CollectionReplaced, for the new set, and no item events', {
    timeout: 600_000,
  }, async () => {
    const bus = local.api.eventBus!;
    expect(calls.length).toBeGreaterThan(8);
    const firstAnswers: number[] = [];
    for (const cut of cutPoints()) {
      expect((await replace(oldSet)).status).toBe(200);
      await local.api.foldersCaughtUp();
      const before = bus.events.length;
      proxy.inject({ operations: bulkCalls, fault: 'internal', after: cut });
      const answer = await replace(newSet);
      proxy.clearFaults();
      firstAnswers.push(answer.status);
      if (answer.status !== 200) expect((await replace(newSet)).status).toBe(200);
      await local.api.foldersCaughtUp();
      const events = bus.events.slice(before);
      const where = `cut after call ${cut} (${calls[cut]?.operation}), first answer ${answer.status}`;
      expect(
        events.map((event) => event['detail-type']),
        where,
      ).toEqual(['CollectionReplaced']);
      expect(events[0]!.detail, where).toMatchObject({ collection: { count: SIZE } });
    }
    // The cuts did cut: some requests failed and were completed by the next.
    expect(firstAnswers).toContain(503);
  });
});
