import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usagePlans } from '../../infra/usage-plans';
import { LocalApiKeys } from '../../local/api-keys';
import type { LambdaHandler } from '../../local/load-handler';
import { type LocalServer, startLocalServer } from '../../local/server';
import { type Client, clientFor } from '../support/http';

/**
 * The local server with `--keys`, over real HTTP, on handlers that stand in for functions/: keys
 * are checked, and the plans' rate, burst and daily quota applied, as API Gateway applies them.
 * The keys' clock is the test's, so that no assertion depends on how fast requests go.
 */
let clock = Date.parse('2026-03-01T12:00:00Z');
const keys = new LocalApiKeys(() => clock);
const free = keys.issue('free');
const partner = keys.issue('partner');

const handler: LambdaHandler = async (event: APIGatewayProxyEvent) => ({
  statusCode: 200,
  headers: { 'Content-Type': 'application/json', Vary: 'Accept' },
  body: JSON.stringify({ path: event.path }),
});

let open: LocalServer;
let keyed: LocalServer;
let client: Client;
let openClient: Client;

beforeAll(async () => {
  keyed = await startLocalServer({ quiet: true, logErrors: false, handlers: async () => handler, apiKeys: keys });
  open = await startLocalServer({ quiet: true, logErrors: false, handlers: async () => handler });
  client = clientFor(keyed.url);
  openClient = clientFor(open.url);
});
afterAll(async () => {
  await keyed.close();
  await open.close();
});

const withKey = (key: string) => ({ headers: { 'x-api-key': key } });

const expectError = (response: Awaited<ReturnType<Client['get']>>, status: number, code: string) => {
  expect(response.status, response.text).toBe(status);
  const body = response.json<Record<string, string>>();
  expect(Object.keys(body).sort()).toEqual(['developerMessage', 'errorCode', 'moreInfo', 'userMessage']);
  expect(body.errorCode).toBe(code);
  expect(body.moreInfo).toBe(`${client.baseUrl}/v1/documentation/errors/${code}.html`);
  return body;
};

describe('the local server without --keys', () => {
  it('stays open: no key is asked for', async () => {
    expect((await openClient.get('/magazines')).status).toBe(200);
    expect((await openClient.get('/magazines', withKey('anything'))).status).toBe(200);
  });
});

describe('the local server with --keys', () => {
  it('refuses a request without a key, or with a key it never issued, with 403 40302 saying which', async () => {
    const missing = expectError(await client.get('/magazines'), 403, '40302');
    expect(missing.developerMessage).toMatch(/no `x-api-key` header/);
    const unknown = expectError(await client.get('/magazines', withKey('local-free-forged')), 403, '40302');
    expect(unknown.developerMessage).toMatch(/unknown or revoked/);
  });

  it("names its own address in moreInfo, not the client's Host header", async () => {
    expectError(await client.get('/magazines', { headers: { Host: 'evil.example' } }), 403, '40302');
  });

  it('leaves the documentation pages, /openapi.json and CORS preflight open', async () => {
    for (const path of [
      '/openapi.json',
      '/v1/documentation',
      '/documentation/errors/',
      '/v1/documentation/errors/40302.html',
    ])
      expect((await client.get(path)).status, path).toBe(200);
    expect((await client.request('OPTIONS', '/magazines')).status).toBe(204);
  });

  it("serves a burst of the plan's size, then 429 42901 with Retry-After until the bucket refills at the plan's rate", async () => {
    clock += 60_000;
    const { burst, rate } = usagePlans.free;
    for (let request = 0; request < burst; request += 1)
      expect((await client.get('/magazines', withKey(free))).status, `request ${request + 1}`).toBe(200);
    const throttled = await client.get('/magazines', withKey(free));
    expectError(throttled, 429, '42901');
    expect(throttled.headers['retry-after']).toBe('1');
    // Another key has a bucket of its own.
    expect((await client.get('/magazines', withKey(partner))).status).toBe(200);
    clock += 1000;
    for (let request = 0; request < rate; request += 1)
      expect((await client.get('/magazines', withKey(free))).status).toBe(200);
    expectError(await client.get('/magazines', withKey(free)), 429, '42901');
  });

  it("answers 429 42902 with Retry-After once the day's quota is used, and serves again the next UTC day", async () => {
    const { dailyQuota, rate } = usagePlans.free;
    clock = Date.parse('2026-03-02T00:00:00Z');
    for (let request = 0; request < dailyQuota; request += 1) {
      // A second apart at most `rate` requests: the bucket never empties, only the quota runs out.
      if (request % rate === 0) clock += 1000;
      expect(keys.check(free), `request ${request + 1}`).toBeUndefined();
    }
    const over = expectError(await client.get('/magazines', withKey(free)), 429, '42902');
    expect(over.developerMessage).toMatch(/5000 requests a day/);
    expect((await client.get('/magazines', withKey(free))).headers['retry-after']).toBe('3600');
    clock = Date.parse('2026-03-03T00:00:01Z');
    expect((await client.get('/magazines', withKey(free))).status).toBe(200);
  });
});
