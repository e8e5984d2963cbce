import { randomBytes, randomUUID } from 'node:crypto';
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
const accountId = '123456789012';
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

/**
 * The Lambda proxy event (payload format 1.0) an API Gateway REST API would deliver for this
 * request, so that handlers run locally exactly as they run deployed.
 */
export const toApiGatewayEvent = (req: IncomingMessage, body: Buffer, match: RouteMatch, options: EventOptions = {}): APIGatewayProxyEvent => {
  const stage = options.stage ?? 'local';
  const now = options.now ?? new Date();
  const requestId = options.requestId ?? randomUUID();
  const { path, search } = splitUrl(req.url ?? '/');
  const query = parseQuery(search);
  // API Gateway sets X-Forwarded-Proto (https); links.ts reads it to write absolute links.
  const headers = collectHeaders(req.rawHeaders, { 'X-Forwarded-Proto': 'http' });
  const method = (req.method ?? 'GET').toUpperCase();
  const host = headerValue(headers.single, 'host') ?? 'localhost';
  const sourceIp = (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '');

  return {
    resource: match.route.resource,
    path,
    httpMethod: method,
    // The aws-lambda types say never null, but a REST (v1) event without headers carries null.
    headers: headers.single as APIGatewayProxyEventHeaders,
    multiValueHeaders: headers.multi as APIGatewayProxyEventMultiValueHeaders,
    queryStringParameters: query.single,
    multiValueQueryStringParameters: query.multi,
    pathParameters: match.pathParameters,
    stageVariables: null,
    requestContext: {
      accountId,
      apiId,
      authorizer: null,
      domainName: host,
      domainPrefix: host.split('.')[0] ?? host,
      extendedRequestId: randomBytes(12).toString('base64url').slice(0, 16),
      httpMethod: method,
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
        sourceIp,
        user: null,
        userAgent: headerValue(headers.single, 'user-agent') ?? null,
        userArn: null,
      },
      path: `/${stage}${path}`,
      protocol: `HTTP/${req.httpVersion}`,
      requestId,
      requestTime: requestTime(now),
      requestTimeEpoch: now.getTime(),
      resourceId,
      resourcePath: match.route.resource,
      stage,
    },
    body: body.length > 0 ? body.toString('utf8') : null,
    isBase64Encoded: false,
  };
};
