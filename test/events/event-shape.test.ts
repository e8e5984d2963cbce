import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { APIGatewayProxyEventSchema } from '@aws-lambda-powertools/parser/schemas/api-gateway';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LambdaHandler } from '../../local/load-handler';
import { type LocalServer, startLocalServer } from '../../local/server';
import { eventsDir } from '../../scripts/make-events';
import { expandRoutes } from '../../shared/routes/table';
import { clientFor } from '../support/http';

/**
 * The layout of a REST API (payload 1.0) proxy event as API Gateway delivers it to a regional
 * API without API keys, mTLS or authorizers, read off events captured from real APIs (such as the
 * REST events Powertools' parser tests with): the keys, in the order AWS writes them.
 */
const REST_EVENT = [
  'resource',
  'path',
  'httpMethod',
  'headers',
  'multiValueHeaders',
  'queryStringParameters',
  'multiValueQueryStringParameters',
  'pathParameters',
  'stageVariables',
  'requestContext',
  'body',
  'isBase64Encoded',
];
const REQUEST_CONTEXT = [
  'resourceId',
  'resourcePath',
  'httpMethod',
  'extendedRequestId',
  'requestTime',
  'path',
  'accountId',
  'protocol',
  'stage',
  'domainPrefix',
  'requestTimeEpoch',
  'requestId',
  'identity',
  'domainName',
  'deploymentId',
  'apiId',
];
const IDENTITY = [
  'cognitoIdentityPoolId',
  'accountId',
  'cognitoIdentityId',
  'caller',
  'sourceIp',
  'principalOrgId',
  'accessKey',
  'cognitoAuthenticationType',
  'cognitoAuthenticationProvider',
  'userArn',
  'userAgent',
  'user',
];
/** Added by API Gateway to every request. */
const GATEWAY_HEADERS = ['X-Amzn-Trace-Id', 'X-Forwarded-For', 'X-Forwarded-Port', 'X-Forwarded-Proto'];
/** The identity of an IAM-authorised (SigV4-signed) caller. */
const IAM_IDENTITY = ['accountId', 'caller', 'accessKey', 'userArn', 'user'] as const;

const headerNames = (event: APIGatewayProxyEvent) => Object.keys(event.headers ?? {}).map((name) => name.toLowerCase());

const expectRestEvent = (event: APIGatewayProxyEvent, signed: boolean, label: string) => {
  const parsed = APIGatewayProxyEventSchema.safeParse(event);
  expect(parsed.success, `${label}: ${parsed.error?.message}`).toBe(true);
  expect(Object.keys(event), label).toEqual(REST_EVENT);
  expect(Object.keys(event.requestContext), label).toEqual(REQUEST_CONTEXT);
  expect(Object.keys(event.requestContext.identity), label).toEqual(IDENTITY);
  expect('authorizer' in event.requestContext, label).toBe(false);
  expect(parsed.data?.requestContext.deploymentId, label).toMatch(/\S/);
  for (const name of GATEWAY_HEADERS) expect(headerNames(event), label).toContain(name.toLowerCase());
  expect(event.headers?.['X-Amzn-Trace-Id'] ?? '', label).toMatch(/^Root=1-[0-9a-f]{8}-[0-9a-f]{24}$/);
  for (const field of IAM_IDENTITY) {
    if (signed) expect(event.requestContext.identity[field], `${label}: identity.${field}`).toMatch(/\S/);
    else expect(event.requestContext.identity[field], `${label}: identity.${field}`).toBeNull();
  }
  if (signed) {
    expect(headerNames(event), label).toEqual(
      expect.arrayContaining(['x-amz-date', 'x-amz-content-sha256', 'x-amz-security-token', 'authorization']),
    );
    expect(event.requestContext.identity.userArn, label).toMatch(/^arn:aws:sts::\d{12}:assumed-role\//);
    // The credential in Authorization is the access key API Gateway names as the caller's.
    const authorization = Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === 'authorization');
    expect(authorization?.[1], label).toMatch(
      new RegExp(
        `^AWS4-HMAC-SHA256 Credential=${event.requestContext.identity.accessKey}/\\d{8}/[a-z0-9-]+/execute-api/aws4_request, SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$`,
      ),
    );
  } else {
    expect(headerNames(event), label).not.toContain('authorization');
  }
};

const writes = new Set(['POST', 'PUT', 'DELETE']);

describe('events/*.json', () => {
  const files = readdirSync(eventsDir).filter((file) => file.endsWith('.json'));

  it.each(files)('%s is a REST proxy event as API Gateway delivers it', (file) => {
    const event = JSON.parse(readFileSync(path.join(eventsDir, file), 'utf8')) as APIGatewayProxyEvent;
    const signed = writes.has(event.httpMethod) && file !== 'method-not-allowed.json';
    expectRestEvent(event, signed, file);
    // A temporary-credentials signer, as a publisher role's session is.
    if (signed) expect(headerNames(event)).toContain('x-amz-security-token');
  });
});

describe('the events the local server builds', () => {
  const seen: { event: APIGatewayProxyEvent; signed: boolean }[] = [];
  let server: LocalServer;
  const capture: LambdaHandler = async (event) => {
    seen.push({ event, signed: false });
    return { statusCode: 200, headers: { 'Content-Type': 'text/plain' }, body: 'ok' };
  };

  beforeAll(async () => {
    server = await startLocalServer({ quiet: true, handlers: async () => capture });
  });
  afterAll(() => server.close());

  it('are REST proxy events, signed by the local publisher on every write route', async () => {
    const client = clientFor(server.url);
    const routes = expandRoutes().filter((route) => route.resource !== '/{proxy+}');
    for (const route of routes) {
      const method = route.method === 'ANY' ? 'PATCH' : route.method;
      const target = route.resource.replace(/\{[A-Za-z]+\}/g, 'x1');
      seen.length = 0;
      await client.request(method, `${target}?limit=5`, writes.has(method) ? { json: { title: 'T' } } : {});
      expect(seen, `${method} ${target}`).toHaveLength(1);
      expectRestEvent(seen[0]!.event, writes.has(method) && route.operation !== undefined, `${method} ${target}`);
    }
  });
});
