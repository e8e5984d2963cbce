import { Agent, request as httpRequest } from 'node:http';
import { XMLParser, XMLValidator } from 'fast-xml-parser';

/**
 * The property tests' own HTTP client and the checks every response must pass. It sends exactly
 * what it is given (header names such as `__proto__`, repeated headers, raw bytes, odd methods),
 * counts what it sent and received, and leaves nothing behind (the integration helpers keep every
 * response for their after-each check, which a run of thousands cannot afford).
 */

export interface WireRequest {
  readonly method: string;
  /** Path and query as sent on the request line, already percent-encoded where the test wants it. */
  readonly path: string;
  /** In order; a name may repeat. */
  readonly headers?: readonly (readonly [string, string])[];
  readonly body?: string | Buffer;
}

export interface WireResponse {
  readonly request: WireRequest;
  readonly status: number;
  /** Names in lower case, repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  readonly text: string;
}

/** What a run sent and saw; every property test keeps one and reports it. */
export interface WireCounters {
  requests: number;
  /** Answers of 500 or more but 503. */
  serverErrors: number;
  /** 503s: a store that failed (every one must carry Retry-After). */
  unavailable: number;
}

const agent = new Agent({ keepAlive: true, maxSockets: 16 });

export const sendWire = (baseUrl: string, request: WireRequest, counters?: WireCounters): Promise<WireResponse> => {
  const url = new URL(baseUrl);
  const body = request.body === undefined ? undefined : Buffer.from(request.body);
  // Raw headers: Node adds no Host of its own to them.
  const headers: string[] = ['Host', url.host];
  for (const [name, value] of request.headers ?? []) headers.push(name, value);
  if (body && !(request.headers ?? []).some(([name]) => name.toLowerCase() === 'content-length'))
    headers.push('Content-Length', String(body.byteLength));
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, method: request.method, path: request.path, headers, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const received: Record<string, string> = Object.create(null);
          for (const [name, value] of Object.entries(res.headers)) {
            if (value !== undefined) received[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
          }
          const status = res.statusCode ?? 0;
          if (counters) {
            counters.requests += 1;
            if (status === 503) counters.unavailable += 1;
            else if (status >= 500) counters.serverErrors += 1;
          }
          resolve({ request, status, headers: received, text: Buffer.concat(chunks).toString('utf8') });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
};

// ---------------------------------------------------------------------------------------------
// What no response may show

/**
 * Names of the implementation: key attributes and prefixes of the table's items, the index name
 * the first design had, DynamoDB's own error names, and stack traces. A name the client itself
 * sent (the API quotes a bad value back) is not a leak; `PK`/`SK` count only as whole words, so
 * that base64 revisions in ETags cannot look like them.
 */
const LEAK_PATTERNS: readonly { readonly name: string; readonly pattern: RegExp }[] = [
  { name: 'PK', pattern: /(^|[^A-Za-z0-9_-])PK([^A-Za-z0-9_-]|$)/ },
  { name: 'SK', pattern: /(^|[^A-Za-z0-9_-])SK([^A-Za-z0-9_-]|$)/ },
  ...['GSI1', 'MAG#', 'G#', 'HEAD#', 'ART#', 'IDEM#', 'BULK#', 'GUARD#', 'TRASH#', '#L#', '#TAGM'].map((name) => ({
    name,
    pattern: new RegExp(name.replace(/[#]/g, '\\#')),
  })),
  { name: 'a stack line', pattern: /\bat [^\n]*\.[cm]?[tj]s:\d+/ },
  { name: '.ts:', pattern: /\.ts:\d/ },
  { name: 'node_modules', pattern: /node_modules/ },
  ...[
    'ValidationException',
    'ConditionalCheckFailed',
    'TransactionCanceled',
    'TransactionConflict',
    'ProvisionedThroughputExceeded',
    'ThrottlingException',
    'ResourceNotFoundException',
    'InternalServerError',
    'com.amazonaws',
    'Injected by the test proxy',
    'TransactWriteItems',
    'BatchWriteItem',
    'ExpressionAttribute',
  ].map((name) => ({ name, pattern: new RegExp(name) })),
];

/** Header values that are opaque tokens or echo the request: not where an internal name could hide unseen. */
const OPAQUE_HEADERS = new Set(['date', 'x-amzn-requestid', 'x-amz-apigw-id', 'x-amzn-trace-id']);

/** Everything the client put into the request, as text, decoded where it was encoded. */
export const requestText = (request: WireRequest): string => {
  let path = request.path;
  try {
    path = `${path}\n${decodeURIComponent(path)}`;
  } catch {
    // A malformed escape: the raw path is what the API could quote.
  }
  const body = request.body === undefined ? '' : Buffer.from(request.body).toString('utf8');
  return [path, ...(request.headers ?? []).map(([name, value]) => `${name}: ${value}`), body].join('\n');
};

/**
 * The internal names a response shows (body and headers) that the client did not send itself: in
 * this request, or in `sentBefore` (what it stored earlier, such as a title it now reads back).
 */
export const leaksOf = (response: WireResponse, tableName: string, sentBefore = ''): string[] => {
  const sent = `${requestText(response.request)}\n${sentBefore}`;
  const shown = [
    response.text,
    ...Object.entries(response.headers)
      .filter(([name]) => !OPAQUE_HEADERS.has(name))
      .map(([name, value]) => `${name}: ${value}`),
  ].join('\n');
  const found = LEAK_PATTERNS.filter(({ pattern }) => pattern.test(shown) && !pattern.test(sent)).map(
    ({ name }) => name,
  );
  if (shown.includes(tableName) && !sent.includes(tableName)) found.push('the table name');
  return found;
};

// ---------------------------------------------------------------------------------------------
// The error object

export const JSON_TYPES = ['text/javascript; charset=utf-8', 'application/json; charset=utf-8'];
export const XML_TYPE = 'application/xml; charset=utf-8';

const ERROR_FIELDS = ['developerMessage', 'errorCode', 'moreInfo', 'userMessage'];

const xmlParser = new XMLParser({ ignoreDeclaration: true, parseTagValue: false, trimValues: false });

export const parseXmlDocument = (text: string): Record<string, unknown> | undefined => {
  if (!text.startsWith('<?xml') || XMLValidator.validate(text) !== true) return undefined;
  return xmlParser.parse(text) as Record<string, unknown>;
};

/**
 * Problems of a 4xx (or 5xx) response as the API's error object: `Vary: Accept`, a JSON or XML
 * type (XML when `format` says so), the four fields as strings, a code that starts with the
 * status, and `moreInfo` pointing to the code's page under `{base_url}/v1`. HEAD gets no body.
 */
export const errorObjectProblems = (
  response: WireResponse,
  baseUrl: string,
  format: 'json' | 'xml' | undefined,
): string[] => {
  const problems: string[] = [];
  const vary = (response.headers.vary ?? '').split(',').map((v) => v.trim().toLowerCase());
  if (!vary.includes('accept')) problems.push(`no Vary: Accept (${response.headers.vary ?? 'absent'})`);
  const type = response.headers['content-type'] ?? '';
  const isXml = type === XML_TYPE;
  if (!isXml && !JSON_TYPES.includes(type)) problems.push(`error with Content-Type \`${type}\``);
  if (format === 'xml' && !isXml) problems.push(`XML was negotiated, the error came as \`${type}\``);
  if (format === 'json' && isXml) problems.push('JSON was negotiated, the error came as XML');
  if (response.request.method === 'HEAD') {
    if (response.text !== '') problems.push('a HEAD answered with a body');
    return problems;
  }
  let error: unknown;
  if (isXml) {
    const document = parseXmlDocument(response.text);
    if (!document) return [...problems, `error body is not well-formed XML: ${response.text.slice(0, 200)}`];
    if (Object.keys(document).join() !== 'error') problems.push(`XML error root is <${Object.keys(document).join()}>`);
    error = document.error;
  } else {
    try {
      error = JSON.parse(response.text);
    } catch {
      return [...problems, `error body is not JSON: ${response.text.slice(0, 200)}`];
    }
  }
  if (typeof error !== 'object' || error === null || Array.isArray(error))
    return [...problems, `error body is not an object: ${response.text.slice(0, 200)}`];
  const fields = error as Record<string, unknown>;
  const keys = Object.keys(fields).sort();
  if (keys.join() !== ERROR_FIELDS.join()) problems.push(`error fields are ${keys.join(', ')}`);
  for (const name of ERROR_FIELDS) {
    if (typeof fields[name] !== 'string' || fields[name] === '') problems.push(`error field ${name} is not a string`);
  }
  const code = String(fields.errorCode);
  if (!new RegExp(`^${response.status}\\d+$`).test(code))
    problems.push(`errorCode ${code} does not start with the status ${response.status}`);
  if (fields.moreInfo !== `${baseUrl}/v1/documentation/errors/${code}.html`)
    problems.push(`moreInfo is ${String(fields.moreInfo)}`);
  return problems;
};
