import { type DynamoDBDocumentClient, GetCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import {
  attr,
  type CountedList,
  FIRST_GENERATION,
  headKey,
  listOfPartition,
  listPartition,
  TICKET_PREFIX,
  tagList,
} from '../../shared/db/keys';

/**
 * AN INSPECTION BEHIND THE API'S BACK, the only one the load harness makes (test/support/api-load.ts,
 * `npm run bench:scale`, test/integration/counts-under-load.test.ts): how many count items a reader
 * must still add up. A reader of a list adds up that list's tickets not yet folded (docs/data-model.md,
 * "The bound"), so the figure is the most tickets any one watched list holds. When the counting
 * design changes its layout, this is the one place to change.
 *
 * Call it with a client that does not go through the measuring proxy, so that it is not counted as
 * the API's work.
 */

const currentGeneration = async (documentClient: DynamoDBDocumentClient, tableName: string) => {
  const head = await documentClient.send(
    new GetCommand({ TableName: tableName, Key: headKey(0), ConsistentRead: true }),
  );
  const named = head.Item?.[attr.generation];
  return typeof named === 'string' ? named : FIRST_GENERATION;
};

const ticketsOf = async (documentClient: DynamoDBDocumentClient, tableName: string, partition: string) => {
  let tickets = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :ticket)',
        ExpressionAttributeValues: { ':pk': partition, ':ticket': TICKET_PREFIX },
        Select: 'COUNT',
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    tickets += page.Count ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return tickets;
};

/**
 * The most tickets that one reader must add up, over the lists watched: the collection (`ALL`),
 * `/tags` (`TAGS`) and the lists of `tagIds`, the busy ones a load writes to. One Query a list,
 * so it can be sampled every second while a load runs.
 */
export const pendingCountItems = async (
  documentClient: DynamoDBDocumentClient,
  tableName: string,
  tagIds: readonly string[] = [],
): Promise<number> => {
  const generation = await currentGeneration(documentClient, tableName);
  const lists: CountedList[] = ['ALL', 'TAGS', ...tagIds.map(tagList)];
  let worst = 0;
  for (let start = 0; start < lists.length; start += 16) {
    const counted = await Promise.all(
      lists
        .slice(start, start + 16)
        .map((list) => ticketsOf(documentClient, tableName, listPartition(generation, list))),
    );
    worst = Math.max(worst, ...counted);
  }
  return worst;
};

/**
 * Every ticket in the table, by list: a Scan, for the end of a load at CI size, where it checks
 * that no list (not only the watched ones) was left with count work the folder never did.
 */
export const ticketsByList = async (
  documentClient: DynamoDBDocumentClient,
  tableName: string,
): Promise<Map<string, number>> => {
  const byList = new Map<string, number>();
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: 'begins_with(SK, :ticket)',
        ExpressionAttributeValues: { ':ticket': TICKET_PREFIX },
        ProjectionExpression: 'PK',
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) {
      const list = listOfPartition(String(item.PK))?.list ?? String(item.PK);
      byList.set(list, (byList.get(list) ?? 0) + 1);
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return byList;
};
