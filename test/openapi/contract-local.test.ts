import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractProblems, expectMatchesContract, requestProblems } from '../support/contract';
import { type Client, clientFor, type HttpResponse, type RequestOptions, send } from '../support/http';
import { type LocalApi, startLocalApi } from '../support/local-api';

/**
 * The local API (real handlers on DynamoDB Local) answers as the OpenAPI document says: JSON and
 * XML, success and error; and every `moreInfo` it returns leads to an HTML page.
 */

let api: LocalApi;
let client: Client;
const moreInfo = new Set<string>();

const checked = async (method: string, path: string, options?: RequestOptions): Promise<HttpResponse> => {
  const response = await send(api.baseUrl, method, path, options);
  const { value } = expectMatchesContract({
    method,
    path,
    status: response.status,
    headers: response.headers,
    body: response.text,
  });
  if (typeof value === 'object' && value !== null && 'moreInfo' in value) moreInfo.add(String(value.moreInfo));
  return response;
};

beforeAll(async () => {
  api = await startLocalApi();
  client = clientFor(api.baseUrl);
  await client.post('/magazines', {
    id: 'contract-mag',
    title: 'Contract Monthly',
    tags: [{ name: 'Science' }, { name: 'Café Culture' }],
    created: '1704067200',
  });
});

afterAll(async () => {
  await api?.close();
});

describe('responses of the local API match the OpenAPI document', () => {
  it('lists, reads and writes in JSON', async () => {
    expect((await checked('GET', '/magazines')).status).toBe(200);
    expect(
      (await checked('GET', '/v1/magazines.json?limit=1&sort=desc', { headers: { Accept: 'application/json' } }))
        .status,
    ).toBe(200);
    expect((await checked('GET', '/api/v1/magazines/contract-mag?fields=title')).status).toBe(200);
    expect((await checked('HEAD', '/magazines/contract-mag')).status).toBe(200);
    expect((await checked('POST', '/v1/magazines', { json: { title: 'Second Contract' } })).status).toBe(201);
    expect((await checked('PUT', '/magazines/contract-put', { json: { title: 'Put Contract' } })).status).toBe(201);
    expect((await checked('PUT', '/magazines/contract-put', { json: { title: 'Put Contract, again' } })).status).toBe(
      200,
    );
    const article = await checked('POST', '/magazines/contract-mag/articles', {
      json: {
        title: 'On Contracts',
        author_first_name: 'Ada',
        author_last_name: 'Lovelace',
        author_email: 'ada@example.org',
        date: '2024-02-29',
        text: 'Text.',
      },
    });
    expect(article.status).toBe(201);
    const location = new URL(article.headers.location!).pathname;
    expect((await checked('GET', location)).status).toBe(200);
    expect((await checked('GET', '/magazines/contract-mag/articles')).status).toBe(200);
    expect((await checked('GET', '/tags')).status).toBe(200);
    expect((await checked('GET', '/tags/science')).status).toBe(200);
    expect((await checked('GET', '/tags/science/magazines')).status).toBe(200);
    expect((await checked('DELETE', '/magazines/contract-put')).status).toBe(200);
  });

  it('reads in XML, by label, format and Accept', async () => {
    expect((await checked('GET', '/magazines.xml')).status).toBe(200);
    expect((await checked('GET', '/v1/magazines/contract-mag.xml')).status).toBe(200);
    expect((await checked('GET', '/api/v1/magazines/contract-mag/articles.xml')).status).toBe(200);
    expect((await checked('GET', '/tags.xml?format=json')).status).toBe(200);
    expect((await checked('GET', '/tags/science', { headers: { Accept: 'application/xml' } })).status).toBe(200);
    expect((await checked('GET', '/tags/science/magazines?format=xml&fields=tags')).status).toBe(200);
  });

  it('answers conditional requests with a documented 304', async () => {
    const first = await checked('GET', '/magazines/contract-mag');
    const again = await checked('GET', '/magazines/contract-mag', {
      headers: { 'If-None-Match': first.headers.etag! },
    });
    expect(again.status).toBe(304);
  });

  it('reports errors in JSON and XML with documented codes', async () => {
    expect((await checked('GET', '/magazines/missing-one')).status).toBe(404);
    expect((await checked('GET', '/magazines/missing-one.xml')).status).toBe(404);
    expect((await checked('GET', '/magazines?limit=1000')).status).toBe(400);
    expect((await checked('GET', '/magazines.xml?year=24')).status).toBe(400);
    expect((await checked('GET', '/magazines', { headers: { Accept: 'image/png' } })).status).toBe(406);
    expect(
      (await checked('POST', '/magazines', { json: { title: 'Contract Monthly', id: 'contract-mag' } })).status,
    ).toBe(405);
    expect((await checked('POST', '/magazines?format=xml', { json: { title: '' } })).status).toBe(400);
    expect(
      (await checked('POST', '/v1/magazines/contract-mag/articles.xml', { json: { title: 'No author' } })).status,
    ).toBe(400);
    expect(
      (await checked('POST', '/magazines', { body: 'not json', headers: { 'Content-Type': 'application/json' } }))
        .status,
    ).toBe(400);
    expect(
      (await checked('POST', '/magazines', { body: '<magazine/>', headers: { 'Content-Type': 'application/xml' } }))
        .status,
    ).toBe(415);
    expect(
      (await checked('PUT', '/magazines/contract-mag', { json: { title: 'X' }, headers: { 'If-Match': '"stale"' } }))
        .status,
    ).toBe(412);
    expect((await checked('GET', '/magazines?mock=maybe')).status).toBe(400);
    expect((await checked('GET', '/v1/documentation/errors/12345.html')).status).toBe(404);
  });

  it('takes the year and the article dates its document admits, and refuses those it does not', async () => {
    const article = (date: string) => ({
      title: 'Dated',
      author_first_name: 'Ada',
      author_last_name: 'Lovelace',
      author_email: 'ada@example.org',
      date,
      text: 'Text.',
    });
    const requests: [string, string, object | undefined][] = [
      ...['1000', '2024', '9999', '0000', '0999', '999', '20240', '+999'].map((year): [string, string, undefined] => [
        'GET',
        `/magazines?year=${encodeURIComponent(year)}`,
        undefined,
      ]),
      ...['0000-01-01', '0096-02-29', '2024-02-29', '0099-02-29', '2023-02-29', '2024-04-31', '2024-13-01'].map(
        (date): [string, string, object] => ['POST', '/magazines/contract-mag/articles', article(date)],
      ),
    ];
    for (const [method, path, json] of requests) {
      const { status } = await checked(method, path, json && { json });
      const problems = requestProblems({ method, path, ...(json && { body: JSON.stringify(json) }) });
      expect({ path, json, taken: status < 400 }).toEqual({ path, json, taken: problems.length === 0 });
    }
  });

  it('answers unknown paths and methods with the documented 404 and 405', async () => {
    expect((await checked('GET', '/magazine')).status).toBe(404);
    expect((await checked('GET', '/v2/magazines')).status).toBe(404);
    const patch = await checked('PATCH', '/magazines');
    expect(patch.status).toBe(405);
    expect(patch.headers.allow).toContain('GET');
  });

  it('answers an unknown format label with the 406 the labelled operation documents', async () => {
    for (const path of ['/magazines.yaml', '/v1/magazines/contract-mag.yaml', '/api/v1/tags.yaml']) {
      const response = await send(api.baseUrl, 'GET', path);
      expect(response.status).toBe(406);
      const match = expectMatchesContract({
        method: 'GET',
        path,
        status: response.status,
        headers: response.headers,
        body: response.text,
      });
      expect(match.template, path).toMatch(/\.\{format\}$/);
      expect(match.value).toMatchObject({ errorCode: '40601' });
    }
  });

  it('answers a label on a path that takes none with 404, and one in capitals with a 406 in JSON that says so', async () => {
    for (const path of ['/documentation.json', '/v1/documentation/errors.xml', '/openapi.json.json']) {
      const response = await checked('GET', path);
      expect(response.status, path).toBe(404);
      expect(response.text, path).toContain('40401');
    }
    for (const path of ['/magazines.JSON', '/magazines/astro.XML']) {
      const capitals = await send(api.baseUrl, 'GET', path, { headers: { Accept: 'application/xml' } });
      expect(capitals.status, path).toBe(406);
      expect(capitals.headers['content-type'], path).toMatch(/^(text\/javascript|application\/json); charset=utf-8$/);
      expect(capitals.json<{ developerMessage: string }>().developerMessage, path).toContain('in lower case');
    }
  });

  it('serves mock data that matches the document', async () => {
    expect((await checked('GET', '/magazines?mock=True&limit=3')).status).toBe(200);
    expect((await checked('GET', '/magazines/anything.xml?mock')).status).toBe(200);
    expect((await checked('GET', '/tags?mock=1')).status).toBe(200);
  });

  it('serves the documentation documented: reference, error index, OpenAPI document', async () => {
    expect((await checked('GET', '/v1/documentation')).status).toBe(200);
    expect((await checked('GET', '/v1/documentation/errors/')).status).toBe(200);
    expect((await checked('GET', '/api/v1/openapi.json')).status).toBe(200);
  });

  it('flags a response that breaks the document', () => {
    const problems = contractProblems({
      method: 'GET',
      path: '/magazines/abc.xml',
      status: 200,
      headers: { 'Content-Type': 'application/xml; charset=utf-8', Vary: 'Accept', ETag: '"x"' },
      body: '<?xml version="1.0" encoding="UTF-8"?>\n<magazine><title>No id</title><color>red</color></magazine>',
    });
    expect(problems.join('\n')).toMatch(/must have required property 'id'|anyOf/);
    expect(contractProblems({ method: 'GET', path: '/magazines', status: 418, headers: {}, body: '' })[0]).toMatch(
      /documents no 418/,
    );
  });

  it('returns moreInfo links that all resolve to HTML pages', async () => {
    expect(moreInfo.size).toBeGreaterThan(5);
    for (const url of moreInfo) {
      const path = new URL(url).pathname;
      expect(url.startsWith(api.baseUrl)).toBe(true);
      const page = await checked('GET', path, { headers: { Accept: 'text/html' } });
      expect(page.status, url).toBe(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    }
  });
});
