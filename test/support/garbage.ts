import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { sweep } from '../../shared/db/cleanup';
import { tableAccess } from '../../shared/db/table-access';

/**
 * Runs what the janitor runs: deletes the garbage deletions and bulk writes noted (the articles of
 * deleted magazines, replaced generations), with time to finish. A replaced generation's guards
 * stay a while longer by design; everything readers ever saw goes.
 */
export const sweepGarbage = async (documentClient: DynamoDBDocumentClient, tableName: string) => {
  const access = tableAccess(documentClient, tableName, Date.now() + 60_000);
  for (let round = 0; round < 3; round++) await sweep(access, 50_000);
};
