import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { localDynamoDbClient } from '../../../local/dynamodb-local';
import { ensureTable } from '../../../local/ensure-table';
import { magazineKey } from '../../../shared/db/keys';
import { listMagazines } from '../../../shared/db/magazine-list';
import { createMagazine } from '../../../shared/db/magazines';
import { tableAccess } from '../../../shared/db/table-access';
import { StoreUnavailable } from '../../../shared/domain/errors';
import { type FaultProxy, startFaultProxy } from '../../support/dynamodb-faults';
import { uuidOf } from '../../support/load-data';

/**
 * What a page's magazines cost on the wire, on DynamoDB Local. With the ids the API makes (UUIDs),
 * `npm run bench:scale -- --uuid-ids` read 100 magazines of 380 bytes for a page of 100: 37.1 KB
 * of a 73.5 KB page. Each came back with its partition key (its id again, in 56 bytes) and its
 * sort key, which only matched it with what was asked; its id tells that.
 */
const upstream = inject('dynamoDbEndpoint');
const direct = DynamoDBDocumentClient.from(localDynamoDbClient(upstream), {
  marshallOptions: { removeUndefinedValues: true },
});
const tableName = `magazine-wire-${randomUUID()}`;
// Made a second apart in this order, which is the list's order.
const ids = Array.from({ length: 30 }, (_, i) => uuidOf(`wire-${i}`));
let proxy: FaultProxy;

beforeAll(async () => {
  await ensureTable(localDynamoDbClient(upstream), tableName, { stream: false });
  const writes = () => tableAccess(direct, tableName, Date.now() + 20_000);
  await Promise.all(
    ids.map((id, i) =>
      createMagazine(writes(), {
        id,
        title: `Magazine ${i}`,
        tags: [{ id: 'topic-00', name: 'Topic 00' }],
        created: 1_700_000_000 + i,
      }),
    ),
  );
  proxy = await startFaultProxy(upstream);
}, 60_000);

afterAll(async () => {
  await proxy?.close();
  direct.destroy();
});

describe('a page of magazines with the ids the API makes', () => {
  it('reads each magazine without the keys its id tells', async () => {
    const client = DynamoDBDocumentClient.from(localDynamoDbClient(proxy.endpoint));
    const page = await listMagazines(
      tableAccess(client, tableName, Date.now() + 20_000),
      {},
      { start: { offset: 0 }, limit: 25, sort: 'asc' },
    );
    expect(page.count).toBe(30);
    expect(page.items.map((magazine) => magazine.id)).toEqual(ids.slice(0, 25));
    expect(page.items[3]).toMatchObject({ title: 'Magazine 3', tags: [{ id: 'topic-00', name: 'Topic 00' }] });
    const batches = proxy.takeCalls().filter((call) => call.operation === 'BatchGetItem');
    // The last call asks for the magazines (and a head replica): 322 bytes a magazine with both
    // keys, 242 with neither.
    const magazines = batches.at(-1);
    expect(magazines?.responseBytes ?? 0).toBeGreaterThan(0);
    expect((magazines?.responseBytes ?? 0) / 25).toBeLessThan(280);
    client.destroy();
  });

  it('finds a magazine item whose id is gone corrupt (a defect, 500), not a list that moved (503)', async () => {
    await direct.send(
      new UpdateCommand({ TableName: tableName, Key: magazineKey('0', ids[5] ?? ''), UpdateExpression: 'REMOVE id' }),
    );
    const client = DynamoDBDocumentClient.from(localDynamoDbClient(proxy.endpoint));
    const read = listMagazines(
      tableAccess(client, tableName, Date.now() + 20_000),
      {},
      {
        start: { offset: 0 },
        limit: 25,
        sort: 'asc',
      },
    );
    const error = await read.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(StoreUnavailable);
    expect(String(error)).toMatch(/id is not a string/);
    client.destroy();
  });
});
