import { type DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { attr, countsPartition, FIRST_GENERATION, headKey, TICKET_PREFIX } from '../../shared/db/keys';

/**
 * AN INSPECTION BEHIND THE API'S BACK, the only one the load harness makes (test/support/api-load.ts,
 * `npm run bench:scale`, test/integration/counts-under-load.test.ts): how many count items a reader
 * must still add up, today the tickets of the current generation not yet folded into its aggregate.
 * Everything else those measure goes through HTTP and the DynamoDB proxy. When the counting design
 * changes its layout, this is the one place to change.
 *
 * Call it with a client that does not go through the measuring proxy, so that it is not counted as
 * the API's work. It reads one head replica for the generation (as `readGeneration` does) and counts
 * the partition's ticket items (keys only, strongly consistent).
 */
export const pendingCountItems = async (documentClient: DynamoDBDocumentClient, tableName: string): Promise<number> => {
  const head = await documentClient.send(
    new GetCommand({ TableName: tableName, Key: headKey(0), ConsistentRead: true }),
  );
  const named = head.Item?.[attr.generation];
  const generation = typeof named === 'string' ? named : FIRST_GENERATION;
  let pending = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :ticket)',
        ExpressionAttributeValues: { ':pk': countsPartition(generation), ':ticket': TICKET_PREFIX },
        Select: 'COUNT',
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    pending += page.Count ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return pending;
};
