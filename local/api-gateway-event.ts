import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEvent, APIGatewayProxyEventHeaders, APIGatewayProxyEventMultiValueHeaders } from 'aws-lambda';
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

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** API Gateway's `requestTime` format: `09/Apr/2015:12:34:56 +0000`. */
const requestTime = (date: Date): string => {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(date.getUTCDate())}/${MONTHS[date.getUTCMonth()]}/${date.getUTCFullYear()}:${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} +0000`;
};

/** API Gateway decodes query keys and values; a malformed escape is kept as sent. */
const decode = (value: string): string => {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
};

interface Query {
  readonly single: Record<string, string> | null;
  readonly multi: Record<string, string[]> | null;
}

export const parseQuery = (search: string): Query => {
  const multi: Record<string, string[]> = {};
  for (const pair of search.replace(/^\?/, '').split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const key = decode(equals === -1 ? pair : pair.slice(0, equals));
    const value = equals === -1 ? '' : decode(pair.slice(equals + 1));
    (multi[key] ??= []).push(value);
  }
  const keys = Object.keys(multi);
  if (keys.length === 0) return { single: null, multi: null };
  // With repeated keys the single-value map holds the last one, as API Gateway does.
  const single = Object.fromEntries(keys.map((key) => [key, multi[key]!.at(-1)!]));
  return { single, multi };
};

interface Headers {
  readonly single: Record<string, string> | null;
  readonly multi: Record<string, string[]> | null;
}

/** From `rawHeaders`, so names keep the case the client sent, as in a REST (v1) event. */
export const collectHeaders = (rawHeaders: readonly string[], extra: Readonly<Record<string, string>> = {}): Headers => {
  const multi: Record<string, string[]> = {};
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) (multi[rawHeaders[i]!] ??= []).push(rawHeaders[i + 1]!);
  const present = new Set(Object.keys(multi).map((name) => name.toLowerCase()));
  for (const [name, value] of Object.entries(extra)) if (!present.has(name.toLowerCase())) multi[name] = [value];
  const names = Object.keys(multi);
  if (names.length === 0) return { single: null, multi: null };
  const single = Object.fromEntries(names.map((name) => [name, multi[name]!.at(-1)!]));
  return { single, multi };
};

const headerValue = (headers: Record<string, string> | null, name: string): string | undefined => {
  if (!headers) return undefined;
  const lower = name.toLowerCase();
  return Object.entries(headers).find(([key]) => key.toLowerCase() === lower)?.[1];
};

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
  readonly pathParameters: Record<string, string> | null;
  /** Every value of each header, names as sent. */
  readonly headers: Record<string, string[]> | null;
  /** Every value of each query parameter, decoded. */
  readonly query: Record<string, string[]> | null;
  readonly body: string | null;
  readonly stage: string;
  readonly requestId: string;
  readonly now: Date;
  readonly sourceIp?: string;
  readonly protocol?: string;
  readonly apiId?: string;
}

/** The single-value map of a multi-value one holds the last value, as API Gateway does. */
const lastValues = (multi: Record<string, string[]> | null) =>
  multi && Object.keys(multi).length > 0 ? Object.fromEntries(Object.entries(multi).map(([key, values]) => [key, values.at(-1) ?? ''])) : null;

/**
 * The Lambda proxy event (payload format 1.0) an API Gateway REST API delivers: one builder for
 * the local server, the `sam local invoke` event files and the tests, so they cannot differ.
 */
export const buildProxyEvent = (request: ProxyRequest): APIGatewayProxyEvent => {
  const headers = lastValues(request.headers);
  const query = lastValues(request.query);
  const host = headerValue(headers, 'host') ?? 'localhost';
  const id = request.apiId ?? apiId;
  return {
    resource: request.resource,
    path: request.path,
    httpMethod: request.method,
    // The aws-lambda types say never null, but a REST (v1) event without headers carries null.
    headers: headers as APIGatewayProxyEventHeaders,
    multiValueHeaders: (headers && request.headers) as APIGatewayProxyEventMultiValueHeaders,
    queryStringParameters: query,
    multiValueQueryStringParameters: query && request.query,
    pathParameters: request.pathParameters && Object.keys(request.pathParameters).length > 0 ? request.pathParameters : null,
    stageVariables: null,
    requestContext: {
      accountId: localAccountId,
      apiId: id,
      authorizer: null,
      domainName: host,
      domainPrefix: host.split('.')[0] ?? host,
      extendedRequestId: createHash('sha256').update(request.requestId).digest('base64url').slice(0, 16),
      httpMethod: request.method,
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: request.sourceIp ?? '127.0.0.1',
        user: null,
        userAgent: headerValue(headers, 'user-agent') ?? null,
        userArn: null,
      },
      path: `/${request.stage}${request.path}`,
      protocol: request.protocol ?? 'HTTP/1.1',
      requestId: request.requestId,
      requestTime: requestTime(request.now),
      requestTimeEpoch: request.now.getTime(),
      resourceId,
      resourcePath: request.resource,
      stage: request.stage,
    },
    body: request.body,
    isBase64Encoded: false,
  };
};

/** The event API Gateway would deliver for this HTTP request to the local server. */
export const toApiGatewayEvent = (req: IncomingMessage, body: Buffer, match: RouteMatch, options: EventOptions = {}): APIGatewayProxyEvent => {
  const { path, search } = splitUrl(req.url ?? '/');
  return buildProxyEvent({
    method: (req.method ?? 'GET').toUpperCase(),
    resource: match.route.resource,
    path,
    pathParameters: match.pathParameters,
    // API Gateway sets X-Forwarded-Proto (https); links.ts reads it to write absolute links.
    headers: collectHeaders(req.rawHeaders, { 'X-Forwarded-Proto': 'http' }).multi,
    query: parseQuery(search).multi,
    body: body.length > 0 ? body.toString('utf8') : null,
    stage: options.stage ?? 'local',
    requestId: options.requestId ?? randomUUID(),
    now: options.now ?? new Date(),
    sourceIp: (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, ''),
    protocol: `HTTP/${req.httpVersion}`,
  });
};
