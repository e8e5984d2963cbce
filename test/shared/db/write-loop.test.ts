import { describe, expect, it, vi } from 'vitest';
import { cancelled, writeLoop } from '../../../shared/db/generation';
import type { TableAccess } from '../../../shared/db/table-access';
import { ConditionsFailed } from '../../../shared/db/table-writes';
import { StoreUnavailable } from '../../../shared/domain/errors';

/**
 * The one write loop of the single writes, on a table access whose transactions fail as told: what
 * it sends again, when it looks whether a failed write was made, and what it gives up with.
 */

const accessFailing = (failures: unknown[], remaining = 10_000) => {
  // Each call the access sends is a transaction: the head read after a seal is a `get`.
  const transact = vi.fn(async () => {
    const failure = failures.shift();
    if (failure) throw failure;
    return {};
  });
  // The head read after a seal finds no head item: the first generation.
  const access = {
    send: transact,
    remaining: () => remaining,
    get: async () => undefined,
  } as unknown as TableAccess;
  return { access, transact };
};

const write = (made: (error: unknown) => Promise<boolean | 'unknown'> = async () => false) => ({
  items: { guard: { ConditionCheck: { TableName: 't', Key: {}, ConditionExpression: 'x' } } },
  result: 'written',
  made,
});

describe('writeLoop', () => {
  it('builds the write again from a fresh read when a bulk write sealed its generation, and does not ask whether it was made', async () => {
    const { access, transact } = accessFailing([new ConditionsFailed(['guard'])]);
    const made = vi.fn(async () => true);
    const attempts: number[] = [];
    const result = await writeLoop(
      access,
      async (attempt) => {
        attempts.push(attempt);
        return write(made);
      },
      { retry: () => false },
    );
    expect(result).toBe('written');
    expect(attempts).toEqual([0, 1]);
    expect(transact).toHaveBeenCalledTimes(2);
    expect(made).not.toHaveBeenCalled();
  });

  it('answers with the result when a write whose answer was lost turns out to have been made', async () => {
    const lost = new Error('socket hang up');
    const { access, transact } = accessFailing([lost]);
    const made = vi.fn(async () => true);
    const retry = vi.fn(() => true);
    expect(await writeLoop(access, async () => write(made), { retry })).toBe('written');
    expect(made).toHaveBeenCalledWith(lost);
    expect(retry).not.toHaveBeenCalled();
    expect(transact).toHaveBeenCalledTimes(1);
  });

  it("lets the write's retry rule decide a failure that hides no write: again, or the error thrown", async () => {
    const lostRace = new ConditionsFailed(['magazine']);
    const again = accessFailing([lostRace]);
    expect(await writeLoop(again.access, async () => write(), { retry: (error) => error === lostRace })).toBe(
      'written',
    );
    expect(again.transact).toHaveBeenCalledTimes(2);

    const refused = accessFailing([lostRace]);
    await expect(writeLoop(refused.access, async () => write(), { retry: () => false })).rejects.toBe(lostRace);
    expect(refused.transact).toHaveBeenCalledTimes(1);
  });

  it('sends nothing for a write that is done without a transaction, and builds anew when told to', async () => {
    const { access, transact } = accessFailing([]);
    const built = ['again', { done: 'unchanged' }] as const;
    expect(await writeLoop(access, async (attempt) => built[attempt]!, { retry: () => false })).toBe('unchanged');
    expect(transact).not.toHaveBeenCalled();
  });

  /** A transaction cancelled as DynamoDB cancels one that met another in flight, after `attempts` sends of the SDK. */
  const conflict = (attempts: number) =>
    new StoreUnavailable('conflict', 1, {
      cause: Object.assign(new Error('cancelled'), {
        name: 'TransactionCanceledException',
        CancellationReasons: [{ Code: 'TransactionConflict' }],
        $metadata: { attempts },
      }),
    });

  it('takes a transaction sent once and cancelled for one that wrote nothing, even when its look cannot tell', async () => {
    const lostRace = new ConditionsFailed(['magazine']);
    const { access, transact } = accessFailing([conflict(1), lostRace]);
    const made = vi.fn(async (error: unknown) => (cancelled(error) ? false : 'unknown'));
    await expect(writeLoop(access, async () => write(made), { retry: () => false })).rejects.toBe(lostRace);
    expect(transact).toHaveBeenCalledTimes(2);
    expect(made).toHaveBeenCalledWith(lostRace);
  });

  it('does not, once the SDK sent it more than once: an earlier send may have landed, its answer lost (503 unconfirmed)', async () => {
    for (const failures of [[conflict(2)], [conflict(3), new ConditionsFailed(['magazine'])]]) {
      const last = failures.at(-1);
      const { access } = accessFailing([...failures]);
      const seen: unknown[] = [];
      const made = vi.fn(async (error: unknown) => {
        seen.push(error);
        return cancelled(error) ? false : 'unknown';
      });
      const retry = vi.fn(() => true);
      const failure = await writeLoop(access, async () => write(made), {
        retry,
        retryConflicts: failures.length > 1,
      }).catch((error: unknown) => error);
      expect(failure).toMatchObject({ reason: 'unconfirmed' });
      expect(seen.length === 1 && seen[0] === last).toBe(true);
      expect(retry).not.toHaveBeenCalled();
    }
  });

  it('gives up with a 503 when the generation is sealed and the request has no time left to wait', async () => {
    const { access } = accessFailing([new ConditionsFailed(['guard'])], 1_000);
    await expect(writeLoop(access, async () => write(), { retry: () => false })).rejects.toBeInstanceOf(
      StoreUnavailable,
    );
  });
});
