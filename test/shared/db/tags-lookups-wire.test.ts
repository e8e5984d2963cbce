import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { localDynamoDbClient } from '../../../local/dynamodb-local';
import { ensureTable } from '../../../local/ensure-table';
import { tableAccess } from '../../../shared/db/table-access';
import { listTags } from '../../../shared/db/tags';
import { type FaultProxy, startFaultProxy } from '../../support/dynamodb-faults';
import { threeBlocksOfTags } from '../../support/tags-fixture';

/**
 * What a `/tags` reader's lookups of tag states cost on the wire, on DynamoDB Local. Under a flood
 * of new tags (`npm run bench:scale`, 100,000 tags made through the API) one page looked up 243
 * state items at 136 bytes each, 32.3 KB of a 68.3 KB page: each came back with its partition key,
 * the same for all of them, and the stamp that only the folder's writes are conditioned on.
 */
const upstream = inject('dynamoDbEndpoint');
const direct = DynamoDBDocumentClient.from(localDynamoDbClient(upstream), {
  marshallOptions: { removeUndefinedValues: true },
});
const tableName = `tags-wire-${randomUUID()}`;
const tag = (i: number) => ({ id: `t${String(i).padStart(4, '0')}`, name: `T${i}` });
let proxy: FaultProxy;

beforeAll(async () => {
  await ensureTable(localDynamoDbClient(upstream), tableName, { stream: false });
  // 800 tags merged into blocks, with their state items; then 7 magazines deleted, whose 224 tags
  // the waiting tickets name and a reader looks up.
  await threeBlocksOfTags(() => tableAccess(direct, tableName, Date.now() + 60_000), tag);
  proxy = await startFaultProxy(upstream);
}, 120_000);

afterAll(async () => {
  await proxy?.close();
  direct.destroy();
});

describe('a /tags page that looks tags up', () => {
  it('reads each state item without the keys and attributes it does not use', async () => {
    const client = DynamoDBDocumentClient.from(localDynamoDbClient(proxy.endpoint));
    const access = tableAccess(client, tableName, Date.now() + 20_000);
    const page = await listTags(access, { start: { offset: 0 }, limit: 25, sort: 'asc' });
    expect(page.count).toBe(800 - 224);
    expect(page.items.map((item) => item.id)).toEqual(Array.from({ length: 25 }, (_, i) => tag(i).id));
    const batches = proxy.takeCalls().filter((call) => call.operation === 'BatchGetItem');
    const asked = batches.flatMap((call) => {
      const request = call.request as { RequestItems: Record<string, { Keys: { SK: { S: string } }[] }> };
      return Object.values(request.RequestItems).flatMap((table) => table.Keys.map((key) => key.SK.S));
    });
    const states = asked.filter((sk) => sk.startsWith('S#')).length;
    const blocks = asked.filter((sk) => sk.startsWith('B#')).length;
    expect({ states, blocks }).toEqual({ states: 224, blocks: 1 });
    // The calls' bytes over the lookups, the page's block and a head replica included: 144 when
    // each state item came whole (32.4 KB), 90 with only its sort key and states (20.2 KB).
    const bytes = batches.reduce((total, call) => total + call.responseBytes, 0);
    expect(bytes / states).toBeLessThan(100);
    client.destroy();
  });
});
