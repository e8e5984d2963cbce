import { describe, expect, it } from 'vitest';
import {
  articleBody,
  expectError,
  expectNoInternalNames,
  expectTableUnchanged,
  magazineBody,
  useLocalApi,
} from './expect-api';

let articleId: string;

const local = useLocalApi(undefined, async () => {
  expect((await local.client.post('/magazines', magazineBody({ id: 'e1', tags: [{ name: 'Science' }] }))).status).toBe(
    201,
  );
  const article = await local.client.post('/magazines/e1/articles', articleBody());
  expect(article.status).toBe(201);
  articleId = article.json<{ id: string }>().id;
});

const allowOf = (header: string | undefined) =>
  (header ?? '')
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean)
    .sort();

describe('unknown paths: 404 with the error object', () => {
  it('/magazine suggests /magazines', async () => {
    expectError(await local.client.get('/magazine'), {
      status: 404,
      baseUrl: local.api.baseUrl,
      mentions: ['/magazines'],
    });
  });

  it.each([
    ['/v1/magazine', '/v1'],
    ['/api/v1/magazine', '/api/v1'],
  ])('%s (an existing version) suggests the path under that version', async (path, prefix) => {
    const error = expectError(await local.client.get(path), {
      status: 404,
      baseUrl: local.api.baseUrl,
      mentions: [`${prefix}/magazines`],
    });
    expect(error?.developerMessage).not.toMatch(/does not exist.*v1|v1.*does not exist/);
  });

  it.each(['/nothing-here', '/magazines/e1/articles/extra/deep', '/articles', '/v1'])('%s', async (path) => {
    expectError(await local.client.get(path), { status: 404, baseUrl: local.api.baseUrl });
  });

  it.each(['/v2/magazines', '/api/v7/magazines', '/v0/magazines/e1'])(
    '%s names the versions that exist',
    async (path) => {
      expectError(await local.client.get(path), { status: 404, baseUrl: local.api.baseUrl, mentions: ['v1'] });
    },
  );

  // Found by the hostile-request property: a path that does not exist is what the client must
  // learn first, not that its Accept fits no format or that its `mock` value is not one.
  it('an unknown path stays a 404 (in JSON) whatever the Accept header', async () => {
    const response = await local.client.get('/nothing-here', { headers: { Accept: 'image/png' } });
    expectError(response, { status: 404, baseUrl: local.api.baseUrl, format: 'json' });
  });

  it('an unknown path stays a 404 with a mock value that is none', async () => {
    expectError(await local.client.get('/nothing-here?mock=maybe'), { status: 404, baseUrl: local.api.baseUrl });
  });

  // Found by the hostile-request property: a tag id too long for a DynamoDB key made DynamoDB refuse the read (500).
  it.each([
    ['GET', 'of 1,500 characters', `/tags/${'b'.repeat(1500)}/magazines`],
    ['HEAD', 'of 1,500 characters', `/tags/${'b'.repeat(1500)}/magazines`],
    ['GET', 'with a `~`', '/tags/a~b/magazines'],
  ])('%s /tags/{tagId}/magazines with a tag id %s, which no tag can have: 404', async (method, _, path) => {
    const response = await local.client.request(method, path);
    expectError(response, { status: 404, baseUrl: local.api.baseUrl, head: method === 'HEAD' });
  });

  it('a POST to an unknown path writes nothing', async () => {
    const response = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
      local.client.post('/magazine', magazineBody({ id: 'never' })),
    );
    expectError(response, { status: 404, baseUrl: local.api.baseUrl });
  });
});

describe('labels on paths outside the routes', () => {
  it.each(['/magazines.yaml', '/api/v1/tags.csv', '/v1/magazines/x1/articles.html'])(
    '%s: 406, the label is no format of the API',
    async (path) => {
      expectError(await local.client.get(path), { status: 406, baseUrl: local.api.baseUrl, mentions: ['.'] });
    },
  );

  it('an unknown path with an .xml label answers its 404 in XML', async () => {
    const response = await local.client.get('/magazines/x1/articls.xml');
    expectError(response, { status: 404, baseUrl: local.api.baseUrl, format: 'xml' });
  });

  it('an unknown path with an unknown label is still a 404', async () => {
    expectError(await local.client.get('/magazine.yaml'), {
      status: 404,
      baseUrl: local.api.baseUrl,
      mentions: ['/magazines'],
    });
  });
});

describe('labels where the routes take none', () => {
  // Labels end GET/HEAD paths and the article POST only: elsewhere `.json` is part of the id, as API Gateway hands it over.
  it('PUT /magazines/e1.json: the id `e1.json` is refused (400), e1 is not replaced', async () => {
    const response = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
      local.client.put('/magazines/e1.json', { title: 'Through a label' }),
    );
    expect(expectError(response, { status: 400, baseUrl: local.api.baseUrl })?.errorCode).toBe('40013');
  });

  it('DELETE /magazines/e1.xml: no magazine has the id `e1.xml` (404, in JSON), e1 stays', async () => {
    const response = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
      local.client.delete('/magazines/e1.xml'),
    );
    expectError(response, { status: 404, baseUrl: local.api.baseUrl });
    expect((await local.client.get('/magazines/e1')).status).toBe(200);
  });
});

describe('known paths with a method they do not support: 405 with Allow', () => {
  it.each([
    ['PATCH', '/magazines', ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT']],
    ['POST', '/magazines/e1', ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PUT']],
    ['DELETE', '/tags', ['GET', 'HEAD', 'OPTIONS']],
    ['PUT', '/tags/science', ['GET', 'HEAD', 'OPTIONS']],
    ['DELETE', '/magazines/e1/articles', ['GET', 'HEAD', 'OPTIONS', 'POST']],
    ['PUT', `/articles/ART`, ['GET', 'HEAD', 'OPTIONS']],
    // A label belongs to GET/HEAD paths (and the POST of articles): /magazines.json is read-only.
    ['PATCH', '/api/v1/magazines.json', ['GET', 'HEAD', 'OPTIONS']],
    ['POST', '/api/v1/magazines.json', ['GET', 'HEAD', 'OPTIONS']],
    ['PUT', '/magazines/e1/articles.json', ['GET', 'HEAD', 'OPTIONS', 'POST']],
    ['POST', '/v1/tags/science/magazines', ['GET', 'HEAD', 'OPTIONS']],
    // Documents are named `.html` and `.json`: those are their names, not format labels.
    ['PATCH', '/v1/documentation/errors/40401.html', ['GET', 'HEAD', 'OPTIONS']],
    ['DELETE', '/openapi.json', ['GET', 'HEAD', 'OPTIONS']],
  ])('%s %s', async (method, path, allow) => {
    const target = path.replace('ART', articleId);
    const response = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
      local.client.request(method, target, { json: { title: 'x' } }),
    );
    expectError(response, { status: 405, baseUrl: local.api.baseUrl, mentions: [method] });
    expect(allowOf(response.headers.allow)).toEqual(allow);
  });

  it('a method a path does not support stays a 405 with Allow whatever the Accept header or mock value', async () => {
    for (const [path, headers] of [
      ['/magazines/e1', { Accept: 'image/png' }],
      ['/magazines/e1?mock=maybe', {}],
    ] as const) {
      const response = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
        local.client.request('POST', path, { json: { title: 'x' }, headers }),
      );
      expectError(response, { status: 405, baseUrl: local.api.baseUrl, mentions: ['POST'] });
      expect(allowOf(response.headers.allow)).toEqual(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PUT']);
    }
  });

  it('the magazine a refused POST /magazines/{id} named is unchanged', async () => {
    expect((await local.client.get('/magazines/e1')).status).toBe(200);
    expect((await local.client.get(`/articles/${articleId}`)).status).toBe(200);
  });
});

describe('error documentation', () => {
  it('moreInfo of an error resolves to an HTML page about that error', async () => {
    const error = (await local.client.get('/magazines?limit=0')).json<{ moreInfo: string; errorCode: string }>();
    const url = new URL(error.moreInfo);
    const page = await local.client.get(url.pathname, { headers: { Accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain(error.errorCode);
  });

  it('the error index lists the codes', async () => {
    const page = await local.client.get('/documentation/errors/', { headers: { Accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('40401');
  });

  it('an undocumented code answers 404 with the error object', async () => {
    const response = await local.client.get('/documentation/errors/99999.html', { headers: { Accept: 'text/html' } });
    expect(response.headers['content-type']).toMatch(/^(text\/javascript|application\/json); charset=utf-8$/);
    expectError(response, {
      status: 404,
      baseUrl: local.api.baseUrl,
      mentions: ['99999'],
      contentType: response.headers['content-type'],
    });
  });
});

describe('no internal names in any answer', () => {
  it.each([
    ['GET', '/magazines'],
    ['GET', '/magazines.xml'],
    ['GET', '/magazines/e1'],
    ['GET', '/magazines/e1/articles'],
    ['GET', '/tags'],
    ['GET', '/tags/science'],
    ['GET', '/tags/science/magazines.xml'],
    ['GET', '/magazines/missing'],
    ['GET', '/magazines/missing.xml'],
    ['GET', '/magazines/missing/articles'],
    ['GET', '/articles/missing'],
    ['GET', '/tags/missing/magazines'],
    ['GET', '/magazines?offset=99999999'],
    ['GET', `/magazines/${'%FF'.repeat(3)}`],
    ['GET', '/magazines?tag=x%00y'],
    ['POST', '/magazines'],
    ['DELETE', '/magazines/missing'],
    ['PUT', '/magazines/e1'],
  ])('%s %s', async (method, path) => {
    const body =
      method === 'POST'
        ? { id: 'e1', title: 'dup' }
        : method === 'PUT'
          ? { title: 'x', tags: [{ name: '' }] }
          : undefined;
    const response = await local.client.request(method, path, body === undefined ? {} : { json: body });
    expect(response.status).toBeLessThan(500);
    expectNoInternalNames(response, local.api.tableName);
  });
});
