/**
 * Every DynamoDB call a process sends to DynamoDB Local, metered on the wire: the read and write
 * units it consumed, and how long it waited for the answer. For `npm run bench`'s cost model
 * (bench/cost/).
 *
 * - Read units are DynamoDB Local's own `ConsumedCapacity` (`ReturnConsumedCapacity: TOTAL` is
 *   added to each request, and taken out of the answer again, so the handler sees what it asked
 *   for): 1 per 4 KB of each item a strongly consistent get reads, of all a query reads.
 * - Write units are counted as DynamoDB bills them, since DynamoDB Local reports 2 units for a
 *   whole TransactWriteItems (test/support/fault-answers.ts): each item written, deleted or
 *   checked costs 1 unit per KB (rounded up) of the larger of its size before and after the
 *   call, twice in a transaction. Its size before is read just before the call is sent, its
 *   size after just after the answer came, both straight from DynamoDB Local and neither counted
 *   nor timed. DynamoDB Local's own figure is kept beside.
 * - Waiting is from the moment the request is sent to the moment its whole answer came.
 *
 * Only calls to DynamoDB (`DynamoDB_20120810.*`) are metered; the stream's reads and the bench's
 * own reads (`x-bench-direct`) pass untouched.
 */
import http from 'node:http';
import { syncBuiltinESMExports } from 'node:module';
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import { BatchGetItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { capacityOf, withCapacity, without } from '../../test/support/fault-answers';
import type { JsonObject } from '../../test/support/fault-types';
import type { WireCall } from './answers';
import { itemSize, type WriteTarget, writeTargets, writeUnits } from './write-cost';

export interface MeteredCall extends WireCall {
  /** What the call was made for, as the process named it when the call was sent (`init`, `request`, a stream task). */
  readonly phase: string;
  readonly readUnits: number;
  /** DynamoDB Local's figure (a floor for transactions). */
  readonly reportedWriteUnits: number;
  /** DynamoDB's bill, as above. */
  readonly writeUnits: number;
  /** Milliseconds since the process's time origin. */
  readonly sentAt: number;
  readonly answeredAt: number;
  /** When the bench's own reads of the call's item sizes ran, before it was sent and after its answer: [from, to]. */
  readonly sizing: readonly (readonly [number, number])[];
}

/** The header of the bench's own calls, which are neither metered nor timed. */
export const DIRECT_HEADER = 'x-bench-direct';

/** Sizes of items by key, read straight from DynamoDB Local; 0 for an item that is not there. */
export type SizeReader = (targets: readonly WriteTarget[]) => Promise<number[]>;

/** Reads sizes through `client`, whose calls it marks as the bench's own (so they pass the meter). */
export const sizeReader = (client: DynamoDBClient): SizeReader => {
  client.middlewareStack.add(
    (next) => (args) => {
      (args.request as { headers: Record<string, string> }).headers[DIRECT_HEADER] = '1';
      return next(args);
    },
    { step: 'build' },
  );
  const keyText = (table: string, key: JsonObject) => `${table}|${JSON.stringify(key.PK)}|${JSON.stringify(key.SK)}`;
  return async (targets) => {
    const sizes = new Map<string, number>();
    const unique = [...new Map(targets.map((t) => [keyText(t.table, t.key), t])).values()];
    for (let at = 0; at < unique.length; at += 100) {
      let pending: Record<string, { Keys: JsonObject[]; ConsistentRead: boolean }> = {};
      for (const t of unique.slice(at, at + 100)) {
        const request = pending[t.table] ?? { Keys: [], ConsistentRead: true };
        request.Keys.push(t.key);
        pending[t.table] = request;
      }
      while (Object.keys(pending).length > 0) {
        const got = await client.send(new BatchGetItemCommand({ RequestItems: pending as never }));
        for (const [table, items] of Object.entries(got.Responses ?? {}))
          for (const item of items as unknown as JsonObject[]) sizes.set(keyText(table, item), itemSize(item));
        pending = (got.UnprocessedKeys ?? {}) as unknown as typeof pending;
      }
    }
    return targets.map((t) => sizes.get(keyText(t.table, t.key)) ?? 0);
  };
};

export interface Meter {
  /** Names the calls sent from now on. */
  phase(name: string): void;
  /** Every metered call so far, in the order they were sent; each filled in once its answer came. */
  readonly calls: readonly MeteredCall[];
  /** Puts `http.request` back. */
  stop(): void;
}

/**
 * Replaces `http.request` with the meter; `sizes` reads items as they are (`sizeReader`). The SDK
 * takes `http.request` at its first call and keeps it, so the meter goes in before any call.
 */
export const meterSockets = (sizes: SizeReader): Meter => {
  const original = http.request;
  const calls: MeteredCall[] = [];
  let phase = 'init';
  const metered = (options: http.RequestOptions, callback?: (response: http.IncomingMessage) => void) => {
    const headers = (options.headers ?? {}) as Record<string, string>;
    const target = String(headers['x-amz-target'] ?? headers['X-Amz-Target'] ?? '');
    if (headers[DIRECT_HEADER] || !target.startsWith('DynamoDB_20120810.')) return original(options, callback);
    const operation = target.slice(target.indexOf('.') + 1);
    const chunks: Buffer[] = [];
    const request = original(options, (response) => {
      const body: Buffer[] = [];
      response.on('data', (chunk: Buffer) => body.push(chunk));
      response.once('end', () => void answered(response, Buffer.concat(body).toString('utf8')));
    });
    const call = {
      operation,
      phase,
      request: '',
      status: 0,
      response: '',
      sentAt: 0,
      answeredAt: 0,
      readUnits: 0,
      reportedWriteUnits: 0,
      writeUnits: 0,
      sizing: [] as [number, number][],
    };
    const sized = async () => {
      const started = performance.now();
      const read = await sizes(targets);
      call.sizing.push([started, performance.now()]);
      return read;
    };
    let targets: WriteTarget[] = [];
    let before: number[] = [];
    let added = false;
    const answered = async (response: http.IncomingMessage, text: string) => {
      call.answeredAt = performance.now();
      let body = text;
      const parsed = JSON.parse(text || '{}') as JsonObject;
      const { read, write } = capacityOf(operation, parsed);
      call.readUnits = read;
      call.reportedWriteUnits = write;
      if (added && 'ConsumedCapacity' in parsed) body = JSON.stringify(without(parsed, 'ConsumedCapacity'));
      if (response.statusCode === 200 && targets.length > 0) {
        const after = await sized();
        call.writeUnits = targets.reduce((total, t, i) => {
          const bytes = Math.max(before[i] ?? 0, after[i] ?? 0, t.put ? itemSize(t.put) : 0);
          return total + writeUnits(bytes, t.transactional);
        }, 0);
      }
      Object.assign(call, { status: response.statusCode ?? 0, response: body });
      const payload = Buffer.from(body);
      const replay = new Readable({ read() {} });
      replay.push(payload);
      replay.push(null);
      Object.assign(replay, {
        statusCode: response.statusCode,
        statusMessage: response.statusMessage,
        headers: {
          ...response.headers,
          'content-length': String(payload.length),
          ...(response.headers['x-amz-crc32'] !== undefined && { 'x-amz-crc32': String(crc32(payload)) }),
        },
        complete: true,
      });
      callback?.(replay as unknown as http.IncomingMessage);
    };
    const send = async () => {
      call.request = Buffer.concat(chunks).toString('utf8');
      let sent = call.request;
      const parsed = JSON.parse(call.request || '{}') as JsonObject;
      const asked = withCapacity(operation, parsed);
      added = asked.added;
      if (added) sent = JSON.stringify(asked.request);
      targets = writeTargets(operation, parsed);
      if (targets.length > 0) before = await sized();
      request.setHeader('content-length', Buffer.byteLength(sent));
      calls.push(call);
      call.sentAt = performance.now();
      end(sent);
    };
    const end = request.end.bind(request) as (chunk?: string) => http.ClientRequest;
    // The body is held back until the whole of it is known: it is sent with the capacity asked for.
    Object.assign(request, {
      write: (chunk: Buffer | string) => {
        chunks.push(Buffer.from(chunk));
        return true;
      },
      end: (chunk?: Buffer | string | (() => void)) => {
        if (chunk !== undefined && typeof chunk !== 'function') chunks.push(Buffer.from(chunk));
        void send().catch((error: unknown) => request.destroy(error as Error));
        return request;
      },
    });
    return request;
  };
  Object.assign(http, { request: metered });
  syncBuiltinESMExports();
  return {
    phase: (name) => {
      phase = name;
    },
    calls,
    stop: () => {
      Object.assign(http, { request: original });
      syncBuiltinESMExports();
    },
  };
};
