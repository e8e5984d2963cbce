import type { Context, DynamoDBStreamEvent } from 'aws-lambda';
import { folder, listsOfNewItems } from '../shared/janitor';
import { logger } from '../shared/logger';
import { FLOW_STINT_MS } from '../shared/timing';

const foldUntil = folder();

/**
 * The batch's oldest record is older than two stints: its lane is behind (a batch waits while the
 * last one folds for up to a stint), and the next batch waits too. A lane whose lists fold for a
 * whole stint would otherwise handle one batch a stint at most.
 */
const behind = (event: DynamoDBStreamEvent) =>
  event.Records.some(
    (record) =>
      Date.now() / 1000 - (record.dynamodb?.ApproximateCreationDateTime ?? Infinity) > (2 * FLOW_STINT_MS) / 1000,
  );

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
  const folded = await foldUntil(lists, Date.now() + context.getRemainingTimeInMillis() - MARGIN_MS, behind(event));
  logger.info('Counts folded', { lists: lists.length, folded });
  return { lists: lists.length, folded };
};
