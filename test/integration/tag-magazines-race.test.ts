import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import { startFaultProxy } from '../support/dynamodb-faults';
import type { ProxiedCall } from '../support/fault-types';
import { type Envelope, type MagazineView, useLocalApi } from './expect-api';

/**
 * `GET /tags/{tagId}/magazines` of a tag no magazine carries is 404; it looks the tag up when the
 * page counts none. A magazine that took the tag between the page and the look made the tag found,
 * and the page answered 200 with a count of 0: a tag in use with no member, which the collection
 * never was at any moment.
 */
const proxy = await startFaultProxy(inject('dynamoDbEndpoint'));
afterAll(() => proxy.close());
afterEach(() => proxy.clearFaults());

const local = useLocalApi({ env: { DYNAMODB_ENDPOINT: proxy.endpoint } });

/** The tag list's second Query in one request: the tag's look after the page. */
const tagLook = (call: ProxiedCall) => call.caller === 'listTagMagazines' && call.operation === 'Query';

describe('GET /tags/{tagId}/magazines while the tag comes into use', { timeout: 30_000 }, () => {
  it('answers the page of the tag as it is (200 with its magazine), or 404, never 200 with none', async () => {
    const { client } = local;
    // The look goes unanswered for an SDK attempt (2.5 s): the magazine is made meanwhile.
    proxy.inject({ operations: tagLook, fault: 'timeout', after: 1, times: 1 });
    proxy.resetCalls();
    const page = client.get('/tags/race-tag/magazines');
    for (let waited = 0; proxy.calls().filter(tagLook).length < 2; waited += 10) {
      if (waited > 5_000) throw new Error('the tag was never looked up');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const made = await client.post('/magazines', { id: 'race-1', title: 'Race', tags: [{ name: 'race-tag' }] });
    expect(made.status, made.text).toBe(201);
    const answer = await page;
    const shown =
      answer.status === 200
        ? answer.json<Envelope<MagazineView>>().results.map((magazine) => magazine.id)
        : answer.status;
    expect([404, ['race-1']]).toContainEqual(shown);
  });
});
