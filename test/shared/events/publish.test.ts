import { describe, expect, it } from 'vitest';
import { type BusEntry, eventBus } from '../../../shared/events/event-bus';
import { putInOrder } from '../../../shared/events/publish';
import { CALL_ATTEMPT_MS } from '../../../shared/timing';

const entries = (n: number): BusEntry[] =>
  Array.from({ length: n }, (_, index) => ({
    Source: 'magazine-api',
    DetailType: 'MagazineCreated',
    Detail: `{"n":${index}}`,
  }));
const noPause = async () => {};
/** A deadline far enough away not to matter. */
const later = () => Date.now() + 60_000;

describe('putInOrder', () => {
  it('puts at most ten entries a call, in order', async () => {
    const calls: string[][] = [];
    await putInOrder(
      async (sent) => {
        calls.push(sent.map((entry) => entry.Detail));
        return { failed: [] };
      },
      entries(23),
      later(),
    );
    expect(calls.map((call) => call.length)).toEqual([10, 10, 3]);
    expect(calls.flat()).toEqual(entries(23).map((entry) => entry.Detail));
  });

  it('sends a refused entry again with every entry after it, so none overtakes it', async () => {
    const calls: string[][] = [];
    let refuse = true;
    await putInOrder(
      async (sent) => {
        calls.push(sent.map((entry) => entry.Detail));
        if (refuse) {
          refuse = false;
          return { failed: [2, 5] };
        }
        return { failed: [] };
      },
      entries(6),
      later(),
      noPause,
    );
    expect(calls).toEqual([
      entries(6).map((e) => e.Detail),
      entries(6)
        .slice(2)
        .map((e) => e.Detail),
    ]);
  });

  it('throws when an entry is refused every time, so that the stream gives the batch again', async () => {
    await expect(putInOrder(async () => ({ failed: [0] }), entries(1), later(), noPause)).rejects.toThrow(
      /refused 1 entries/,
    );
  });
});

/** EventBridge as a hung connection: a fetch that never answers, and gives up only when its signal says so. */
const neverAnswers: typeof fetch = (_url, init) =>
  new Promise((_, reject) => {
    init?.signal?.addEventListener('abort', () => reject(init.signal?.reason));
  });
const hungBus = () => eventBus({ busName: 'magazine-api-test', region: 'eu-west-1' }, neverAnswers);

describe('putInOrder, when the bus does not answer', () => {
  it('gives up at the deadline the handler passes, so the stream gives the batch again', async () => {
    const started = Date.now();
    await expect(putInOrder(hungBus(), entries(3), started + 200)).rejects.toThrow(/did not answer within \d+ ms/);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('gives up on one call after a call attempt, however far the deadline', async () => {
    const started = Date.now();
    await expect(putInOrder(hungBus(), entries(3), later())).rejects.toThrow(
      new RegExp(`did not answer within ${CALL_ATTEMPT_MS} ms`),
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(CALL_ATTEMPT_MS - 50);
    expect(Date.now() - started).toBeLessThan(CALL_ATTEMPT_MS + 1_000);
  });

  it('stops sending refused entries again once the next try would end past the deadline', async () => {
    let calls = 0;
    const refuses = async () => {
      calls += 1;
      return { failed: [0] };
    };
    await expect(putInOrder(refuses, entries(1), Date.now() + 150)).rejects.toThrow(/not put by the deadline/);
    expect(calls).toBeLessThan(5);
  });
});
