import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import { type Fault, type FaultKind, type RecordedCall, startFaultProxy } from '../support/dynamodb-faults';
import type { ProxiedCall } from '../support/fault-types';
import { type Envelope, type MagazineView, useLocalApi } from './expect-api';

/**
 * A bulk write meets a fault that outlasts the SDK's attempts at one of its calls (a few hundred
 * ms of a 5xx, a throttle, a lost reply), with most of its deadline left: it sends that step again
 * and answers 200, rather than 503 for a fault a moment cured. (It answered 503 at each of these,
 * and its claim then held every other bulk write off for the rest of its 40 s lease.)
 */
const proxy = await startFaultProxy(inject('dynamoDbEndpoint'));
afterAll(() => proxy.close());
afterEach(() => proxy.clearFaults());

const local = useLocalApi({ env: { DYNAMODB_ENDPOINT: proxy.endpoint } });

const set = (round: string) =>
  Array.from({ length: 30 }, (_, i) => ({ id: `f-${i}`, title: `${round} ${i}`, tags: [{ name: `t${i % 3}` }] }));

const isSwitch = (call: { operation: string; request: unknown }) =>
  call.operation === 'TransactWriteItems' && JSON.stringify(call.request).includes('HEAD#');
const isSeal = (call: { operation: string; request: unknown }) =>
  call.operation === 'BatchWriteItem' && JSON.stringify(call.request).includes('#GUARD#');
const isBuild = (call: { operation: string; request: unknown }) =>
  call.operation === 'BatchWriteItem' && !JSON.stringify(call.request).includes('#GUARD#');

/** Every SDK attempt (3) of the first call of `caller` that `step` matches. */
const firstCall = (caller: string, step: (call: RecordedCall) => boolean) => {
  let invocation: string | undefined;
  return (call: ProxiedCall) => {
    if (call.caller !== caller) return false;
    invocation ??= step(call as RecordedCall) ? call.invocationId : undefined;
    return invocation !== undefined && call.invocationId === invocation;
  };
};

/** The steps, and the fault each meets. */
const steps: readonly [string, (call: RecordedCall) => boolean, Fault | FaultKind][] = [
  ['the head read, answering 500', (call) => call.operation === 'GetItem', 'internal'],
  ['the claim, throttled', (call) => call.operation === 'UpdateItem', 'throttle'],
  ['the seal, answering 503', isSeal, 'unavailable'],
  ['the build, its replies lost', isBuild, { kind: 'lostReply', reply: 'drop' }],
  ['the switch, answering 500', isSwitch, 'internal'],
  ['the switch, its replies lost', isSwitch, 'lostReply'],
];

describe('PUT /magazines and DELETE /magazines meeting a fault the SDK did not retry away', { timeout: 60_000 }, () => {
  it.each(steps)('at %s: the step is sent again and the request answers 200', async (name, operations, fault) => {
    const round = `R ${name}`;
    const handle = proxy.inject({
      operations: firstCall('replaceAllMagazines', operations),
      fault,
      times: 3,
    });
    const answer = await local.client.put('/magazines', set(round));
    expect(handle.fired).toBe(3);
    expect(answer.status, answer.text).toBe(200);
    const listed = (await local.client.get('/magazines?limit=100')).json<Envelope<MagazineView>>();
    expect(listed.metadata.resultset.count).toBe(30);
    expect(listed.results.every((magazine) => magazine.title.startsWith(round))).toBe(true);

    const emptied = proxy.inject({
      operations: firstCall('deleteAllMagazines', operations),
      fault,
      times: 3,
    });
    const deleted = await local.client.delete('/magazines');
    expect(emptied.fired).toBe(3);
    expect(deleted.status, deleted.text).toBe(200);
    expect((await local.client.get('/magazines')).json<Envelope<MagazineView>>().metadata.resultset.count).toBe(0);
  });
});
