import type { APIGatewayProxyEvent, Context } from 'aws-lambda';

export interface EventOptions {
  readonly method?: string;
  /** The API Gateway resource that matched, such as `/magazines/{id}`. */
  readonly resource: string;
  /** Defaults to the resource with its parameters filled in. */
  readonly path?: string;
  readonly params?: Record<string, string>;
  readonly query?: Record<string, string>;
  readonly headers?: Record<string, string>;
  readonly body?: string | object;
}

/** An API Gateway REST (payload 1.0) proxy event, shaped as the gateway sends it. */
export const proxyEvent = ({ method = 'GET', resource, path, params, query, headers, body }: EventOptions): APIGatewayProxyEvent => {
  const filledPath = path ?? resource.replace(/\{([A-Za-z0-9_]+)\+?\}/g, (_, name: string) => params?.[name] ?? '');
  const allHeaders = { Host: 'api.example.com', 'X-Forwarded-Proto': 'https', ...headers };
  return {
    httpMethod: method,
    resource,
    path: filledPath,
    headers: allHeaders,
    multiValueHeaders: Object.fromEntries(Object.entries(allHeaders).map(([k, v]) => [k, [v]])),
    queryStringParameters: query ?? null,
    multiValueQueryStringParameters: query ? Object.fromEntries(Object.entries(query).map(([k, v]) => [k, [v]])) : null,
    pathParameters: params ?? null,
    stageVariables: null,
    body: body === undefined ? null : typeof body === 'string' ? body : JSON.stringify(body),
    isBase64Encoded: false,
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123',
      authorizer: null,
      domainName: 'api.example.com',
      domainPrefix: 'api',
      httpMethod: method,
      identity: {
        accessKey: null, accountId: null, apiKey: null, apiKeyId: null, caller: null, clientCert: null,
        cognitoAuthenticationProvider: null, cognitoAuthenticationType: null, cognitoIdentityId: null,
        cognitoIdentityPoolId: null, principalOrgId: null, sourceIp: '127.0.0.1', user: null, userAgent: 'vitest', userArn: null,
      },
      path: `/test${filledPath}`,
      protocol: 'HTTP/1.1',
      requestId: 'request-1',
      requestTimeEpoch: 1_700_000_000_000,
      resourceId: 'res1',
      resourcePath: resource,
      stage: 'test',
    },
  };
};

export const lambdaContext = (): Context => ({
  callbackWaitsForEmptyEventLoop: false,
  functionName: 'test-function',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:test-function',
  memoryLimitInMB: '256',
  awsRequestId: 'request-1',
  logGroupName: '/aws/lambda/test-function',
  logStreamName: 'stream',
  getRemainingTimeInMillis: () => 10_000,
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
});

export type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<{ statusCode: number; headers?: Record<string, unknown>; body: string }>;

/** Calls a handler as Lambda would and parses a JSON body. */
export const invoke = async (handler: unknown, options: EventOptions) => {
  const response = await (handler as ProxyHandler)(proxyEvent(options), lambdaContext());
  const headers = (response.headers ?? {}) as Record<string, string>;
  const isJson = /json|javascript/.test(headers['Content-Type'] ?? '') && response.body !== '';
  const json = isJson ? (JSON.parse(response.body) as Record<string, unknown>) : undefined;
  return { status: response.statusCode, headers, body: response.body, json };
};
