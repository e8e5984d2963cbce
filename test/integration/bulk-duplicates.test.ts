import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import { startFaultProxy } from '../support/dynamodb-faults';
import type { ProxiedCall } from '../support/fault-types';
import { type Envelope, type MagazineView, useLocalApi } from './expect-api';

/**
 * The same bulk write sent twice at once (a client that gave up waiting and sent it again, or two
 * clients wiping the collection with `DELETE /magazines`, whose requests are all alike): both
 * carried on one claim, and the one that read the collection before the other switched went on to
 * write its lists into the generation the other had made current, over what single writes and the
 * folder had changed there since: `GET /magazines` answered 503 for good (a member it counted was
 * gone), and a tag no magazine carried answered 200.
 */
const proxy = await startFaultProxy(inject('dynamoDbEndpoint'));
afterAll(() => proxy.close());
afterEach(() => proxy.clearFaults());

// The folder runs, as under `npm start`: what it folds into the new generation's lists is what a late copy overwrote.
const local = useLocalApi({ env: { DYNAMODB_ENDPOINT: proxy.endpoint }, folder: true });

const ofBulk = (call: ProxiedCall) => call.caller === 'replaceAllMagazines';
/** A bulk write's switch: the transaction that points the heads at its generation. */
const isSwitch = (call: ProxiedCall) =>
  ofBulk(call) && call.operation === 'TransactWriteItems' && JSON.stringify(call.request).includes('HEAD#');
/** A bulk write's lists (counts, directories, blocks) written into the generation it builds. */
const isListBuild = (call: ProxiedCall) => {
  const text = JSON.stringify(call.request);
  return ofBulk(call) && call.operation === 'BatchWriteItem' && text.includes('#L#') && !text.includes('#GUARD#');
};

const until = async (seen: () => boolean) => {
  for (let waited = 0; !seen(); waited += 10) {
    if (waited > 5_000) throw new Error('the awaited call never came');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

const set = [
  { id: 'd-1', title: 'One', tags: [{ name: 'dup-a' }], created: 1_600_000_000 },
  { id: 'd-2', title: 'Two', tags: [{ name: 'dup-a' }], created: 1_600_086_400 },
];

describe('PUT /magazines sent twice at once', { timeout: 60_000 }, () => {
  it('the later copy leaves alone what single writes changed after the earlier one switched', async () => {
    const { client } = local;
    // The first copy's switch goes unanswered for an SDK attempt (2.5 s); the second copy, sent
    // meanwhile, carries on its claim, and its lists' write goes unanswered for three (7.5 s).
    proxy.inject({ operations: isSwitch, fault: 'timeout', times: 1 });
    proxy.inject({ operations: isListBuild, fault: 'timeout', after: 1, times: 3 });
    proxy.resetCalls();
    const earlier = client.put('/magazines', set);
    await until(() => proxy.calls().some(isSwitch));
    const later = client.put('/magazines', set);
    const copies = [earlier, later];
    const switched = await Promise.any(
      copies.map((copy) => copy.then((answer) => (answer.status === 200 ? answer : Promise.reject(answer)))),
    );
    expect(switched.status).toBe(200);
    // The collection is the new one: single writes change it.
    expect((await client.delete('/magazines/d-1')).status).toBe(200);
    const replaced = await client.put('/magazines/d-2', { title: 'Two', tags: [{ name: 'dup-b' }] });
    expect(replaced.status, replaced.text).toBe(200);
    await local.api.foldersCaughtUp();
    // One copy switches, and the other, sent while it ran, waits for that switch: 200 both.
    expect((await Promise.all(copies)).map((answer) => answer.status)).toEqual([200, 200]);
    await local.api.foldersCaughtUp();

    const count = async (path: string) => {
      const answer = await client.get(path);
      return answer.status === 200 ? answer.json<Envelope<MagazineView>>().metadata.resultset.count : answer.status;
    };
    const listed = await client.get('/magazines?limit=100');
    expect({
      'GET /magazines/d-1': (await client.get('/magazines/d-1')).status,
      'd-2 tags': (await client.get('/magazines/d-2')).json<MagazineView>().tags.map((tag) => tag.id),
      'GET /magazines': [listed.status, listed.json<Envelope<MagazineView>>().results?.map((m) => m.id)],
      'count /magazines': await count('/magazines?limit=1'),
      'count ?tag=dup-b': await count('/magazines?tag=dup-b'),
      'GET /tags/dup-a': (await client.get('/tags/dup-a')).status,
      'count /tags': await count('/tags'),
    }).toEqual({
      'GET /magazines/d-1': 404,
      'd-2 tags': ['dup-b'],
      'GET /magazines': [200, ['d-2']],
      'count /magazines': 1,
      'count ?tag=dup-b': 1,
      'GET /tags/dup-a': 404,
      'count /tags': 1,
    });
  });
});
