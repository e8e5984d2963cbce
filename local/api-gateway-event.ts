import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { RouteMatch } from './router';

export interface EventOptions {
  /** The stage name in `requestContext` (the deployed API uses its stage, such as `prod`). */
  readonly stage?: string;
  /** `requestContext.requestId`; a fresh UUID by default. */
  readonly requestId?: string;
  readonly now?: Date;
}

/** Made-up but well-formed identifiers, so that code reading them sees what AWS would send. */
export const localAccountId = '123456789012';
const apiId = 'local000aa';
const resourceId = 'local0';
const deploymentId = 'local1';

/**
 * Who signed a write. Writes are IAM-authorised when deployed, so API Gateway puts the caller's
 * identity into the event; locally (no signature is checked) writes come from this publisher.
 */
export interface Caller {
  readonly accessKey: string;
  readonly accountId: string;
  /** `<role id>:<session name>`. */
  readonly caller: string;
  readonly userArn: string;
}

export const localPublisher: Caller = {
  accessKey: 'ASIALOCAL0PUBLISHER0',
  accountId: localAccountId,
  caller: 'AROALOCAL0PUBLISHER0:local',
  userArn: `arn:aws:sts::${localAccountId}:assumed-role/magazine-publisher/local`,
};

/** Methods IAM authorises when deployed (see infra/): their events carry a caller. */
export const signedMethods: ReadonlySet<string> = new Set(['POST', 'PUT', 'DELETE']);

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number) => String(n).padStart(2, '0');

/** API Gateway's `requestTime` format: `09/Apr/2015:12:34:56 +0000`. */
const requestTime = (date: Date): string =>
  `${pad(date.getUTCDate())}/${MONTHS[date.getUTCMonth()]}/${date.getUTCFullYear()}:${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} +0000`;

/** SigV4's `X-Amz-Date` format: `20240617T145824Z`. */
export const amzDate = (date: Date): string =>
  date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

/** An X-Ray trace header as API Gateway starts one: `Root=1-<epoch seconds, hex>-<96 random bits, hex>`. */
export const traceHeader = (date: Date, random: string = randomBytes(12).toString('hex')): string =>
  `Root=1-${Math.floor(date.getTime() / 1000).toString(16)}-${random}`;

/** API Gateway decodes query keys and values; a malformed escape is kept as sent. */
const decode = (value: string): string => {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
};

/** Name-value pairs in the order sent. Pairs, not objects: names come from clients, and `__proto__` or `constructor` are names too. */
export type Pairs = readonly (readonly [string, string])[];

export const parseQuery = (search: string): Pairs =>
  search
    .replace(/^\?/, '')
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => {
      const equals = pair.indexOf('=');
      return [
        decode(equals === -1 ? pair : pair.slice(0, equals)),
        equals === -1 ? '' : decode(pair.slice(equals + 1)),
      ] as const;
    });

/** From `rawHeaders`, so names keep the case the client sent, as in a REST (v1) event. */
export const headerPairs = (rawHeaders: readonly string[]): Pairs => {
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) pairs.push([rawHeaders[i]!, rawHeaders[i + 1]!]);
  return pairs;
};

const has = (pairs: Pairs, name: string) => pairs.some(([key]) => key.toLowerCase() === name.toLowerCase());
const lastValueOf = (pairs: Pairs, name: string) =>
  pairs.findLast(([key]) => key.toLowerCase() === name.toLowerCase())?.[1];

/** Every value of each name, in a Map (never a plain object) while it is built; `null` when there is none, as in a REST (v1) event. */
const multiValues = (pairs: Pairs): Record<string, string[]> | null => {
  if (pairs.length === 0) return null;
  const values = new Map<string, string[]>();
  for (const [name, value] of pairs) values.set(name, [...(values.get(name) ?? []), value]);
  // Object.fromEntries defines own properties: `__proto__` stays a key like any other.
  return Object.fromEntries(values);
};

/** The single-value map holds the last value of each name, as API Gateway does. */
const lastValues = (multi: Record<string, string[]> | null): Record<string, string> | null =>
  multi && Object.fromEntries(Object.entries(multi).map(([name, values]) => [name, values.at(-1) ?? '']));

/** Splits `/a/b?c=d` into the path (still percent-encoded, as REST APIs deliver it) and query. */
export const splitUrl = (url: string): { path: string; search: string } => {
  const question = url.indexOf('?');
  const path = question === -1 ? url : url.slice(0, question);
  const search = question === -1 ? '' : url.slice(question + 1);
  // A request target in absolute form (`GET http://host/path`) still carries only the path to Lambda.
  const absolute = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i.exec(path);
  return { path: (absolute ? path.slice(absolute[0].length) : path) || '/', search };
};

/** What a proxy event is made of, before API Gateway spells it out. */
export interface ProxyRequest {
  readonly method: string;
  /** The API Gateway resource that matched, such as `/magazines/{id}`. */
  readonly resource: string;
  /** The request path, still percent-encoded, without the stage. */
  readonly path: string;
  readonly pathParameters: Readonly<Record<string, string>> | null;
  /** The headers as the client sent them. */
  readonly headers: Pairs;
  /** The query parameters, decoded. */
  readonly query: Pairs;
  readonly body: string | null;
  readonly stage: string;
  readonly requestId: string;
  readonly now: Date;
  readonly sourceIp: string;
  /** The port the client connected to (`X-Forwarded-Port`). */
  readonly port: number;
  /** The scheme the client used (`X-Forwarded-Proto`). */
  readonly scheme: 'http' | 'https';
  /** The identity of a signed (IAM-authorised) request. */
  readonly caller?: Caller | undefined;
  readonly protocol?: string;
  readonly apiId?: string;
  /** The API's own domain (`requestContext.domainName` and `Host`); the client's `Host` when absent. */
  readonly domainName?: string;
}

/**
 * What API Gateway adds to the client's headers: the client's address appended to
 * `X-Forwarded-For`, the port and scheme it came in on, and a trace id when it had none.
 */
const gatewayHeaders = (request: ProxyRequest): Pairs => {
  const forwardedFor = lastValueOf(request.headers, 'x-forwarded-for');
  const added: [string, string][] = [];
  if (!has(request.headers, 'x-amzn-trace-id'))
    added.push([
      'X-Amzn-Trace-Id',
      traceHeader(request.now, createHash('sha256').update(request.requestId).digest('hex').slice(0, 24)),
    ]);
  added.push(['X-Forwarded-For', forwardedFor ? `${forwardedFor}, ${request.sourceIp}` : request.sourceIp]);
  // API Gateway answers to its own domain and sets the port and scheme itself: whatever the
  // client put in these headers is replaced, never passed on.
  if (request.domainName) added.push(['Host', request.domainName]);
  added.push(['X-Forwarded-Port', String(request.port)], ['X-Forwarded-Proto', request.scheme]);
  const replaced = new Set(['x-forwarded-for', 'x-forwarded-port', 'x-forwarded-proto']);
  if (request.domainName) replaced.add('host');
  return [...request.headers.filter(([name]) => !replaced.has(name.toLowerCase())), ...added];
};

/**
 * The Lambda proxy event (payload format 1.0) an API Gateway REST API delivers, field for field
 * as captured from one (see test/local/api-gateway-event.test.ts): one builder for the local
 * server, the `sam local invoke` event files and the tests, so they cannot differ.
 */
export const buildProxyEvent = (request: ProxyRequest): APIGatewayProxyEvent => {
  const multiValueHeaders = multiValues(gatewayHeaders(request));
  const headers = lastValues(multiValueHeaders);
  const multiValueQueryStringParameters = multiValues(request.query);
  const host = request.domainName ?? (headers && lastValueOf(Object.entries(headers), 'host')) ?? 'localhost';
  const caller = request.caller;
  const event = {
    resource: request.resource,
    path: request.path,
    httpMethod: request.method,
    headers,
    multiValueHeaders,
    queryStringParameters: lastValues(multiValueQueryStringParameters),
    multiValueQueryStringParameters,
    pathParameters:
      request.pathParameters && Object.keys(request.pathParameters).length > 0 ? { ...request.pathParameters } : null,
    stageVariables: null,
    requestContext: {
      resourceId,
      resourcePath: request.resource,
      httpMethod: request.method,
      extendedRequestId: `${createHash('sha256').update(request.requestId).digest('base64').slice(0, 15)}=`,
      requestTime: requestTime(request.now),
      path: `/${request.stage}${request.path}`,
      accountId: localAccountId,
      protocol: request.protocol ?? 'HTTP/1.1',
      stage: request.stage,
      domainPrefix: host.split('.')[0] ?? host,
      requestTimeEpoch: request.now.getTime(),
      requestId: request.requestId,
      identity: {
        cognitoIdentityPoolId: null,
        accountId: caller?.accountId ?? null,
        cognitoIdentityId: null,
        caller: caller?.caller ?? null,
        sourceIp: request.sourceIp,
        principalOrgId: null,
        accessKey: caller?.accessKey ?? null,
        cognitoAuthenticationType: null,
        cognitoAuthenticationProvider: null,
        userArn: caller?.userArn ?? null,
        userAgent: (headers && lastValueOf(Object.entries(headers), 'user-agent')) ?? null,
        user: caller?.caller ?? null,
      },
      domainName: host,
      deploymentId,
      apiId: request.apiId ?? apiId,
    },
    body: request.body,
    isBase64Encoded: false,
  };
  // aws-lambda's type wants identity fields (apiKey, clientCert…) and an `authorizer` that a REST
  // event without API keys, mTLS or authorizers does not carry; the event is what AWS sends.
  return event as unknown as APIGatewayProxyEvent;
};

/**
 * The SigV4 headers a signing client sends with temporary credentials, which API Gateway checks
 * and passes on: the time, the body's hash, the session token and `Authorization`. The signature
 * is made up (nothing checks it here), its shape is not.
 */
export const sigV4Headers = (caller: Caller, body: string | Buffer, now: Date, region = 'us-east-1'): Pairs => {
  const date = amzDate(now);
  const signature = createHash('sha256').update(`${caller.accessKey}\n${date}`).update(body).digest('hex');
  return [
    ['X-Amz-Date', date],
    ['X-Amz-Content-Sha256', createHash('sha256').update(body).digest('hex')],
    ['X-Amz-Security-Token', `IQoJb3JpZ2luX2VjE${createHash('sha256').update(caller.caller).digest('base64')}`],
    [
      'Authorization',
      `AWS4-HMAC-SHA256 Credential=${caller.accessKey}/${date.slice(0, 8)}/${region}/execute-api/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token, Signature=${signature}`,
    ],
  ];
};

/** A signed write the client did not sign (locally nothing is checked) gets the headers a signing client sends; its own are kept. */
const localSignature = (headers: Pairs, body: Buffer, now: Date): Pairs => [
  ...headers,
  ...sigV4Headers(localPublisher, body, now).filter(([name]) => !has(headers, name)),
];

/** The address and port the local server answered on, as a URL's host: what its links and `moreInfo` name, never the client's Host. */
export const ownAddress = (req: IncomingMessage): string => {
  const address = (req.socket.localAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
  return `${address.includes(':') ? `[${address}]` : address}:${req.socket.localPort ?? 80}`;
};

/** The event API Gateway would deliver for this HTTP request to the local server. */
export const toApiGatewayEvent = (
  req: IncomingMessage,
  body: Buffer,
  match: RouteMatch,
  options: EventOptions = {},
): APIGatewayProxyEvent => {
  const { path, search } = splitUrl(req.url ?? '/');
  const method = (req.method ?? 'GET').toUpperCase();
  const now = options.now ?? new Date();
  const signed = signedMethods.has(method) && match.route.operation !== undefined;
  const headers = headerPairs(req.rawHeaders);
  return buildProxyEvent({
    method,
    resource: match.route.resource,
    path,
    pathParameters: match.pathParameters,
    headers: signed ? localSignature(headers, body, now) : headers,
    query: parseQuery(search),
    body: body.length > 0 ? body.toString('utf8') : null,
    stage: options.stage ?? 'local',
    requestId: options.requestId ?? randomUUID(),
    now,
    sourceIp: (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, ''),
    port: req.socket.localPort ?? 80,
    scheme: 'http',
    // The local gateway's own name: a client's Host header must not choose where links point.
    domainName: ownAddress(req),
    caller: signed ? localPublisher : undefined,
    protocol: `HTTP/${req.httpVersion}`,
  });
};
