import type { Context, DynamoDBStreamEvent } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';

/**
 * The folder's handler tells the folder whether its lane is behind (the batch's oldest record is
 * older than two stints), so that a lane whose lists fold for a whole stint is not held to one batch a
 * stint when the next waits.
 */
const fold = vi.hoisted(() => vi.fn(async () => 0));
vi.mock('../../shared/janitor', async (actual) => ({
  ...(await actual<typeof import('../../shared/janitor')>()),
  folder: () => fold,
}));
const { handler } = await import('../../functions/fold-counts');

const ticketWritten = (secondsAgo: number) => ({
  eventName: 'INSERT' as const,
  dynamodb: {
    Keys: { PK: { S: 'G#g1#L#ALL' }, SK: { S: `#T${Date.now()}#abc` } },
    ApproximateCreationDateTime: Math.floor(Date.now() / 1000) - secondsAgo,
  },
});
const context = { getRemainingTimeInMillis: () => 60_000 } as Context;

describe('the folder handler', () => {
  it.each([
    { records: [0, 15], behind: false },
    { records: [3, 25], behind: true },
  ])(
    'tells the folder its lane is behind when a record is older than two stints ($records s: $behind)',
    async ({ records, behind }) => {
      fold.mockClear();
      await handler({ Records: records.map(ticketWritten) } as unknown as DynamoDBStreamEvent, context);
      expect(fold).toHaveBeenCalledWith([{ generation: 'g1', list: 'ALL' }], expect.any(Number), behind);
    },
  );
});
