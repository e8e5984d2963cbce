import { describe, expect, it } from 'vitest';
import type { BusEntry } from '../../../shared/events/event-bus';
import { putInOrder } from '../../../shared/events/publish';

const entries = (n: number): BusEntry[] =>
  Array.from({ length: n }, (_, index) => ({
    Source: 'magazine-api',
    DetailType: 'MagazineCreated',
    Detail: `{"n":${index}}`,
  }));
const noPause = async () => {};

describe('putInOrder', () => {
  it('puts at most ten entries a call, in order', async () => {
    const calls: string[][] = [];
    await putInOrder(async (sent) => {
      calls.push(sent.map((entry) => entry.Detail));
      return { failed: [] };
    }, entries(23));
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
    await expect(putInOrder(async () => ({ failed: [0] }), entries(1), noPause)).rejects.toThrow(/refused 1 entries/);
  });
});
