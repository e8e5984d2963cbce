import { XMLValidator } from 'fast-xml-parser';
import { describe, expect, it, vi } from 'vitest';
import { lambdaContext } from '../../../local/lambda-context';
import { NotFound } from '../../../shared/domain/errors';
import type { Store } from '../../../shared/domain/store';
import { ApiError } from '../../../shared/http/errors';
import { created, document, ok } from '../../../shared/http/replies';
import { api } from '../../../shared/routes/api';
import { row as createMagazineRow } from '../../../shared/routes/rows/create-magazine';
import { row as getErrorPageRow } from '../../../shared/routes/rows/get-error-page';
import { row as getMagazineRow } from '../../../shared/routes/rows/get-magazine';
import { row as listMagazinesRow } from '../../../shared/routes/rows/list-magazines';
import { invoke, type ProxyHandler, proxyEvent } from '../../support/proxy-event';

/** A store whose every method fails: the operations under test here must not reach it unless they say so. */
const unused = new Proxy({} as Store, {
  get: (_, name) => () => {
    throw new Error(`store.${String(name)} was called`);
  },
});

const storesCreating = (real: string, mock: string) => ({
  real: () => ({ ...unused, createMagazine: async () => ({ id: real, replayed: false }) }) as Store,
  mock: { ...unused, createMagazine: async () => ({ id: mock, replayed: false }) } as Store,
});

/** POST /magazines, its store answering `x1` (or `mock-1` in mock), echoing the title into the Location. */
const echo = api(createMagazineRow, {
  stores: storesCreating('x1', 'mock-1'),
  run: async ({ body, links, store }) => {
    const { id } = await store.createMagazine({ id: undefined, title: body.title, tags: [], created: undefined });
    return created(id, links.to(`/magazines/${id}?title=${body.title}`));
  },
});

const reader = api(getMagazineRow, {
  stores: { real: () => unused, mock: unused },
  run: ({ params }) => {
    if (params.id === 'missing') throw new NotFound('magazine', 'missing');
    if (params.id === 'boom') throw new Error('DynamoDB table magazines-prod: PK MAG#boom exploded');
    return ok(
      { id: params.id, title: 'A & B <C>', tags: [{ id: 't', name: 'T' }] },
      { root: 'magazine', names: { tags: 'tag' } },
      { revision: 'rev1', lastModified: 1_700_000_000 },
    );
  },
});

const json = (headers: Record<string, string> = {}) => ({ 'Content-Type': 'application/json', ...headers });

describe('the shared middleware stack', () => {
  it("answers JSON as text/javascript for the API's own clients, with Vary: Accept", async () => {
    const res = await invoke(reader, {
      resource: '/magazines/{id}',
      params: { id: 'm1' },
      headers: { Accept: 'application/json, text/javascript' },
    });
    expect(res.status).toBe(200);
    expect(res.headers['Content-Type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers.Vary).toBe('Accept');
    expect(res.json).toEqual({ id: 'm1', title: 'A & B <C>', tags: [{ id: 't', name: 'T' }] });
  });

  it('lets the path label decide over the Accept header', async () => {
    const res = await invoke(reader, {
      resource: '/magazines/{id}',
      params: { id: 'm1.xml' },
      headers: { Accept: 'application/json' },
    });
    expect(res.headers['Content-Type']).toBe('application/xml; charset=utf-8');
    expect(XMLValidator.validate(res.body)).toBe(true);
    expect(res.body).toContain(
      '<magazine><id>m1</id><title>A &amp; B &lt;C&gt;</title><tags><tag><id>t</id><name>T</name></tag></tags></magazine>',
    );
  });

  it('refuses an unknown label with 406 in JSON', async () => {
    const res = await invoke(reader, { resource: '/magazines/{id}', params: { id: 'm1.yaml' } });
    expect(res.status).toBe(406);
    expect(res.headers['Content-Type']).toBe('text/javascript; charset=utf-8');
    const strict = await invoke(reader, {
      resource: '/magazines/{id}',
      params: { id: 'm1.yaml' },
      headers: { Accept: 'application/json' },
    });
    expect(strict.headers['Content-Type']).toBe('application/json; charset=utf-8');
    expect(res.json).toMatchObject({ errorCode: '40601', developerMessage: expect.stringContaining('.yaml') });
  });

  it("renders errors in the negotiated format with the API's error object", async () => {
    const res = await invoke(reader, {
      resource: '/api/v1/magazines/{id}',
      path: '/api/v1/magazines/missing.xml',
      params: { id: 'missing.xml' },
    });
    expect(res.status).toBe(404);
    expect(res.headers.Vary).toBe('Accept');
    expect(XMLValidator.validate(res.body)).toBe(true);
    expect(res.body).toContain('<error><developerMessage>No magazine has the id `missing`.</developerMessage>');
    expect(res.body).toContain('<moreInfo>https://api.example.com/v1/documentation/errors/40402.html</moreInfo>');
  });

  it('hides unexpected failures behind a 500 that names only the request id, and logs the cause', async () => {
    const log = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const res = await invoke(reader, { resource: '/magazines/{id}', params: { id: 'boom' } });
    expect(String(log.mock.calls[0]?.[0])).toContain('MAG#boom exploded');
    log.mockRestore();
    expect(res.status).toBe(500);
    expect(res.json).toMatchObject({ errorCode: '50001', developerMessage: expect.stringContaining('request-1') });
    expect(res.body).not.toMatch(/DynamoDB|PK|MAG#|magazines-prod|stack/);
  });

  it('sends ETag and Last-Modified, and 304 for a matching If-None-Match or If-Modified-Since', async () => {
    const first = await invoke(reader, { resource: '/magazines/{id}', params: { id: 'm1' } });
    expect(first.headers.ETag).toBe('"rev1-json"');
    expect(first.headers['Last-Modified']).toBe('Tue, 14 Nov 2023 22:13:20 GMT');
    const byTag = await invoke(reader, {
      resource: '/magazines/{id}',
      params: { id: 'm1' },
      headers: { 'If-None-Match': '"rev1-json"' },
    });
    expect(byTag.status).toBe(304);
    expect(byTag.body).toBe('');
    const byDate = await invoke(reader, {
      resource: '/magazines/{id}',
      params: { id: 'm1' },
      headers: { 'If-Modified-Since': 'Tue, 14 Nov 2023 22:13:20 GMT' },
    });
    expect(byDate.status).toBe(304);
    const stale = await invoke(reader, {
      resource: '/magazines/{id}',
      params: { id: 'm1' },
      headers: { 'If-None-Match': '"other-json"' },
    });
    expect(stale.status).toBe(200);
  });

  it.each([
    ['an IMF-fixdate', 'Tue, 14 Nov 2023 22:13:20 GMT', 304],
    ['an RFC 850 date', 'Tuesday, 14-Nov-23 22:13:20 GMT', 304],
    ['an asctime date', 'Tue Nov 14 22:13:20 2023', 304],
    ['a date in another zone, not an HTTP-date', 'Tue, 14 Nov 2023 22:13:20 PST', 200],
    ['a numeric zone, not an HTTP-date', 'Tue, 14 Nov 2023 23:13:20 +0100', 200],
    ['a date later than the server clock, not valid', 'Tue, 05 Nov 2126 22:13:20 GMT', 200],
  ])('If-Modified-Since the Last-Modified as %s (%s): %s', async (_, date, status) => {
    const res = await invoke(reader, {
      resource: '/magazines/{id}',
      params: { id: 'm1' },
      headers: { 'If-Modified-Since': date },
    });
    expect(res.status).toBe(status);
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const get = await invoke(reader, { resource: '/magazines/{id}', params: { id: 'm1' } });
    const head = await invoke(reader, { method: 'HEAD', resource: '/magazines/{id}', params: { id: 'm1' } });
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers).toEqual(get.headers);
  });

  it.each([
    ['text/plain', '{"title":"x"}', 415, '41501'],
    ['application/json', '{"title":', 400, '40003'],
    ['application/json', '', 400, '40011'],
    ['application/json', JSON.stringify({ title: 'x'.repeat(1024 * 1024) }), 413, '41301'],
    ['application/json', '{"title": 3}', 400, '40001'],
    ['application/json', '{"title": "x", "colour": "red"}', 400, '40002'],
  ])('refuses a %s body %#', async (contentType, body, status, code) => {
    const res = await invoke(echo, {
      method: 'POST',
      resource: '/magazines',
      headers: json({ 'Content-Type': contentType }),
      body,
    });
    expect(res.status).toBe(status);
    expect(res.json).toMatchObject({ errorCode: code });
  });

  it('never writes links from the Host header the client sent', async () => {
    const linker = api(createMagazineRow, {
      stores: storesCreating('x1', 'mock-1'),
      run: ({ links }) => created('x1', links.to('/magazines/x1')),
    });
    const event = proxyEvent({
      method: 'POST',
      resource: '/magazines',
      headers: { Host: 'evil.example' },
      body: { title: 'T' },
    });
    const { domainName: _, ...withoutDomain } = event.requestContext;
    const res = await (linker as unknown as ProxyHandler)(
      { ...event, requestContext: withoutDomain as typeof event.requestContext },
      lambdaContext('test-function', 'request-1'),
    );
    expect(res.statusCode).toBe(201);
    expect(String(res.headers?.Location)).not.toContain('evil.example');
  });

  it('accepts JSON under application/*+json and with no Content-Type', async () => {
    const vendor = await invoke(echo, {
      method: 'POST',
      resource: '/magazines',
      headers: { 'Content-Type': 'application/vnd.magazine+json; charset=utf-8' },
      body: { title: 'a' },
    });
    expect(vendor.status).toBe(201);
    const bare = await invoke(echo, { method: 'POST', resource: '/magazines', body: { title: 'a' } });
    expect(bare.status).toBe(201);
    expect(bare.headers.Location).toBe('https://api.example.com/v1/magazines/x1?title=a');
  });

  it('takes a gzip or deflate body as API Gateway hands it over, decoded, and refuses any other coding with 41502', async () => {
    const post = (coding: string) =>
      invoke(echo, {
        method: 'POST',
        resource: '/magazines',
        headers: { 'Content-Type': 'application/json', 'Content-Encoding': coding },
        body: { title: 'a' },
      });
    for (const coding of ['gzip', 'Deflate', 'identity']) expect((await post(coding)).status, coding).toBe(201);
    const refused = await post('br');
    expect(refused.status).toBe(415);
    expect(refused.json).toMatchObject({ errorCode: '41502' });
    expect(refused.headers['Accept-Encoding']).toBe('gzip, deflate, identity');
  });

  it('names the field and the query parameter that are wrong', async () => {
    const field = await invoke(echo, { method: 'POST', resource: '/magazines', headers: json(), body: { title: 7 } });
    expect(field.json?.developerMessage).toBe('Body field `title` must be a string of 1 to 256 characters.');
    const lister = api(listMagazinesRow, {
      stores: { real: () => unused, mock: unused },
      run: () => ok({}, { root: 'response' }),
    });
    const param = await invoke(lister, { resource: '/magazines', query: { limit: 'x' } });
    expect(param.json).toMatchObject({
      errorCode: '40004',
      developerMessage: 'Query parameter `limit` must be an integer from 1 to 100.',
    });
  });

  it('checks a mock request like a real one, then answers it with simulated data', async () => {
    const bad = await invoke(echo, {
      method: 'POST',
      resource: '/magazines',
      query: { mock: 'True' },
      headers: json(),
      body: { title: 1 },
    });
    expect(bad.status).toBe(400);
    const good = await invoke(echo, {
      method: 'POST',
      resource: '/magazines',
      query: { mock: 'true' },
      headers: json(),
      body: { title: 'a' },
    });
    expect(good.json).toEqual({ id: 'mock-1' });
    const off = await invoke(echo, {
      method: 'POST',
      resource: '/magazines',
      query: { mock: 'False' },
      headers: json(),
      body: { title: 'a' },
    });
    expect(off.json).toEqual({ id: 'x1' });
    const wrong = await invoke(echo, {
      method: 'POST',
      resource: '/magazines',
      query: { mock: 'yes' },
      headers: json(),
      body: { title: 'a' },
    });
    expect(wrong.json).toMatchObject({ errorCode: '40005' });
  });

  it('still answers with the error object, absolute moreInfo, Vary and CORS when rendering the error fails', async () => {
    const broken = api(getMagazineRow, {
      stores: { real: () => unused, mock: unused },
      run: () => {
        // Its headers cannot be read: rendering it fails.
        throw Object.defineProperty(new ApiError('40402'), 'headers', {
          get: () => {
            throw new Error('unreadable');
          },
        });
      },
    });
    const log = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const res = await invoke(broken, { resource: '/magazines/{id}', params: { id: 'm1' } });
    log.mockRestore();
    expect(res.status).toBe(500);
    expect(res.headers).toMatchObject({
      Vary: 'Accept',
      'Content-Type': 'application/json; charset=utf-8',
      'Access-Control-Allow-Origin': '*',
    });
    expect(res.json).toEqual({
      developerMessage: expect.stringContaining('request-1'),
      userMessage: expect.any(String),
      errorCode: '50001',
      moreInfo: 'https://api.example.com/v1/documentation/errors/50001.html',
    });
  });

  it('serves documents as they are, with an ETag', async () => {
    const page = api(getErrorPageRow, {
      run: () => document('text/html; charset=utf-8', '<!doctype html><title>x</title>'),
    });
    const res = await invoke(page, {
      resource: '/documentation/errors/{errorCode}',
      params: { errorCode: '40401.html' },
      headers: { Accept: 'text/html' },
    });
    expect(res.status).toBe(200);
    expect(res.headers['Content-Type']).toBe('text/html; charset=utf-8');
    expect(res.headers.ETag).toMatch(/^"[\w-]+"$/);
    expect(Date.parse(res.headers['Last-Modified'] ?? '')).toBeLessThanOrEqual(Date.now());
    const again = await invoke(page, {
      resource: '/documentation/errors/{errorCode}',
      params: { errorCode: '40401.html' },
      headers: { 'If-Modified-Since': res.headers['Last-Modified'] ?? '' },
    });
    expect(again.status).toBe(304);
  });
});
