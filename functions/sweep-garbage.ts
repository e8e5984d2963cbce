import type { Context, ScheduledEvent } from 'aws-lambda';
import { janitor } from '../shared/janitor';
import { logger } from '../shared/logger';

const sweepUntil = janitor();

/** Leaves time to write the note of what was done before Lambda stops the function. */
const MARGIN_MS = 5_000;

/** The janitor (see `scheduledTasks`): clears garbage until shortly before its timeout, and says how much. */
export const handler = async (_event: ScheduledEvent, context: Context) => {
  const swept = await sweepUntil(Date.now() + context.getRemainingTimeInMillis() - MARGIN_MS);
  logger.info('Garbage swept', { ...swept });
  return swept;
};
