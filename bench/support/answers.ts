/**
 * DynamoDB answered in process, for the benchmarks: what a handler's calls got from DynamoDB
 * Local (recorded once, on the wire), given back again without a network, in either of two
 * places of the SDK:
 *
 * - `[sdk]`: at the bottom. `node:http`/`node:https` `request` are replaced, so the SDK still
 *   resolves its endpoint and credentials, serialises, signs, and parses the answer; only the
 *   socket is gone.
 * - `[send]`: at the top. `DynamoDBDocumentClient.prototype.send` answers with the unmarshalled
 *   output (what aws-sdk-client-mock would return), so none of the SDK's work is left.
 *
 * Calls are matched per invocation by operation and order (the second Query of an invocation
 * gets the second recorded Query answer). Two things of the table's design are not order but
 * chance, and are handled here: a head replica chosen at random (the answer names the replica
 * the request asked for), and a call the recording did not make (a background fold of counters,
 * one write in four), which gets the answer of an empty table.
 */
import http from 'node:http';
import https from 'node:https';
import { syncBuiltinESMExports } from 'node:module';
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import { unmarshall } from '@aws-sdk/util-dynamodb';

/** One DynamoDB call as it went over the wire: the operation (`X-Amz-Target`'s), the request and answer bodies. */
export interface WireCall {
  readonly operation: string;
  readonly request: string;
  readonly status: number;
  readonly response: string;
}

/** A handler's DynamoDB calls: those of its init phase (module load), and those of one invocation. */
export interface Recording {
  readonly init: readonly WireCall[];
  readonly invocation: readonly WireCall[];
}

export type Phase = 'init' | 'invocation';

const EMPTY: Readonly<Record<string, string>> = {
  Query: '{"Count":0,"Items":[],"ScannedCount":0}',
  Scan: '{"Count":0,"Items":[],"ScannedCount":0}',
  BatchGetItem: '{"Responses":{},"UnprocessedKeys":{}}',
  BatchWriteItem: '{"UnprocessedItems":{}}',
};

const HEAD = /"HEAD#(\d+)"/;

/** The head replica a request names, if any (the current design reads one at random). */
const headOfWire = (request: string) => HEAD.exec(request)?.[1];

const headOfInput = (input: unknown): string | undefined => {
  const record = input as { Key?: { PK?: unknown }; RequestItems?: Record<string, { Keys?: { PK?: unknown }[] }> };
  const keys = [record.Key, ...Object.values(record.RequestItems ?? {}).flatMap((request) => request.Keys ?? [])];
  for (const key of keys) {
    const pk = key?.PK;
    if (typeof pk === 'string' && pk.startsWith('HEAD#')) return pk.slice(5);
  }
  return undefined;
};

type Attributes = Parameters<typeof unmarshall>[0];

/** The output lib-dynamodb would hand back for a wire answer: attribute values unmarshalled. */
export const nativeOutput = (response: string): Record<string, unknown> => {
  const wire = JSON.parse(response) as Record<string, unknown>;
  const output: Record<string, unknown> = {
    $metadata: { httpStatusCode: 200, requestId: 'bench', attempts: 1, totalRetryDelay: 0 },
  };
  for (const [name, value] of Object.entries(wire)) {
    if (name === 'Item' || name === 'Attributes' || name === 'LastEvaluatedKey')
      output[name] = unmarshall(value as Attributes);
    else if (name === 'Items') output[name] = (value as Attributes[]).map((item) => unmarshall(item));
    else if (name === 'Responses')
      output[name] = Object.fromEntries(
        Object.entries(value as Record<string, Attributes[]>).map(([table, items]) => [
          table,
          items.map((item) => unmarshall(item)),
        ]),
      );
    else if (name === 'UnprocessedKeys')
      output[name] = Object.fromEntries(
        Object.entries(value as Record<string, { Keys: Attributes[] }>).map(([table, request]) => [
          table,
          { ...request, Keys: request.Keys.map((key) => unmarshall(key)) },
        ]),
      );
    else output[name] = value;
  }
  return output;
};

export interface Answer {
  readonly status: number;
  readonly body: string;
}

/**
 * The answers of a recording, served call by call. `begin` starts a phase (the init phase, or
 * one more invocation); `unmatched` counts calls the recording had no answer for.
 */
export const createAnswers = (recording: Recording) => {
  const byOperation = (calls: readonly WireCall[]) => {
    const map = new Map<string, WireCall[]>();
    for (const call of calls) map.set(call.operation, [...(map.get(call.operation) ?? []), call]);
    return map;
  };
  const phases = { init: byOperation(recording.init), invocation: byOperation(recording.invocation) };
  let current = phases.init;
  const served = new Map<string, number>();
  let unmatched = 0;
  const variants = new Map<WireCall, Map<string, Answer>>();
  const natives = new Map<Answer, Record<string, unknown>>();

  const asAnswer = (call: WireCall, head: string | undefined): Answer => {
    let byHead = variants.get(call);
    if (!byHead) {
      byHead = new Map();
      variants.set(call, byHead);
    }
    const key = head ?? '';
    let answer = byHead.get(key);
    if (!answer) {
      const recorded = headOfWire(call.request);
      const body =
        head !== undefined && recorded !== undefined && recorded !== head
          ? call.response.replaceAll(`"HEAD#${recorded}"`, `"HEAD#${head}"`)
          : call.response;
      answer = { status: call.status, body };
      byHead.set(key, answer);
    }
    return answer;
  };

  const next = (operation: string, head: string | undefined): Answer => {
    const index = served.get(operation) ?? 0;
    served.set(operation, index + 1);
    const call = current.get(operation)?.[index];
    if (!call) {
      unmatched += 1;
      return { status: 200, body: EMPTY[operation] ?? '{}' };
    }
    return asAnswer(call, head);
  };

  return {
    begin(phase: Phase) {
      current = phases[phase];
      served.clear();
    },
    get unmatched() {
      return unmatched;
    },
    /** `[sdk]`: the answer's body for a request body as sent. */
    wire: (operation: string, request: string) => next(operation, headOfWire(request)),
    /** `[send]`: the document client's output for a command's input (the same object each time). */
    native(operation: string, input: unknown): Record<string, unknown> {
      const answer = next(operation, headOfInput(input));
      if (answer.status !== 200) {
        const error = JSON.parse(answer.body) as { __type?: string; message?: string; Message?: string };
        throw Object.assign(new Error(error.message ?? error.Message ?? 'DynamoDB error'), {
          name: error.__type?.split('#').pop() ?? 'Error',
          $fault: answer.status >= 500 ? 'server' : 'client',
          $metadata: { httpStatusCode: answer.status },
          ...error,
        });
      }
      let output = natives.get(answer);
      if (!output) {
        output = nativeOutput(answer.body);
        natives.set(answer, output);
      }
      return output;
    },
  };
};

export type Answers = ReturnType<typeof createAnswers>;

// ---------------------------------------------------------------------------------------------
// [sdk]: the socket replaced

type RequestCallback = (response: http.IncomingMessage) => void;

const fakeSocket = Object.assign(Object.create(null) as Record<string, unknown>, {
  connecting: false,
  setTimeout: () => undefined,
  setKeepAlive: () => undefined,
  setNoDelay: () => undefined,
  removeListener: () => undefined,
  on: () => undefined,
  once: () => undefined,
  destroy: () => undefined,
});

/** What the SDK's NodeHttpHandler uses of a ClientRequest: events, `end(body)`, `destroy`. */
class InProcessRequest extends Readable {
  readonly socket = fakeSocket;
  private readonly chunks: Buffer[] = [];

  constructor(
    private readonly headers: Record<string, string>,
    private readonly callback: RequestCallback | undefined,
    private readonly answer: (operation: string, request: string) => Answer,
  ) {
    super();
  }

  override _read() {}

  setTimeout() {
    return this;
  }

  write(chunk: Buffer | string) {
    this.chunks.push(Buffer.from(chunk));
    return true;
  }

  end(chunk?: Buffer | string) {
    if (chunk !== undefined) this.write(chunk);
    const target = this.headers['x-amz-target'] ?? this.headers['X-Amz-Target'] ?? '';
    const operation = target.slice(target.indexOf('.') + 1);
    const { status, body } = this.answer(operation, Buffer.concat(this.chunks).toString('utf8'));
    const payload = Buffer.from(body);
    const response = new Readable({ read() {} });
    response.push(payload);
    response.push(null);
    Object.assign(response, {
      statusCode: status,
      statusMessage: status === 200 ? 'OK' : 'Bad Request',
      complete: true,
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'content-length': String(payload.length),
        'x-amzn-requestid': 'BENCH0000000000000000000000000000000000000000000000',
        'x-amz-crc32': String(crc32(payload)),
      },
    });
    // A socket answers on a later turn of the event loop, never within `end`.
    setImmediate(() => {
      this.emit('response', response);
      this.callback?.(response as unknown as http.IncomingMessage);
      response.once('end', () => this.emit('close'));
    });
    return this;
  }
}

/** Replaces `http.request` and `https.request` (CommonJS and ESM views alike) with in-process answers. */
export const answerSockets = (answer: (operation: string, request: string) => Answer) => {
  const fake = (options: { headers?: Record<string, string> }, callback?: RequestCallback) =>
    new InProcessRequest(options.headers ?? {}, callback, answer);
  Object.assign(http, { request: fake });
  Object.assign(https, { request: fake });
  syncBuiltinESMExports();
};

/**
 * Records every DynamoDB call that goes over `http.request` (DynamoDB Local), passing it on
 * unchanged. Calls are recorded in the order they were sent (concurrent calls may be answered in
 * another order), each filled in once its answer has come.
 */
export const recordSockets = (record: (call: WireCall) => void) => {
  const original = http.request;
  const recording = (options: http.RequestOptions, callback?: RequestCallback) => {
    const headers = (options.headers ?? {}) as Record<string, string>;
    const target = headers['x-amz-target'] ?? '';
    const call = { operation: target.slice(target.indexOf('.') + 1), request: '', status: 0, response: '' };
    const chunks: Buffer[] = [];
    const request = original(options, (response) => {
      const body: Buffer[] = [];
      response.on('data', (chunk: Buffer) => body.push(chunk));
      response.once('end', () => {
        const text = Buffer.concat(body);
        Object.assign(call, { status: response.statusCode ?? 0, response: text.toString('utf8') });
        const replay = new Readable({ read() {} });
        replay.push(text);
        replay.push(null);
        Object.assign(replay, {
          statusCode: response.statusCode,
          statusMessage: response.statusMessage,
          headers: response.headers,
          complete: true,
        });
        callback?.(replay as unknown as http.IncomingMessage);
      });
    });
    const write = request.write.bind(request);
    const end = request.end.bind(request);
    Object.assign(request, {
      write: (chunk: Buffer | string, ...rest: unknown[]) => {
        chunks.push(Buffer.from(chunk));
        return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
      },
      end: (chunk?: Buffer | string, ...rest: unknown[]) => {
        if (chunk !== undefined && typeof chunk !== 'function') chunks.push(Buffer.from(chunk));
        call.request = Buffer.concat(chunks).toString('utf8');
        record(call);
        return (end as (...args: unknown[]) => http.ClientRequest)(chunk, ...rest);
      },
    });
    return request;
  };
  Object.assign(http, { request: recording });
  syncBuiltinESMExports();
};

// ---------------------------------------------------------------------------------------------
// [send]: the document client answered at its front

/** The global the `[send]` bundles' prelude calls (see bench/support/bundle.ts). */
export const SEND_HOOK = '__magazineApiBenchSend';

export interface SendCommand {
  readonly input: unknown;
  readonly clientCommand?: { readonly schema?: readonly unknown[] };
}

export const answerSends = (native: (operation: string, input: unknown) => Record<string, unknown>) => {
  Object.assign(globalThis, {
    [SEND_HOOK]: async (command: SendCommand) =>
      native(String(command.clientCommand?.schema?.[2] ?? 'unknown'), command.input),
  });
};
