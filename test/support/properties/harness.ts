import { expectMatchesContract } from '../contract';
import type { FaultProxy } from '../dynamodb-faults';
import type { ApiModel } from './model';
import { type Figures, Violation, type ViolationKind } from './run';
import { errorObjectProblems, leaksOf, sendWire, type WireResponse, XML_TYPE } from './wire';

/** The harness of the model-based sequences (sequences.ts): one API, the model, the figures of the run, and how a request is sent and its answer checked. */

export interface Harness {
  readonly baseUrl: string;
  readonly tableName: string;
  model: ApiModel;
  readonly figures: Figures;
  /** First pass (counting) or shrinking. */
  readonly counting: boolean;
  readonly faults?: FaultProxy;
  /** Makes this run's idempotency keys its own (keys outlive a run's reset). */
  readonly nonce: string;
  /** What happened so far in this sequence, for the counterexample. */
  readonly log: string[];
  /** Every body sent in this sequence: what the API shows of them back is no leak. */
  readonly sentBodies: string[];
  keyCounter: number;
}

const ACCEPT = 'application/json, text/javascript';

export interface Sent {
  readonly method: string;
  readonly path: string;
  readonly body?: string;
  readonly headers?: readonly (readonly [string, string])[];
}

export const fail = (harness: Harness, kinds: ViolationKind[], message: string): never => {
  throw new Violation(kinds, `${message}\n\nSteps so far:\n${harness.log.slice(-40).join('\n')}`);
};

export const describe = (response: WireResponse) =>
  `${response.request.method} ${response.request.path}${response.request.body ? ` ${response.request.body.toString().slice(0, 300)}` : ''} → ${response.status} ${response.text.slice(0, 400)}`;

/**
 * Sends one request and applies the rules every response keeps: no 5xx but a 503 with
 * `Retry-After`, no internal name, the error object for every error, in the published document.
 */
export const send = async (harness: Harness, sent: Sent): Promise<WireResponse> => {
  const headers: [string, string][] = [['Accept', ACCEPT]];
  for (const [name, value] of sent.headers ?? []) {
    const at = headers.findIndex(([n]) => n.toLowerCase() === name.toLowerCase());
    if (at >= 0) headers.splice(at, 1);
    headers.push([name, value]);
  }
  if (sent.body !== undefined) headers.push(['Content-Type', 'application/json']);
  const response = await sendWire(
    harness.baseUrl,
    { method: sent.method, path: sent.path, headers, ...(sent.body !== undefined && { body: sent.body }) },
    harness.counting ? harness.figures : undefined,
  );
  const problems: { kind: ViolationKind; what: string }[] = [];
  if (response.status >= 500 && response.status !== 503)
    problems.push({ kind: 'server error', what: `answered ${response.status}` });
  if (response.status === 503 && !/^[1-9]\d*$/.test(response.headers['retry-after'] ?? ''))
    problems.push({ kind: 'fault handling', what: `a 503 without a Retry-After of whole seconds` });
  if (sent.body !== undefined) harness.sentBodies.push(sent.body);
  const leaks = leaksOf(response, harness.tableName, harness.sentBodies.join('\n'));
  if (leaks.length > 0) problems.push({ kind: 'leak', what: `shows ${leaks.join(', ')}` });
  if (response.status >= 400) {
    const format = response.headers['content-type'] === XML_TYPE ? 'xml' : 'json';
    for (const what of errorObjectProblems(response, harness.baseUrl, format))
      problems.push({ kind: 'error object', what });
  }
  try {
    expectMatchesContract({
      method: sent.method,
      path: sent.path,
      status: response.status,
      headers: response.headers,
      body: response.text,
    });
  } catch (error) {
    problems.push({ kind: 'document', what: (error as Error).message.split('\n').slice(1, 4).join(' ') });
  }
  if (problems.length > 0) {
    fail(
      harness,
      [...new Set(problems.map((p) => p.kind))],
      `${describe(response)}\n- ${problems.map((p) => `${p.kind}: ${p.what}`).join('\n- ')}`,
    );
  }
  return response;
};

/** The body as a value: JSON parsed, XML converted by the published schema (well-formedness checked there). */
const bodyValue = (response: WireResponse): unknown => {
  if (response.headers['content-type'] === XML_TYPE) {
    return expectMatchesContract({
      method: response.request.method,
      path: response.request.path,
      status: response.status,
      headers: response.headers,
      body: response.text,
    }).value;
  }
  return JSON.parse(response.text);
};

export const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export const expectView = (harness: Harness, response: WireResponse, expected: unknown, what: string) => {
  if (response.status !== 200) fail(harness, ['model'], `${what}: expected 200, got\n${describe(response)}`);
  const actual = bodyValue(response);
  if (!same(actual, expected)) {
    fail(
      harness,
      ['model'],
      `${what}: the API shows something else than the model predicts.\nRequest: ${response.request.method} ${response.request.path}\nExpected: ${JSON.stringify(expected).slice(0, 1500)}\nActual:   ${JSON.stringify(actual).slice(0, 1500)}`,
    );
  }
};

export const expectError = (harness: Harness, response: WireResponse, status: number, code: string, what: string) => {
  if (response.status !== status)
    fail(harness, ['model'], `${what}: expected ${status} (${code}), got\n${describe(response)}`);
  const error = bodyValue(response) as { errorCode?: unknown };
  if (String(error.errorCode) !== code)
    fail(harness, ['model'], `${what}: expected error ${code}, got\n${describe(response)}`);
};

export const nowSeconds = () => Math.floor(Date.now() / 1000);
