import type { Context, DynamoDBStreamEvent } from 'aws-lambda';
import { folder, listsOfNewItems } from '../shared/janitor';
import { logger } from '../shared/logger';

const foldUntil = folder();

/** Leaves time to write the note of what was done before Lambda stops the function. */
const MARGIN_MS = 5_000;

/**
 * The folder (see `streamTasks`): the stream names the lists that writes left tickets in; each is
 * folded. A fold that fails leaves its tickets where they are (readers still count them), and the
 * stream delivers the batch again.
 */
export const handler = async (event: DynamoDBStreamEvent, context: Context) => {
  const lists = listsOfNewItems(
    event.Records.flatMap((record) => {
      const keys = record.dynamodb?.Keys;
      const PK = keys?.PK?.S;
      const SK = keys?.SK?.S;
      return record.eventName === 'INSERT' && PK !== undefined && SK !== undefined ? [{ PK, SK }] : [];
    }),
  );
  const folded = await foldUntil(lists, Date.now() + context.getRemainingTimeInMillis() - MARGIN_MS);
  logger.info('Counts folded', { lists: lists.length, folded });
  return { lists: lists.length, folded };
};
