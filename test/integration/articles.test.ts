import { describe, expect, it } from 'vitest';
import { parseLinkHeader } from '../support/http';
import {
  type ArticleView,
  articleBody,
  type Envelope,
  expectArticleShape,
  expectEnvelopeShape,
  expectError,
  expectTableUnchanged,
  expectVaryAccept,
  JSON_TYPE,
  magazineBody,
  nowSeconds,
  parseXml,
  scanTable,
  uniqueId,
  useLocalApi,
  XML_TYPE,
} from './expect-api';

const local = useLocalApi();

const newMagazine = async () => {
  const id = uniqueId();
  expect((await local.client.post('/magazines', magazineBody({ id }))).status).toBe(201);
  return id;
};

describe('POST /magazines/{id}/articles', () => {
  it('adds an article: 201, {id}, Location {base_url}/v1/articles/{id} that resolves to it', async () => {
    const magazineId = await newMagazine();
    const sent = articleBody({ title: 'Notes on <Comets> & "Tails"' });
    const before = nowSeconds();
    const response = await local.client.post(`/magazines/${magazineId}/articles`, sent);
    expect(response.status).toBe(201);
    expect(response.headers['content-type']).toBe(JSON_TYPE);
    expectVaryAccept(response);
    const { id } = response.json<{ id: string }>();
    expect(response.json()).toEqual({ id });
    expect(typeof id).toBe('string');
    expect(response.headers.location).toBe(`${local.api.baseUrl}/v1/articles/${id}`);

    const read = await local.client.get(new URL(response.headers.location!).pathname);
    expect(read.status).toBe(200);
    expect(read.headers['content-type']).toBe(JSON_TYPE);
    const article = read.json<ArticleView>();
    expectArticleShape(article);
    expect(article).toMatchObject({ ...sent, id, type: 'article', magazine_id: magazineId });
    expect(Number(article.created)).toBeGreaterThanOrEqual(before - 1);
    expect(Number(article.created)).toBeLessThanOrEqual(nowSeconds() + 1);

    const stored = (await scanTable(local.api.documentClient, local.api.tableName)).filter((item) => item.id === id);
    expect(stored.length, 'the article is in the table').toBeGreaterThan(0);
  });

  it('accepts the label form /articles.json', async () => {
    const magazineId = await newMagazine();
    const response = await local.client.post(`/api/v1/magazines/${magazineId}/articles.json`, articleBody());
    expect(response.status).toBe(201);
    const { id } = response.json<{ id: string }>();
    expect(response.headers.location).toBe(`${local.api.baseUrl}/v1/articles/${id}`);
    expect((await local.client.get(`/api/v1/articles/${id}`)).status).toBe(200);
  });

  it('answers 404 for a magazine that does not exist, and stores nothing', async () => {
    const response = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
      local.client.post('/magazines/no-such-magazine/articles', articleBody()),
    );
    expectError(response, { status: 404, baseUrl: local.api.baseUrl, mentions: ['no-such-magazine'] });
  });

  it('checks the body before the magazine: a bad body on an unknown magazine is a 400', async () => {
    const response = await local.client.post(
      '/magazines/no-such-magazine/articles',
      articleBody({ date: 'yesterday' }),
    );
    expectError(response, { status: 400, baseUrl: local.api.baseUrl, mentions: ['date'] });
  });
});

describe('GET /magazines/{id}/articles', () => {
  it('lists the articles of the magazine in the envelope, oldest first, count exact, paged', async () => {
    const magazineId = await newMagazine();
    const other = await newMagazine();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await local.client.post(
        `/magazines/${magazineId}/articles`,
        articleBody({ title: `Part ${i}` }),
      );
      ids.push(response.json<{ id: string }>().id);
    }
    expect((await local.client.post(`/magazines/${other}/articles`, articleBody({ title: 'Elsewhere' }))).status).toBe(
      201,
    );

    const response = await local.client.get(`/magazines/${magazineId}/articles`);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe(JSON_TYPE);
    const envelope = response.json<Envelope<ArticleView>>();
    expectEnvelopeShape(envelope);
    expect(envelope.metadata.resultset).toEqual({ count: 3, offset: 0, limit: 25 });
    expect(envelope.results.map((a) => a.id).sort()).toEqual([...ids].sort());
    for (const article of envelope.results) {
      expectArticleShape(article);
      expect(article.magazine_id).toBe(magazineId);
    }

    const page = await local.client.get(`/magazines/${magazineId}/articles?limit=2&offset=1`);
    const paged = page.json<Envelope<ArticleView>>();
    expect(paged.metadata.resultset).toEqual({ count: 3, offset: 1, limit: 2 });
    expect(paged.results).toHaveLength(2);
    const links = parseLinkHeader(page.headers.link);
    const first = new URL(links.first!);
    expect(`${first.origin}${first.pathname}`).toBe(`${local.api.baseUrl}/v1/magazines/${magazineId}/articles`);
    expect(first.searchParams.get('offset')).toBe('0');
    expect(first.searchParams.get('limit')).toBe('2');
    expect(links.prev).toBeDefined();
    expect(links.next).toBeUndefined();
    expect(links.last).toBeDefined();

    const asc = envelope.results.map((a) => a.id);
    const desc = (await local.client.get(`/magazines/${magazineId}/articles?sort=desc`))
      .json<Envelope<ArticleView>>()
      .results.map((a) => a.id);
    expect(desc).toEqual([...asc].reverse());
  });

  it('answers an empty list for a magazine without articles', async () => {
    const magazineId = await newMagazine();
    const envelope = (await local.client.get(`/magazines/${magazineId}/articles`)).json<Envelope<ArticleView>>();
    expect(envelope).toEqual({ metadata: { resultset: { count: 0, offset: 0, limit: 25 } }, results: [] });
  });

  it('answers 404 for a magazine that does not exist', async () => {
    expectError(await local.client.get('/magazines/nobody/articles'), {
      status: 404,
      baseUrl: local.api.baseUrl,
      mentions: ['nobody'],
    });
  });

  it('gives the articles as XML with .xml: <response><results><article>', async () => {
    const magazineId = await newMagazine();
    expect(
      (await local.client.post(`/magazines/${magazineId}/articles`, articleBody({ text: 'a < b & c > d' }))).status,
    ).toBe(201);
    const response = await local.client.get(`/api/v1/magazines/${magazineId}/articles.xml`);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe(XML_TYPE);
    const doc = parseXml(response.text) as {
      response: { metadata: { resultset: { count: string } }; results: { article: Record<string, string>[] } };
    };
    expect(doc.response.metadata.resultset.count).toBe('1');
    expect(doc.response.results.article).toHaveLength(1);
    expect(doc.response.results.article[0]).toMatchObject({
      text: 'a < b & c > d',
      magazine_id: magazineId,
      type: 'article',
    });
  });

  it.each([
    ['offset', '-1'],
    ['limit', '0'],
    ['limit', '101'],
    ['sort', 'up'],
  ])('refuses %s=%s with 400 naming the parameter', async (name, value) => {
    const magazineId = await newMagazine();
    expectError(await local.client.get(`/magazines/${magazineId}/articles?${name}=${value}`), {
      status: 400,
      baseUrl: local.api.baseUrl,
      mentions: [name],
    });
  });
});

describe('a page of long articles', () => {
  it('stays under what Lambda can return, in JSON and XML, and says in limit where it was cut', async () => {
    const magazineId = await newMagazine();
    // 70 articles of 100,000 characters, half of them escaped in XML: 7 MB as JSON.
    const text = '&x'.repeat(50_000);
    for (let i = 0; i < 70; i++)
      expect((await local.client.post(`/magazines/${magazineId}/articles`, articleBody({ text }))).status).toBe(201);
    const json = await local.client.get(`/magazines/${magazineId}/articles?limit=100`);
    expect(json.status).toBe(200);
    const envelope = json.json<Envelope<ArticleView>>();
    expect(envelope.results.length).toBeLessThan(70);
    expect(envelope.metadata.resultset).toEqual({ count: 70, offset: 0, limit: envelope.results.length });
    const xml = await local.client.get(`/magazines/${magazineId}/articles.xml?limit=100`);
    expect(xml.status).toBe(200);
    expect(Buffer.byteLength(xml.text)).toBeLessThan(6 * 1024 * 1024);
    const next = await local.client.get(
      `/magazines/${magazineId}/articles?limit=100&offset=${envelope.results.length}`,
    );
    expect(next.json<Envelope<ArticleView>>().results[0]?.id).not.toBe(envelope.results.at(-1)?.id);
  });

  it('stops at the 1 MB one read of the table returns, says so in limit, and next carries on', async () => {
    const magazineId = await newMagazine();
    // 16 articles of 100,000 emoji, 400 KB each in UTF-8: 6.4 MB in all, three of them past 1 MB.
    const text = '\u{1F600}'.repeat(100_000);
    for (let i = 0; i < 16; i++)
      expect((await local.client.post(`/magazines/${magazineId}/articles`, articleBody({ text }))).status).toBe(201);
    const first = await local.client.get(`/magazines/${magazineId}/articles?limit=16`);
    const page = first.json<Envelope<ArticleView>>();
    expect(page.results.length).toBeLessThanOrEqual(3);
    expect(page.metadata.resultset).toEqual({ count: 16, offset: 0, limit: page.results.length });
    const next = parseLinkHeader(first.headers.link).next ?? '';
    const rest = (await local.client.get(new URL(next).pathname + new URL(next).search)).json<Envelope<ArticleView>>();
    expect(rest.metadata.resultset.offset).toBe(page.results.length);
    expect(rest.results.map((a) => a.id)).not.toContain(page.results.at(-1)?.id);
  });
});

describe('GET /articles/{articleId}', () => {
  it('answers 404 with the error object for an unknown article', async () => {
    expectError(await local.client.get('/articles/no-such-article'), {
      status: 404,
      baseUrl: local.api.baseUrl,
      mentions: ['no-such-article'],
    });
  });

  it('gives an article as XML with <article> at the root', async () => {
    const magazineId = await newMagazine();
    const { id } = (await local.client.post(`/magazines/${magazineId}/articles`, articleBody())).json<{ id: string }>();
    const response = await local.client.get(`/articles/${id}.xml`);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe(XML_TYPE);
    const doc = parseXml(response.text) as { article: Record<string, string> };
    expect(Object.keys(doc)).toEqual(['article']);
    expect(doc.article).toMatchObject({ id, type: 'article', magazine_id: magazineId, date: '2024-02-29' });
  });
});
