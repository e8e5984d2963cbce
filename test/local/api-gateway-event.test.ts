import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { toApiGatewayEvent } from '../../local/api-gateway-event';
import type { RouteMatch } from '../../local/router';

const incoming = (method: string, url: string, rawHeaders: string[] = ['Host', '127.0.0.1:3000']) => {
  const req = new IncomingMessage(new Socket());
  req.method = method;
  req.url = url;
  req.rawHeaders = rawHeaders;
  req.httpVersion = '1.1';
  return req;
};

const listMatch: RouteMatch = {
  route: { method: 'GET', resource: '/magazines', handler: 'list-magazines' },
  pathParameters: null,
};
const itemMatch: RouteMatch = {
  route: { method: 'GET', resource: '/v1/magazines/{id}', handler: 'get-magazine' },
  pathParameters: { id: 'a b' },
};
const none = Buffer.alloc(0);

describe('API Gateway REST (v1) proxy event', () => {
  it('gives null, not {}, for absent query, path parameters and body', () => {
    const event = toApiGatewayEvent(incoming('GET', '/magazines'), none, listMatch);
    expect(event.queryStringParameters).toBeNull();
    expect(event.multiValueQueryStringParameters).toBeNull();
    expect(event.pathParameters).toBeNull();
    expect(event.stageVariables).toBeNull();
    expect(event.body).toBeNull();
    expect(event.isBase64Encoded).toBe(false);
  });

  it('adds the headers API Gateway adds, even to a request without headers', () => {
    const event = toApiGatewayEvent(incoming('GET', '/magazines', []), none, listMatch, {
      requestId: 'r1',
      now: new Date(Date.UTC(2024, 5, 17, 14, 58, 24)),
    });
    expect(Object.keys(event.headers)).toEqual([
      'X-Amzn-Trace-Id',
      'X-Forwarded-For',
      'Host',
      'X-Forwarded-Port',
      'X-Forwarded-Proto',
    ]);
    expect(event.headers['X-Amzn-Trace-Id']).toMatch(/^Root=1-66704f10-[0-9a-f]{24}$/);
    expect(event.headers['X-Forwarded-Proto']).toBe('http');
    expect(event.headers['X-Forwarded-For']).toMatch(/\S/);
    expect(event.multiValueHeaders['X-Forwarded-Proto']).toEqual(['http']);
    expect(event.requestContext.domainName).toBe('127.0.0.1:80');
  });

  it('appends the client to an X-Forwarded-For it sent, and keeps its trace id', () => {
    const req = incoming('GET', '/magazines', [
      'Host',
      'h',
      'X-Forwarded-For',
      '198.51.100.7',
      'X-Amzn-Trace-Id',
      'Root=1-00000000-000000000000000000000000',
    ]);
    const event = toApiGatewayEvent(req, none, listMatch);
    expect(event.headers['X-Forwarded-For']).toMatch(/^198\.51\.100\.7, \S+$/);
    expect(event.headers['X-Amzn-Trace-Id']).toBe('Root=1-00000000-000000000000000000000000');
  });

  it('keeps the last of repeated query values and all of them in the multi-value map', () => {
    const event = toApiGatewayEvent(incoming('GET', '/magazines?tag=a&tag=b&mock&q=caf%C3%A9&empty='), none, listMatch);
    expect(event.queryStringParameters).toEqual({ tag: 'b', mock: '', q: 'café', empty: '' });
    expect(event.multiValueQueryStringParameters).toEqual({ tag: ['a', 'b'], mock: [''], q: ['café'], empty: [''] });
  });

  it('treats a bare `?` as no query at all', () => {
    expect(toApiGatewayEvent(incoming('GET', '/magazines?'), none, listMatch).queryStringParameters).toBeNull();
  });

  it('keeps header names as sent, the last of repeated values, and all of them in multiValueHeaders', () => {
    const event = toApiGatewayEvent(
      incoming('GET', '/magazines', [
        'Host',
        'example.test:3000',
        'Accept',
        'application/json, text/javascript',
        'X-Trace',
        'one',
        'X-Trace',
        'two',
        'user-agent',
        'curl/8',
      ]),
      none,
      listMatch,
    );
    expect(event.headers).toMatchObject({
      Accept: 'application/json, text/javascript',
      'X-Trace': 'two',
      'user-agent': 'curl/8',
      'X-Forwarded-Proto': 'http',
    });
    expect(event.multiValueHeaders['X-Trace']).toEqual(['one', 'two']);
    expect(event.requestContext.identity.userAgent).toBe('curl/8');
  });

  it('answers to its own name and sets the port and scheme itself, whatever the client sent', () => {
    const event = toApiGatewayEvent(
      incoming('GET', '/magazines', [
        'Host',
        'evil.example',
        'x-forwarded-proto',
        'javascript',
        'X-Forwarded-Port',
        '1',
      ]),
      none,
      listMatch,
    );
    expect(event.requestContext.domainName).toBe('127.0.0.1:80');
    expect(event.headers).toMatchObject({
      Host: '127.0.0.1:80',
      'X-Forwarded-Proto': 'http',
      'X-Forwarded-Port': '80',
    });
    expect(event.headers['x-forwarded-proto']).toBeUndefined();
    expect(JSON.stringify(event)).not.toMatch(/evil|javascript/);
  });

  it('carries the matched resource, the path as sent and the decoded parameters', () => {
    const event = toApiGatewayEvent(incoming('GET', '/v1/magazines/a%20b?fields=title'), none, itemMatch, {
      requestId: 'req-1',
    });
    expect(event.resource).toBe('/v1/magazines/{id}');
    expect(event.path).toBe('/v1/magazines/a%20b');
    expect(event.httpMethod).toBe('GET');
    expect(event.pathParameters).toEqual({ id: 'a b' });
    expect(event.requestContext).toMatchObject({
      httpMethod: 'GET',
      path: '/local/v1/magazines/a%20b',
      resourcePath: '/v1/magazines/{id}',
      stage: 'local',
      requestId: 'req-1',
      protocol: 'HTTP/1.1',
    });
    expect(event.requestContext.identity.sourceIp).toMatch(/\S/);
    expect(event.requestContext.requestTime).toMatch(/^\d{2}\/[A-Z][a-z]{2}\/\d{4}:\d{2}:\d{2}:\d{2} \+0000$/);
  });

  it('hands the body over as a UTF-8 string', () => {
    const body = Buffer.from(JSON.stringify({ title: 'Café' }), 'utf8');
    const event = toApiGatewayEvent(incoming('POST', '/magazines'), body, {
      ...listMatch,
      route: { ...listMatch.route, method: 'POST' },
    });
    expect(event.httpMethod).toBe('POST');
    expect(event.body).toBe('{"title":"Café"}');
    expect(event.isBase64Encoded).toBe(false);
  });
});
