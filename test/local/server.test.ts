import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorTemplate } from '../../infra/gateway-responses';
import type { LambdaHandler } from '../../local/load-handler';
import { type LocalServer, startLocalServer } from '../../local/server';
import { corsPreflight, corsResponseHeaders } from '../../shared/http/cors';
import { gatewayErrorOf, requestIdVariable } from '../../shared/http/gateway-errors';

/** Handlers standing in for functions/, so these tests exercise the server alone. */
const seen: { event?: APIGatewayProxyEvent; context?: Context } = {};
const fakeHandlers: Record<string, LambdaHandler> = {
  'list-magazines': async (event, context) => {
    seen.event = event;
    seen.context = context;
    return {
      statusCode: 200,
      headers: { 'Content-Type': 'application/json', Vary: 'Accept' },
      body: JSON.stringify({ path: event.path }),
    };
  },
  'create-magazine': async () => {
    throw new Error('boom');
  },
  'get-magazine': async (event) => {
    const id = event.pathParameters?.id;
    if (id === 'malformed') return { statusCode: 200, body: { not: 'a string' } };
    if (id === 'nothing') return undefined;
    if (id === 'binary')
      return {
        statusCode: 200,
        headers: { 'Content-Type': 'application/octet-stream' },
        body: Buffer.from([0, 1, 2, 255]).toString('base64'),
        isBase64Encoded: true,
      };
    return {
      statusCode: 200,
      headers: { 'Content-Type': 'text/plain', Link: 'ignored' },
      multiValueHeaders: { Link: ['<a>; rel="first"', '<b>; rel="next"'] },
      body: `magazine ${id}`,
    };
  },
};

let server: LocalServer;

beforeAll(async () => {
  server = await startLocalServer({
    quiet: true,
    logErrors: false,
    handlers: async (name) => {
      const handler = fakeHandlers[name];
      if (!handler) throw new Error(`no fake handler ${name}`);
      return handler;
    },
  });
});

afterAll(() => server.close());

/** node:http rather than fetch, which would lower-case header names. */
const rawGet = (path: string, headers: Record<string, string>) =>
  new Promise<number>((resolve, reject) => {
    const req = httpRequest(`${server.url}${path}`, { headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });

describe('local server', () => {
  it('hands the handler a REST proxy event and a Lambda context with the same request id', async () => {
    const response = await fetch(`${server.url}/magazines?mock=True&tag=a&tag=b`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ path: '/magazines' });
    const { event, context } = seen;
    expect(event?.resource).toBe('/magazines');
    expect(event?.queryStringParameters).toEqual({ mock: 'True', tag: 'b' });
    expect(event?.requestContext.domainName).toBe(new URL(server.url).host);
    expect(context?.awsRequestId).toBe(event?.requestContext.requestId);
    expect(response.headers.get('x-amzn-requestid')).toBe(context?.awsRequestId);
    expect(context?.getRemainingTimeInMillis()).toBeGreaterThan(0);
  });

  it('keeps the case of header names as the client sent them', async () => {
    expect(await rawGet('/magazines', { 'X-Custom-Header': 'yes', accept: 'application/json' })).toBe(200);
    expect(seen.event?.headers).toMatchObject({
      'X-Custom-Header': 'yes',
      accept: 'application/json',
      'X-Forwarded-Proto': 'http',
    });
  });

  it('writes multi-value headers, the multi-value entry winning over the single one', async () => {
    const response = await fetch(`${server.url}/magazines/abc`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('magazine abc');
    expect(response.headers.get('link')).toBe('<a>; rel="first", <b>; rel="next"');
  });

  it('decodes a base64 body before sending it', async () => {
    const response = await fetch(`${server.url}/magazines/binary`);
    expect([...new Uint8Array(await response.arrayBuffer())]).toEqual([0, 1, 2, 255]);
  });

  it('sends no body for HEAD, whatever the handler returns', async () => {
    const response = await fetch(`${server.url}/magazines/abc`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain');
    expect(await response.text()).toBe('');
  });

  it('answers 502 with the error object when the handler throws', async () => {
    const response = await fetch(`${server.url}/magazines`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(502);
    expect(response.headers.get('content-type')).toMatch(/json/);
    expect(response.headers.get('vary')).toBe('Accept');
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ errorCode: '50201', moreInfo: `${server.url}/v1/documentation/errors/50201.html` });
    expect(Object.keys(body).sort()).toEqual(['developerMessage', 'errorCode', 'moreInfo', 'userMessage']);
    expect(JSON.stringify(body)).not.toContain('boom');
    expect(body.developerMessage).toContain(response.headers.get('x-amzn-requestid'));
  });

  it("answers a failed function with the deployed API's gateway response, request id filled in", async () => {
    const response = await fetch(`${server.url}/magazines`, { method: 'POST', body: '{}' });
    const requestId = response.headers.get('x-amzn-requestid')!;
    const deployed = JSON.parse(
      errorTemplate(gatewayErrorOf('INTEGRATION_FAILURE'), server.url).replaceAll(requestIdVariable, requestId),
    ) as unknown;
    expect(await response.json()).toEqual(deployed);
    for (const [name, value] of Object.entries(corsResponseHeaders))
      expect(response.headers.get(name), name).toBe(value);
  });

  it('answers 502 when the handler returns something that is not a proxy result', async () => {
    for (const id of ['malformed', 'nothing']) {
      const response = await fetch(`${server.url}/magazines/${id}`);
      expect(response.status).toBe(502);
      expect(await response.json()).toMatchObject({ errorCode: '50201' });
    }
  });

  it('answers 502 when the function cannot be loaded', async () => {
    const response = await fetch(`${server.url}/tags`);
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({ errorCode: '50201' });
  });

  it('refuses a body over 10 MB with 413 and the error object, without calling the handler', async () => {
    seen.event = undefined;
    const response = await fetch(`${server.url}/magazines`, { method: 'PUT', body: 'x'.repeat(10 * 1024 * 1024 + 1) });
    expect(response.status).toBe(413);
    expect(response.headers.get('vary')).toBe('Accept');
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toMatchObject({
      errorCode: '41301',
      moreInfo: `${server.url}/v1/documentation/errors/41301.html`,
      userMessage: expect.any(String),
      developerMessage: expect.stringContaining('10 MB'),
    });
    expect(seen.event).toBeUndefined();
  });

  it("refuses a too large body with the deployed API's gateway response and headers", async () => {
    const response = await fetch(`${server.url}/magazines`, { method: 'PUT', body: 'x'.repeat(10 * 1024 * 1024 + 1) });
    expect(await response.json()).toEqual(JSON.parse(errorTemplate(gatewayErrorOf('REQUEST_TOO_LARGE'), server.url)));
    expect(response.headers.get('access-control-expose-headers')).toBe(
      corsResponseHeaders['Access-Control-Expose-Headers'],
    );
  });

  it('answers a CORS preflight on a routed resource itself, as the deployed API does', async () => {
    const response = await fetch(`${server.url}/magazines/abc`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://example.test', 'Access-Control-Request-Method': 'PUT' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-methods')).toContain('PUT');
    expect(response.headers.get('access-control-allow-headers')).toContain('If-Match');
    expect(response.headers.get('access-control-allow-headers')?.split(',')).toEqual([...corsPreflight.allowHeaders]);
    expect(response.headers.get('access-control-allow-methods')?.split(',')).toEqual([...corsPreflight.allowMethods]);
    expect(response.headers.get('access-control-max-age')).toBe(String(corsPreflight.maxAgeSeconds));
  });

  it('lets a browser send every request header the API reads, so it sees the API answer them', async () => {
    const response = await fetch(`${server.url}/magazines`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://example.test',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-encoding,content-type,idempotency-key',
      },
    });
    expect(response.status).toBe(204);
    const allowed = response.headers.get('access-control-allow-headers')?.toLowerCase().split(',') ?? [];
    for (const header of [
      'accept',
      'content-type',
      'content-encoding',
      'if-match',
      'if-none-match',
      'if-modified-since',
      'if-unmodified-since',
      'idempotency-key',
      'x-api-key',
    ])
      expect(allowed, header).toContain(header);
  });
});

/** Sends bytes as they are on a new connection and returns all the server answers. */
const rawExchange = (bytes: Buffer) =>
  new Promise<string>((resolve, reject) => {
    const { hostname, port } = new URL(server.url);
    const socket = connect(Number(port), hostname, () => socket.end(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });

describe('requests Node cannot read', () => {
  it.each([
    ['an unknown method', Buffer.from('FOO /magazines HTTP/1.1\r\nHost: x\r\n\r\n'), 'method'],
    [
      'raw non-ASCII bytes in the query',
      Buffer.from('GET /magazines?tag=\xc3\x84 HTTP/1.1\r\nHost: x\r\n\r\n', 'latin1'),
      'well-formed',
    ],
    [
      'headers over 16 KB',
      Buffer.from(`GET /magazines HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
      '16 KB',
    ],
    [
      'a URL over 16 KB',
      Buffer.from(`GET /magazines?tag=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`),
      'its URL and headers are larger than 16 KB',
    ],
  ])('%s: 400 with the error object, in JSON', async (_, bytes, mention) => {
    const answer = await rawExchange(bytes);
    const [head = '', body = ''] = answer.split('\r\n\r\n');
    expect(head.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(head).toContain('Content-Type: application/json; charset=utf-8');
    const error = JSON.parse(body) as Record<string, string>;
    expect(Object.keys(error).sort()).toEqual(['developerMessage', 'errorCode', 'moreInfo', 'userMessage']);
    expect(error.errorCode).toBe('40012');
    expect(error.developerMessage).toContain(mention);
    expect(error.moreInfo).toBe(`${server.url}/v1/documentation/errors/40012.html`);
  });
});
