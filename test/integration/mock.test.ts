import { describe, expect, it } from 'vitest';
import {
  type ArticleView,
  articleBody,
  type Envelope,
  expectArticleShape,
  expectEnvelopeShape,
  expectError,
  expectMagazineShape,
  expectTableUnchanged,
  JSON_TYPE,
  type MagazineView,
  magazineBody,
  parseXml,
  sortedKeys,
  useLocalApi,
  XML_TYPE,
} from './expect-api';

const local = useLocalApi(undefined, async () => {
  expect((await local.client.post('/magazines', magazineBody({ id: 'real', title: 'Real One' }))).status).toBe(201);
  expect((await local.client.post('/magazines/real/articles', articleBody())).status).toBe(201);
});

/** Runs `action` and expects the table not to have changed (mock never writes). */
const untouched = <T>(action: () => Promise<T>) =>
  expectTableUnchanged(local.api.documentClient, local.api.tableName, action);

const mockList = async (query: string) => {
  const response = await local.client.get(`/magazines?mock=True${query}`);
  expect(response.status, response.text).toBe(200);
  const envelope = response.json<Envelope<MagazineView>>();
  expectEnvelopeShape(envelope);
  return envelope;
};

describe('the mock switch', () => {
  it.each(['?mock=True', '?mock=true', '?mock=TRUE', '?mock=1', '?mock=', '?mock'])(
    '%s turns mock on: an id that does not exist still answers 200',
    async (query) => {
      const response = await local.client.get(`/magazines/does-not-exist${query}`);
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe(JSON_TYPE);
      const magazine = response.json<MagazineView>();
      expectMagazineShape(magazine);
      expect(magazine.id).toBe('does-not-exist');
    },
  );

  it.each(['?mock=False', '?mock=false', '?mock=0'])(
    '%s leaves mock off: real data, so 404 for an unknown id and 200 for a real one',
    async (query) => {
      expect((await local.client.get(`/magazines/does-not-exist${query}`)).status).toBe(404);
      expect((await local.client.get(`/magazines/real${query}`)).json<MagazineView>().title).toBe('Real One');
    },
  );

  it.each(['yes', '2', 'on', 'truthy'])('mock=%s: 400 naming mock', async (value) => {
    expectError(await local.client.get(`/magazines?mock=${value}`), {
      status: 400,
      baseUrl: local.api.baseUrl,
      mentions: ['mock'],
    });
  });
});

describe('mock requests are checked like real ones', () => {
  it('bad query parameters', async () => {
    expectError(await local.client.get('/magazines?mock=True&limit=0'), {
      status: 400,
      baseUrl: local.api.baseUrl,
      mentions: ['limit'],
    });
    expectError(await local.client.get('/magazines?mock=True&year=20x4'), {
      status: 400,
      baseUrl: local.api.baseUrl,
      mentions: ['year'],
    });
    expectError(await local.client.get('/magazines/x/articles?mock=True&sort=up'), {
      status: 400,
      baseUrl: local.api.baseUrl,
      mentions: ['sort'],
    });
  });

  it('bad bodies, and nothing is written', async () => {
    expectError(await untouched(() => local.client.post('/magazines?mock=True', { title: '' })), {
      status: 400,
      baseUrl: local.api.baseUrl,
      mentions: ['title'],
    });
    expectError(await untouched(() => local.client.post('/magazines?mock=True', { title: 'x', extra: 1 })), {
      status: 400,
      baseUrl: local.api.baseUrl,
      mentions: ['extra'],
    });
    expectError(await untouched(() => local.client.put('/magazines/real?mock=True', { id: 'other', title: 'x' })), {
      status: 400,
      baseUrl: local.api.baseUrl,
      mentions: ['id'],
    });
    expectError(await untouched(() => local.client.put('/magazines?mock=True', { not: 'an array' })), {
      status: 400,
      baseUrl: local.api.baseUrl,
    });
    expectError(
      await untouched(() =>
        local.client.post('/magazines/real/articles?mock=True', articleBody({ date: '2023-02-30' })),
      ),
      { status: 400, baseUrl: local.api.baseUrl, mentions: ['date'] },
    );
  });

  it('media type, syntax and format', async () => {
    expectError(
      await untouched(() =>
        local.client.post('/magazines?mock=True', undefined, {
          body: '{"title":"x"}',
          headers: { 'Content-Type': 'text/plain' },
        }),
      ),
      { status: 415, baseUrl: local.api.baseUrl },
    );
    expectError(
      await untouched(() =>
        local.client.post('/magazines?mock=True', undefined, {
          body: '{"title":',
          headers: { 'Content-Type': 'application/json' },
        }),
      ),
      { status: 400, baseUrl: local.api.baseUrl },
    );
    const yaml = await local.client.get('/magazines/x.yaml?mock=True');
    expectError(yaml, { status: 406, baseUrl: local.api.baseUrl, contentType: yaml.headers['content-type'] });
  });

  it('unknown paths and methods', async () => {
    expectError(await local.client.get('/magazine?mock=True'), { status: 404, baseUrl: local.api.baseUrl });
    expectError(await local.client.request('PATCH', '/magazines?mock=True'), {
      status: 405,
      baseUrl: local.api.baseUrl,
    });
  });
});

describe('mock touches no data', () => {
  it('POST /magazines: 201 with an id and Location, nothing created', async () => {
    const response = await untouched(() =>
      local.client.post('/magazines?mock=True', magazineBody({ id: 'mocked-new' })),
    );
    expect(response.status).toBe(201);
    expect(response.json()).toEqual({ id: 'mocked-new' });
    // Its link leads to the mock data it was "made" in, as list links keep `mock`.
    expect(response.headers.location).toBe(`${local.api.baseUrl}/v1/magazines/mocked-new?mock=True`);
    const followed = await local.client.get(`${new URL(response.headers.location!).pathname}?mock=True`);
    expect(followed.status).toBe(200);
    expect(followed.json<MagazineView>().id).toBe('mocked-new');
    expect((await local.client.get('/magazines/mocked-new')).status).toBe(404);
  });

  it('POST /magazines with an id that exists: no existence check, nothing written', async () => {
    const response = await untouched(() =>
      local.client.post('/magazines?mock=True', magazineBody({ id: 'real', title: 'Overwritten?' })),
    );
    expect(response.status).toBe(201);
    expect((await local.client.get('/magazines/real')).json<MagazineView>().title).toBe('Real One');
  });

  it('POST an article (simulated only): 201 with an id, no article created, even for a magazine that does not exist', async () => {
    const response = await untouched(() =>
      local.client.post('/api/v1/magazines/real/articles.json?mock=True', articleBody()),
    );
    expect(response.status).toBe(201);
    const { id } = response.json<{ id: string }>();
    expect(typeof id).toBe('string');
    expect(response.headers.location).toBe(`${local.api.baseUrl}/v1/articles/${id}?mock=True`);
    expect((await local.client.get(`/articles/${id}?mock=True`)).status).toBe(200);
    expect((await local.client.get(`/articles/${id}`)).status).toBe(404);
    expect(
      (await local.client.get('/magazines/real/articles')).json<Envelope<ArticleView>>().metadata.resultset.count,
    ).toBe(1);
    expect(
      (await untouched(() => local.client.post('/magazines/ghost/articles?mock=True', articleBody()))).status,
    ).toBe(201);
  });

  it('PUT /magazines/{id}, PUT /magazines, DELETE /magazines/{id}, DELETE /magazines: success answers, nothing changed', async () => {
    const put = await untouched(() => local.client.put('/magazines/real?mock=True', { title: 'Changed?' }));
    expect(put.status).toBe(200);
    expect(put.json()).toEqual({ id: 'real' });
    const putAll = await untouched(() => local.client.put('/magazines?mock=True', [{ id: 'only', title: 'Only' }]));
    expect(putAll.status).toBe(200);
    expect(putAll.json()).toEqual({ id: 'magazines' });
    const del = await untouched(() => local.client.delete('/magazines/real?mock=True'));
    expect(del.status).toBe(200);
    expect(del.json()).toEqual({ id: 'real' });
    expect((await untouched(() => local.client.delete('/magazines/ghost?mock=True'))).status).toBe(200);
    const delAll = await untouched(() => local.client.delete('/magazines?mock=True'));
    expect(delAll.status).toBe(200);
    expect(delAll.json()).toEqual({ id: 'magazines' });
    expect((await local.client.get('/magazines/real')).json<MagazineView>().title).toBe('Real One');
    expect((await local.client.get('/magazines')).json<Envelope<MagazineView>>().metadata.resultset.count).toBe(1);
  });

  it('reads answer without looking: unknown magazines, articles and tags answer 200 of the real shape', async () => {
    const articles = await local.client.get('/magazines/ghost/articles?mock=True');
    expect(articles.status).toBe(200);
    const envelope = articles.json<Envelope<ArticleView>>();
    expectEnvelopeShape(envelope);
    expect(envelope.results.length).toBeGreaterThan(0);
    for (const article of envelope.results) {
      expectArticleShape(article);
      expect(article.magazine_id).toBe('ghost');
    }
    const article = await local.client.get('/articles/ghost~x1~3?mock=True');
    expect(article.status).toBe(200);
    expectArticleShape(article.json());
    expect(article.json<ArticleView>().magazine_id).toBe('ghost');
    // An article as a mock list shows it reads back the same.
    const listed = envelope.results[0]!;
    expect((await local.client.get(`/articles/${listed.id}?mock=True`)).json()).toEqual(listed);
    expect((await local.client.get('/tags/ghost-tag?mock=True')).status).toBe(200);
    expect((await local.client.get('/tags/ghost-tag/magazines?mock=True')).status).toBe(200);
    expect((await local.client.get('/tags?mock=True')).status).toBe(200);
  });

  it("a tag's count is the number of magazines listed under it, for a tag the mock data has and for any other", async () => {
    for (const tag of ['science', 'ghost-tag', 'another-one']) {
      const count = (await local.client.get(`/tags/${tag}?mock=True`)).json<{ magazine_count: number }>()
        .magazine_count;
      expect(count, tag).toBeGreaterThan(0);
      const listed = (await local.client.get(`/tags/${tag}/magazines?mock=True&limit=100`)).json<
        Envelope<MagazineView>
      >();
      expect(listed.metadata.resultset.count, tag).toBe(count);
      expect(listed.results, tag).toHaveLength(count);
      for (const magazine of listed.results)
        expect(
          magazine.tags.map((t) => t.id),
          tag,
        ).toContain(tag);
      const filtered = (await local.client.get(`/magazines?tag=${tag}&mock=True`)).json<Envelope<MagazineView>>();
      expect(filtered.metadata.resultset.count, tag).toBe(count);
    }
  });

  // Found by the hostile-request property: mock simulated a magazine `beta-2.`, an id no magazine can have.
  it.each([
    ['GET', '/v1/magazines/beta-2.?mock=True'],
    ['GET', '/magazines/%E2%98%83?mock=True'],
    ['GET', '/magazines/-x/articles.json?mock=True'],
    ['POST', '/magazines/-x/articles?mock=True'],
    ['DELETE', '/magazines/a~b?mock=True'],
    ['GET', '/tags/a%20b?mock=True'],
    ['GET', '/articles/bad%20id?mock=True'],
    ['GET', '/articles/ghost-article?mock=True'],
    ['HEAD', '/articles/x~y~0?mock=True'],
  ])('%s %s: an id that no resource can have answers 404, as a real request does', async (method, path) => {
    const response = await untouched(() =>
      local.client.request(method, path, method === 'POST' ? { json: articleBody() } : {}),
    );
    expectError(response, { status: 404, baseUrl: local.api.baseUrl, head: method === 'HEAD' });
    const real = path.replace('?mock=True', '');
    expect((await local.client.request(method, real, method === 'POST' ? { json: articleBody() } : {})).status).toBe(
      404,
    );
  });

  it('mock lists are not the stored data', async () => {
    const envelope = await mockList('&limit=100');
    expect(envelope.results.map((m) => m.id)).not.toContain('real');
  });
});

describe('mock data', () => {
  it('is deterministic: the same request gives the same body', async () => {
    for (const path of [
      '/magazines?mock=True&limit=7&offset=2',
      '/magazines/abc?mock=True',
      '/magazines/abc/articles?mock=True',
      '/tags?mock=True',
      '/magazines.xml?mock=True',
    ]) {
      const first = await local.client.get(path);
      const second = await local.client.get(path);
      expect(first.status).toBe(200);
      expect(second.text, path).toBe(first.text);
    }
    const a = await local.client.post('/magazines/abc/articles?mock=True', articleBody());
    const b = await local.client.post('/magazines/abc/articles?mock=True', articleBody());
    expect(b.json()).toEqual(a.json());
  });

  it('honours limit and offset; count is the whole simulated set', async () => {
    const all = await mockList('&limit=100');
    expect(all.metadata.resultset.count).toBeGreaterThan(8);
    for (const magazine of all.results) expectMagazineShape(magazine);
    const page = await mockList('&limit=5&offset=3');
    expect(page.metadata.resultset).toEqual({ count: all.metadata.resultset.count, offset: 3, limit: 5 });
    expect(page.results).toEqual(all.results.slice(3, 8));
  });

  it('honours sort', async () => {
    const asc = await mockList('&limit=100');
    const desc = await mockList('&limit=100&sort=desc');
    expect(desc.results.map((m) => m.id)).toEqual(asc.results.map((m) => m.id).reverse());
    const created = asc.results.map((m) => Number(m.created));
    expect(created).toEqual([...created].sort((x, y) => x - y));
  });

  it('orders tags as the table does: by id', async () => {
    const ids = async (query: string) =>
      (await local.client.get(`/tags?mock=1${query}`)).json<Envelope<{ id: string }>>().results.map((t) => t.id);
    const asc = await ids('');
    expect(asc.length).toBeGreaterThan(1);
    expect(asc).toEqual([...asc].sort());
    expect(await ids('&sort=desc')).toEqual([...asc].reverse());
  });

  it('honours year', async () => {
    const all = await mockList('&limit=100');
    const years = new Set(all.results.map((m) => new Date(Number(m.created) * 1000).getUTCFullYear()));
    const year = [...years][1] ?? [...years][0]!;
    const filtered = await mockList(`&limit=100&year=${year}`);
    const expected = all.results.filter((m) => new Date(Number(m.created) * 1000).getUTCFullYear() === year);
    expect(expected.length).toBeGreaterThan(0);
    expect(filtered.results).toEqual(expected);
    expect(filtered.metadata.resultset.count).toBe(expected.length);
  });

  it('honours fields, on a list and on one magazine', async () => {
    const list = await mockList('&fields=title,subtitle');
    for (const magazine of list.results) expect(sortedKeys(magazine)).toEqual(['id', 'title']);
    const one = await local.client.get('/api/v1/magazines/abc.json?mock=True&fields=title,tags&format=json');
    expect(sortedKeys(one.json())).toEqual(['id', 'tags', 'title']);
  });

  it('honours XML', async () => {
    const list = await local.client.get('/api/v1/magazines.xml?mock=True&year=2020&sort=desc');
    expect(list.status).toBe(200);
    expect(list.headers['content-type']).toBe(XML_TYPE);
    expect(Object.keys(parseXml(list.text))).toEqual(['response']);
    const one = await local.client.get('/magazines/abc?mock=True&format=xml');
    expect(one.headers['content-type']).toBe(XML_TYPE);
    expect(Object.keys(parseXml(one.text))).toEqual(['magazine']);
  });
});
