/**
 * The one table of the API, described once: the CDK stack, the local server and the tests all
 * build it from this definition.
 */
export const tableDefinition = {
  partitionKey: 'PK',
  sortKey: 'SK',
  /** Lists in creation order: all magazines, and the articles of one magazine. */
  globalSecondaryIndexes: [{ indexName: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK' }],
  /** Reserved for items that expire (none yet); declared so that turning it on needs no table change. */
  timeToLiveAttribute: 'expiresAt',
} as const;

/** The CreateTable input for DynamoDB Local (on-demand billing, as in AWS). */
export const createTableInput = (tableName: string) => ({
  TableName: tableName,
  BillingMode: 'PAY_PER_REQUEST' as const,
  AttributeDefinitions: [
    { AttributeName: tableDefinition.partitionKey, AttributeType: 'S' as const },
    { AttributeName: tableDefinition.sortKey, AttributeType: 'S' as const },
    ...tableDefinition.globalSecondaryIndexes.flatMap((index) => [
      { AttributeName: index.partitionKey, AttributeType: 'S' as const },
      { AttributeName: index.sortKey, AttributeType: 'S' as const },
    ]),
  ],
  KeySchema: [
    { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' as const },
    { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' as const },
  ],
  GlobalSecondaryIndexes: tableDefinition.globalSecondaryIndexes.map((index) => ({
    IndexName: index.indexName,
    KeySchema: [
      { AttributeName: index.partitionKey, KeyType: 'HASH' as const },
      { AttributeName: index.sortKey, KeyType: 'RANGE' as const },
    ],
    Projection: { ProjectionType: 'ALL' as const },
  })),
});
