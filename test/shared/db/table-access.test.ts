import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DocumentClient } from '../../../shared/db/client';
import { tableAccess } from '../../../shared/db/table-access';
import { StoreUnavailable } from '../../../shared/domain/errors';

/**
 * The request's deadline is armed once, by its first call, and bounds every later call: a call
 * that hangs after others have answered is still given up at the deadline, even by an SDK that
 * ignores the abort, and told to abort.
 */
const key = { PK: 'P', SK: 'S' };

/** A client that answers the first `answered` calls at once and never answers the others, whatever the abort says. */
const clientAnswering = (answered: number) => {
  const signals: AbortSignal[] = [];
  let calls = 0;
  const client = {
    send: (_command: unknown, options: { abortSignal: AbortSignal }) => {
      signals.push(options.abortSignal);
      calls += 1;
      return calls <= answered ? Promise.resolve({ Item: { ...key, n: calls } }) : new Promise(() => undefined);
    },
  } as unknown as DocumentClient;
  return { client, signals };
};

afterEach(() => {
  vi.useRealTimers();
});

describe('table access: one deadline per request', () => {
  it('gives up a call that hangs after others answered, at the deadline, and aborts it', async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const { client, signals } = clientAnswering(2);
    const access = tableAccess(client, 'table', Date.now() + 150);
    expect(await access.get(key)).toEqual({ ...key, n: 1 });
    await vi.advanceTimersByTimeAsync(50);
    expect(await access.get(key)).toEqual({ ...key, n: 2 });
    let outcome: unknown;
    const hung = access.get(key).then(
      () => 'answered',
      (error: unknown) => (outcome = error),
    );
    await vi.advanceTimersByTimeAsync(99);
    expect(outcome).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    await hung;
    expect(outcome).toBeInstanceOf(StoreUnavailable);
    expect((outcome as StoreUnavailable).reason).toBe('timeout');
    expect(signals).toHaveLength(3);
    expect(signals.every((signal) => signal.aborted)).toBe(true);
  });

  it('leaves no timer behind once its calls have answered: nothing of a request outlives it', async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const { client } = clientAnswering(3);
    const access = tableAccess(client, 'table', Date.now() + 8_000);
    await access.get(key);
    await Promise.all([access.get(key), access.get(key)]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('gives up every call in flight at once when the deadline passes', async () => {
    const { client } = clientAnswering(0);
    const access = tableAccess(client, 'table', Date.now() + 50);
    const outcomes = await Promise.all(
      [access.get(key), access.get(key), access.get(key)].map((p) => p.catch((e) => e)),
    );
    expect(outcomes.map((e) => (e as StoreUnavailable).reason)).toEqual(['timeout', 'timeout', 'timeout']);
  });

  it('refuses a call made after the deadline without sending it', async () => {
    const { client, signals } = clientAnswering(1);
    const access = tableAccess(client, 'table', Date.now() - 1);
    await expect(access.get(key)).rejects.toThrow(StoreUnavailable);
    expect(signals).toHaveLength(0);
  });

  it('keeps the process alive while a call is waited for, so that a script or tool sees it given up', async () => {
    // Nothing but the deadline's timer keeps this process running: the hung call must still end as a timeout.
    const module = path.resolve(import.meta.dirname, '../../../shared/db/table-access.ts');
    const script = `(async () => {
      const { tableAccess } = await import(${JSON.stringify(module)});
      const hung = { send: () => new Promise(() => {}) };
      const outcome = await tableAccess(hung, 't', Date.now() + 200).get({ PK: 'P', SK: 'S' }).then(
        () => 'answered',
        (error) => 'given up: ' + error.reason,
      );
      process.stdout.write(outcome);
    })();`;
    const tsx = path.resolve(import.meta.dirname, '../../../node_modules/.bin/tsx');
    const { stdout } = await promisify(execFile)(tsx, ['--eval', script], { timeout: 20_000 });
    expect(stdout).toBe('given up: timeout');
  });
});

describe('table access: a batch read of some attributes', () => {
  /** A client that answers a BatchGetItem with the asked keys' items, projected as DynamoDB would. */
  const projecting = (stored: readonly Record<string, unknown>[]) => {
    const inputs: Record<string, unknown>[] = [];
    const client = {
      send: async (command: { input: { RequestItems: Record<string, Record<string, unknown>> } }) => {
        const asked = command.input.RequestItems.table as {
          Keys: { PK: string; SK: string }[];
          ProjectionExpression?: string;
          ExpressionAttributeNames?: Record<string, string>;
        };
        inputs.push(asked);
        const names = asked.ProjectionExpression?.split(', ').map(
          (name) => asked.ExpressionAttributeNames?.[name] ?? '',
        );
        const found = asked.Keys.flatMap((key) => stored.filter((item) => item.PK === key.PK && item.SK === key.SK));
        return {
          Responses: {
            table: found.map((item) =>
              names ? Object.fromEntries(Object.entries(item).filter(([name]) => names.includes(name))) : item,
            ),
          },
        };
      },
    } as unknown as DocumentClient;
    return { client, inputs };
  };
  const stored = [
    { PK: 'L', SK: 'B#1', entries: 'e', stamp: 3 },
    { PK: 'L', SK: 'S#a', states: 's', stamp: 4 },
    { PK: 'HEAD#01', SK: 'HEAD', generation: '0' },
    { PK: 'M#x', SK: 'M', title: 'X' },
    { PK: 'M#y', SK: 'M', title: 'Y' },
  ];

  it('asks for no partition key when the sort keys tell the items apart, and finds each by its key', async () => {
    const { client, inputs } = projecting(stored);
    const keys = [
      { PK: 'HEAD#01', SK: 'HEAD' },
      { PK: 'L', SK: 'B#1' },
      { PK: 'L', SK: 'S#a' },
      { PK: 'L', SK: 'S#missing' },
    ];
    const found = await tableAccess(client, 'table', Date.now() + 5_000).getMany(keys, [
      'entries',
      'states',
      'generation',
    ]);
    expect(Object.values(inputs[0]?.ExpressionAttributeNames ?? {})).toEqual(['SK', 'entries', 'states', 'generation']);
    expect(found.get({ PK: 'L', SK: 'B#1' })).toEqual({ PK: 'L', SK: 'B#1', entries: 'e' });
    expect(found.get({ PK: 'L', SK: 'S#a' })).toEqual({ PK: 'L', SK: 'S#a', states: 's' });
    expect(found.get({ PK: 'HEAD#01', SK: 'HEAD' })).toEqual({ PK: 'HEAD#01', SK: 'HEAD', generation: '0' });
    expect(found.has({ PK: 'L', SK: 'S#missing' })).toBe(false);
  });

  it('asks for the partition key too when two keys share a sort key', async () => {
    const { client, inputs } = projecting(stored);
    const found = await tableAccess(client, 'table', Date.now() + 5_000).getMany(
      [
        { PK: 'M#x', SK: 'M' },
        { PK: 'M#y', SK: 'M' },
      ],
      ['title'],
    );
    expect(Object.values(inputs[0]?.ExpressionAttributeNames ?? {})).toEqual(['PK', 'SK', 'title']);
    expect(found.get({ PK: 'M#x', SK: 'M' })?.title).toBe('X');
    expect(found.get({ PK: 'M#y', SK: 'M' })?.title).toBe('Y');
  });
});

describe('table access: a batch read that tells keys from attributes', () => {
  it('asks for neither key when the attributes tell them, and finds each item under its key', async () => {
    const inputs: Record<string, unknown>[] = [];
    const client = {
      send: async (command: { input: { RequestItems: Record<string, Record<string, unknown>> } }) => {
        inputs.push(command.input.RequestItems.table as Record<string, unknown>);
        // As DynamoDB answers the projection: no keys; and an item whose id is not the one asked.
        return {
          Responses: { table: [{ id: 'x', title: 'X' }, { id: 'y', title: 'Y' }, { id: 'z' }, { title: '?' }] },
        };
      },
    } as unknown as DocumentClient;
    const keyOf = (item: Record<string, unknown>) =>
      typeof item.id === 'string' ? { PK: `M#${item.id}`, SK: 'M' } : undefined;
    const found = await tableAccess(client, 'table', Date.now() + 5_000).getMany(
      [
        { PK: 'M#x', SK: 'M' },
        { PK: 'M#y', SK: 'M' },
      ],
      ['id', 'title'],
      keyOf,
    );
    expect(Object.values((inputs[0]?.ExpressionAttributeNames ?? {}) as Record<string, string>)).toEqual([
      'id',
      'title',
    ]);
    expect(found.get({ PK: 'M#x', SK: 'M' })).toEqual({ PK: 'M#x', SK: 'M', id: 'x', title: 'X' });
    expect(found.get({ PK: 'M#y', SK: 'M' })?.title).toBe('Y');
    expect([...found.values()]).toHaveLength(2);
  });
});
