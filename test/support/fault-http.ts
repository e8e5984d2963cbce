import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { asString, BATCHES, DEFAULT_KEY_ATTRIBUTES, type KeyAttributesFor } from './fault-answers';
import type {
  ConflictOptions,
  Fault,
  FaultKind,
  FaultProxyOptions,
  FaultRule,
  JsonObject,
  ProxiedCall,
  RecordedCall,
} from './fault-types';
import { operationOf } from './grants';

/** The fault proxy's HTTP plumbing and the matching of its rules (dynamodb-faults.ts). */

/** Hop-by-hop headers, the length of a body that may be rewritten, and any compression of the answer the proxy reads. */
const NOT_FORWARDED = new Set([
  'host',
  'content-length',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'expect',
  'accept-encoding',
]);

export const forwardedHeaders = (headers: IncomingHttpHeaders, body: string): OutgoingHttpHeaders => ({
  ...Object.fromEntries(Object.entries(headers).filter(([name]) => !NOT_FORWARDED.has(name))),
  'content-length': Buffer.byteLength(body),
});

export const readBody = (stream: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.once('end', () => resolve(Buffer.concat(chunks)));
    stream.once('error', reject);
  });

export const operationNamed = (target: string | string[] | undefined): string =>
  typeof target === 'string' ? (target.split('.').pop() ?? target) : 'unknown';

/** `amz-sdk-request: attempt=2; max=4` → 2. */
export const attemptOf = (header: string | string[] | undefined): number | undefined => {
  const match = typeof header === 'string' ? /attempt=(\d+)/.exec(header) : null;
  return match?.[1] ? Number(match[1]) : undefined;
};

export const delay = (ms: number) =>
  new Promise<void>((done) => {
    // Unref'd: a transaction held at close must not keep the vitest worker alive.
    setTimeout(done, ms).unref();
  });

export type MutableCall = { -readonly [K in keyof RecordedCall]: RecordedCall[K] };

/** A call as it arrives, before it is answered. */
export const newCall = (incoming: IncomingMessage, request: JsonObject, index: number): MutableCall => ({
  index,
  operation: operationNamed(incoming.headers['x-amz-target']),
  request,
  attempt: attemptOf(incoming.headers['amz-sdk-request']),
  invocationId: asString(incoming.headers['amz-sdk-invocation-id']),
  caller: operationOf(incoming.headers),
  outcome: 'passed',
  forwarded: false,
  status: 0,
  readCapacityUnits: 0,
  writeCapacityUnits: 0,
  responseBytes: 0,
});

export const zeroInjected = (): Record<FaultKind, number> => ({
  throttle: 0,
  internal: 0,
  unavailable: 0,
  timeout: 0,
  lostReply: 0,
  unprocessed: 0,
  conflict: 0,
});

export interface ActiveRule {
  readonly rule: FaultRule;
  readonly fault: Fault;
  seen: number;
  fired: number;
}

export const ruleMatches = (active: ActiveRule, call: ProxiedCall): boolean => {
  if (active.fault.kind === 'unprocessed' && !BATCHES.has(call.operation)) return false;
  const { operations } = active.rule;
  if (operations === undefined) return true;
  return typeof operations === 'function' ? operations(call) : operations.includes(call.operation);
};

export const keyAttributesResolver = (given: FaultProxyOptions['keyAttributes']): KeyAttributesFor =>
  typeof given === 'function' ? given : () => given ?? DEFAULT_KEY_ATTRIBUTES;

export const conflictSettings = (conflicts: boolean | ConflictOptions | undefined): ConflictOptions | undefined =>
  conflicts === true ? {} : conflicts || undefined;
