import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { buildProxyEvent } from '../../local/api-gateway-event';
import { lambdaContext } from '../../local/lambda-context';

export interface EventOptions {
  readonly method?: string;
  /** The API Gateway resource that matched, such as `/magazines/{id}`. */
  readonly resource: string;
  /** Defaults to the resource with its parameters filled in. */
  readonly path?: string;
  readonly params?: Record<string, string>;
  readonly query?: Record<string, string>;
  /** A record, or name-value pairs when a header is sent on more than one line. */
  readonly headers?: Record<string, string> | readonly (readonly [string, string])[];
  readonly body?: string | object;
}

/** An API Gateway REST (payload 1.0) proxy event, built as the local server builds it. */
export const proxyEvent = ({
  method = 'GET',
  resource,
  path,
  params,
  query,
  headers,
  body,
}: EventOptions): APIGatewayProxyEvent =>
  buildProxyEvent({
    method,
    resource,
    path: path ?? resource.replace(/\{([A-Za-z0-9_]+)\+?\}/g, (_, name: string) => params?.[name] ?? ''),
    pathParameters: params ?? null,
    headers: Array.isArray(headers)
      ? [['Host', 'api.example.com'], ...headers]
      : Object.entries({ Host: 'api.example.com', ...headers }),
    query: Object.entries(query ?? {}),
    body: body === undefined ? null : typeof body === 'string' ? body : JSON.stringify(body),
    stage: 'test',
    requestId: 'request-1',
    now: new Date(1_700_000_000_000),
    sourceIp: '203.0.113.10',
    port: 443,
    scheme: 'https',
  });

export type ProxyHandler = (
  event: APIGatewayProxyEvent,
  context: Context,
) => Promise<{ statusCode: number; headers?: Record<string, unknown>; body: string }>;

/** Calls a handler as Lambda would and parses a JSON body. */
export const invoke = async (handler: unknown, options: EventOptions) => {
  const response = await (handler as ProxyHandler)(proxyEvent(options), lambdaContext('test-function', 'request-1'));
  const headers = (response.headers ?? {}) as Record<string, string>;
  const isJson = /json|javascript/.test(headers['Content-Type'] ?? '') && response.body !== '';
  const json = isJson ? (JSON.parse(response.body) as Record<string, unknown>) : undefined;
  return { status: response.statusCode, headers, body: response.body, json };
};
