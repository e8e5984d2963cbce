/**
 * The one table of the API, described once: the CDK stack, the local server and the tests all
 * build it from this definition. Every access pattern is a key or a key range of the table itself
 * (see keys.ts), so every read can be strongly consistent and there is no index to keep up.
 */
export const tableDefinition = {
  partitionKey: 'PK',
  sortKey: 'SK',
  /** Items that expire: idempotency keys, finished bulk records. */
  timeToLiveAttribute: 'expiresAt',
  /** The table's record of changes: the folder reads the tickets writes leave from it. */
  streamView: 'NEW_AND_OLD_IMAGES',
} as const;

/**
 * The CreateTable input for DynamoDB Local (on-demand billing, as in AWS). `stream: false` leaves
 * out the stream, for test tables no folder reads: DynamoDB Local keeps every table's stream records
 * in its one database, and a whole test run's of them slowed every later test.
 */
export const createTableInput = (tableName: string, { stream = true }: { readonly stream?: boolean } = {}) => ({
  TableName: tableName,
  BillingMode: 'PAY_PER_REQUEST' as const,
  AttributeDefinitions: [
    { AttributeName: tableDefinition.partitionKey, AttributeType: 'S' as const },
    { AttributeName: tableDefinition.sortKey, AttributeType: 'S' as const },
  ],
  KeySchema: [
    { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' as const },
    { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' as const },
  ],
  ...(stream && { StreamSpecification: { StreamEnabled: true, StreamViewType: tableDefinition.streamView } }),
});
