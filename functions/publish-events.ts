import type { Context, DynamoDBStreamEvent } from 'aws-lambda';
import { eventPublisher } from '../shared/events/publish';
import { logger } from '../shared/logger';
import { countEventsPublished } from '../shared/metrics';

const publish = eventPublisher();

/**
 * The change events (see `streamTasks`): a batch of the table's stream, its committed changes put
 * on the stack's event bus in order. A failure throws, so the stream gives the batch again (the
 * events' ids stay the same), and after its retries sends it to the failure queue.
 */
export const handler = async (event: DynamoDBStreamEvent, context: Context) => {
  const events = await publish(event.Records, Date.now() + context.getRemainingTimeInMillis() - 2_000);
  countEventsPublished(events.length);
  logger.info('Events published', { records: event.Records.length, events: events.length });
  return { events: events.length };
};
