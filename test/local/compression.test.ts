import { request as httpRequest } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { negotiateCoding } from '../../local/compression';
import type { LambdaHandler } from '../../local/load-handler';
import { type LocalServer, startLocalServer } from '../../local/server';
import { minimumCompressionBytes } from '../../shared/http/compression';

/** The real OpenAPI document (the API's largest answer), and a small answer beside it. */
const handlers: Record<string, () => Promise<LambdaHandler>> = {
  'get-openapi': async () => (await import('../../functions/get-openapi')).handler as LambdaHandler,
  'get-magazine': async () => async (event) => {
    const id = event.pathParameters?.id ?? '';
    // A body the function has encoded itself must reach the client untouched.
    if (id === 'encoded')
      return {
        statusCode: 200,
        headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'identity' },
        body: 'x'.repeat(minimumCompressionBytes * 2),
      };
    return { statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: id };
  },
};

let server: LocalServer;

beforeAll(async () => {
  server = await startLocalServer({
    quiet: true,
    logErrors: false,
    handlers: (name) => {
      const load = handlers[name];
      if (!load) throw new Error(`no handler ${name} in this test`);
      return load();
    },
  });
});

afterAll(() => server.close());

interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  /** The bytes as they came over the wire, not decoded. */
  readonly body: Buffer;
}

/** node:http rather than fetch, which would decompress the body before the test sees it. */
const rawGet = (path: string, headers: Record<string, string> = {}) =>
  new Promise<RawResponse>((resolve, reject) => {
    const req = httpRequest(`${server.url}${path}`, { headers: { Accept: 'application/json', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });

describe('compression by the local server, as API Gateway compresses', () => {
  it('sends the OpenAPI document gzipped, and it decompresses to exactly the bytes sent uncompressed', async () => {
    const plain = await rawGet('/openapi.json');
    const gzipped = await rawGet('/openapi.json', { 'Accept-Encoding': 'gzip' });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(Number(gzipped.headers['content-length'])).toBe(gzipped.body.length);
    expect(gzipped.body.length).toBeLessThan(plain.body.length / 5);
    expect(gunzipSync(gzipped.body).equals(plain.body)).toBe(true);
    // The headers the client reads besides the coding are the same.
    for (const header of ['content-type', 'vary', 'etag'])
      expect(gzipped.headers[header], header).toEqual(plain.headers[header]);
    // Both say their bytes depend on Accept-Encoding, so that no cache hands gzip to a client that did not ask.
    expect(plain.headers.vary).toBe('Accept, Accept-Encoding');
  });

  it('deflates for a client that prefers deflate, byte-identical once inflated', async () => {
    const plain = await rawGet('/openapi.json');
    const deflated = await rawGet('/openapi.json', { 'Accept-Encoding': 'deflate;q=1, gzip;q=0.5' });
    expect(deflated.headers['content-encoding']).toBe('deflate');
    expect(inflateSync(deflated.body).equals(plain.body)).toBe(true);
  });

  it('gzips for a browser that accepts gzip and br alike, and sends br-only clients the body whole, as API Gateway does', async () => {
    const plain = await rawGet('/openapi.json');
    const browser = await rawGet('/openapi.json', { 'Accept-Encoding': 'gzip, deflate, br, zstd' });
    expect(browser.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(browser.body).equals(plain.body)).toBe(true);
    // API Gateway's REST APIs compress with gzip and deflate only, and only when the client's first choice is one of them.
    const brOnly = await rawGet('/openapi.json', { 'Accept-Encoding': 'br' });
    expect(brOnly.headers['content-encoding']).toBeUndefined();
    expect(brOnly.body.equals(plain.body)).toBe(true);
    expect(() => brotliDecompressSync(brOnly.body)).toThrow();
    const brFirst = await rawGet('/openapi.json', { 'Accept-Encoding': 'br;q=1, gzip;q=0.8' });
    expect(brFirst.headers['content-encoding']).toBeUndefined();
  });

  it(`leaves answers under ${minimumCompressionBytes} bytes (API Gateway's minimumCompressionSize) and HEAD uncompressed`, async () => {
    const small = await rawGet('/magazines/small', { 'Accept-Encoding': 'gzip' });
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.body.toString()).toBe('small');
    const head = await new Promise<RawResponse>((resolve, reject) => {
      const req = httpRequest(
        `${server.url}/openapi.json`,
        { method: 'HEAD', headers: { 'Accept-Encoding': 'gzip' } },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.alloc(0) }));
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(head.status).toBe(200);
    expect(head.headers['content-encoding']).toBeUndefined();
  });

  it('never encodes again what the function has encoded itself', async () => {
    const response = await rawGet('/magazines/encoded', { 'Accept-Encoding': 'gzip' });
    expect(response.headers['content-encoding']).toBe('identity');
    expect(response.body.toString()).toBe('x'.repeat(minimumCompressionBytes * 2));
  });
});

describe('the coding API Gateway picks from Accept-Encoding', () => {
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['gzip', 'gzip'],
    ['GZIP', 'gzip'],
    ['deflate', 'deflate'],
    ['*', 'gzip'],
    ['identity', undefined],
    ['br', undefined],
    ['gzip;q=0', undefined],
    ['gzip;q=0.2, identity', undefined],
    ['identity;q=0.1, gzip', 'gzip'],
    ['br, gzip', 'gzip'],
    ['br;q=0.9, deflate;q=0.9, gzip;q=0.1', 'deflate'],
  ] as const)('%j → %s', (header, coding) => {
    expect(negotiateCoding(header)).toBe(coding);
  });
});
