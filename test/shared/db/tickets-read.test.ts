import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { localDynamoDbClient } from '../../../local/dynamodb-local';
import { ensureTable } from '../../../local/ensure-table';
import { readGeneration } from '../../../shared/db/generation';
import { readList } from '../../../shared/db/lists';
import { listMagazines } from '../../../shared/db/magazine-list';
import { createMagazine } from '../../../shared/db/magazines';
import { tableAccess } from '../../../shared/db/table-access';
import { listTags } from '../../../shared/db/tags';
import { emfEntry, startRequestCounts } from '../../../shared/metrics';

/**
 * The `tickets-read` alarm's figure: what a request's list reads added up of the count work not
 * folded yet. Here no folder runs (a table without a stream), so every write's tickets wait, as
 * they would behind a stopped folder.
 */
const client = localDynamoDbClient(inject('dynamoDbEndpoint'));
const tableName = `tickets-read-${randomUUID()}`;
const documents = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
const access = () => tableAccess(documents, tableName, Date.now() + 20_000);
const firstPage = { start: { offset: 0 }, limit: 25, sort: 'asc' } as const;

beforeAll(async () => {
  await ensureTable(client, tableName, { stream: false });
  for (let i = 0; i < 3; i++)
    await createMagazine(access(), {
      id: `m${i}`,
      title: `M ${i}`,
      tags: [{ id: 'x', name: 'X' }, ...(i === 0 ? [{ id: 'y', name: 'Y' }] : [])],
      created: 1_600_000_000 + i,
    });
});

describe('a list read notes the tickets it added up', () => {
  it.each([
    ['the collection', {}, 3],
    ['a tag', { tag: 'x' }, 3],
    ['a tag of one magazine', { tag: 'y' }, 1],
    ['a tag no magazine has', { tag: 'z' }, 0],
  ])('%s: one per write that changed the list and is not folded yet', async (_, filter, tickets) => {
    const counts = startRequestCounts();
    const page = await listMagazines(access(), filter, firstPage);
    expect(page.count).toBe(tickets);
    expect(counts.get('TicketsRead') ?? 0).toBe(tickets);
  });

  it('/tags: the tickets of TAGS, one per write that changed a tag', async () => {
    const counts = startRequestCounts();
    const page = await listTags(access(), firstPage);
    expect(page.items.map((tag) => [tag.id, tag.magazineCount])).toEqual([
      ['x', 3],
      ['y', 1],
    ]);
    expect(counts.get('TicketsRead')).toBe(3);
  });

  it('notes the most that one read added up, not the sum: reading lists again adds nothing', async () => {
    const counts = startRequestCounts();
    await listMagazines(access(), {}, firstPage);
    await listMagazines(access(), { tag: 'y' }, firstPage);
    await listMagazines(access(), {}, firstPage);
    expect(counts.get('TicketsRead')).toBe(3);
  });

  it("leaves out a sweep's read of a replaced generation, whose tickets no fold takes", async () => {
    const counts = startRequestCounts();
    const snapshot = await readList(access(), await readGeneration(access()), 'ALL', { garbage: true });
    expect(snapshot.tickets).toHaveLength(3);
    expect(counts.has('TicketsRead')).toBe(false);
  });

  it('puts the figure in the metrics line, for the whole stage, where the alarm takes its maximum', async () => {
    const counts = startRequestCounts();
    await listMagazines(access(), {}, firstPage);
    const line = emfEntry({ stage: 'prod', operation: 'listMagazines', status: 200, latencyMs: 5, counts });
    expect(line).toMatchObject({ Stage: 'prod', TicketsRead: 3 });
    expect((line._aws as { CloudWatchMetrics: unknown[] }).CloudWatchMetrics).toContainEqual({
      Namespace: 'MagazineApi',
      Dimensions: [['Stage']],
      Metrics: [{ Name: 'TicketsRead', Unit: 'Count' }],
    });
  });
});
