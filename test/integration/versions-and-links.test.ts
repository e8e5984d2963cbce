import { describe, expect, it } from 'vitest';
import { parseLinkHeader } from '../support/http';
import {
  type ArticleView,
  articleBody,
  type Envelope,
  expectEnvelopeShape,
  expectError,
  expectMagazineShape,
  expectVaryAccept,
  JSON_TYPE,
  type MagazineView,
  parseXml,
  pickHeaders,
  sortedKeys,
  useLocalApi,
  XML_TYPE,
} from './expect-api';

/**
 * Every magazine and article operation, under each version prefix: the anonymous latest
 * version, `/v1` and `/api/v1`. Links the API writes are `{base_url}/v1/…` under every prefix.
 */

const local = useLocalApi();

const PREFIXES = [
  ['(none)', '', '/v1'],
  ['/v1', '/v1', '/v1'],
  ['/api/v1', '/api/v1', '/v1'],
] as const;

describe.each(PREFIXES)('prefix %s', (_, prefix, linkPrefix) => {
  const id = `v${prefix.replaceAll('/', '-') || '-none'}`;

  it('table 4.2: the whole life of the collection and of one magazine', async () => {
    // DELETE /magazines
    const clear = await local.client.delete(`${prefix}/magazines`);
    expect(clear.status).toBe(200);
    expect(clear.json()).toEqual({ id: 'magazines' });
    expect(clear.headers['content-type']).toBe(JSON_TYPE);
    expectVaryAccept(clear);

    // GET /magazines: 200 and the envelope, even when empty
    const empty = await local.client.get(`${prefix}/magazines`);
    expect(empty.status).toBe(200);
    expect(empty.json<Envelope<MagazineView>>().metadata.resultset.count).toBe(0);

    // POST /magazines: 201, {id}, the URI of the new resource
    const created = await local.client.post(`${prefix}/magazines`, {
      id,
      title: 'Versioned',
      tags: [{ name: 'Science' }],
    });
    expect(created.status).toBe(201);
    expect(created.json()).toEqual({ id });
    expect(created.headers.location).toBe(`${local.api.baseUrl}${linkPrefix}/magazines/${id}`);
    expectVaryAccept(created);

    // POST again: 405, error object, nothing created
    expectError(await local.client.post(`${prefix}/magazines`, { id, title: 'Again' }), {
      status: 405,
      baseUrl: local.api.baseUrl,
      mentions: [id],
    });

    // GET /magazines/{id}
    const one = await local.client.get(`${prefix}/magazines/${id}`);
    expect(one.status).toBe(200);
    expect(one.headers['content-type']).toBe(JSON_TYPE);
    const magazine = one.json<MagazineView>();
    expectMagazineShape(magazine);
    expect(magazine.title).toBe('Versioned');
    expect(magazine.tags[0]?.url).toBe(`${local.api.baseUrl}${linkPrefix}/tags/science`);

    // HEAD /magazines and HEAD /magazines/{id}: 200, metadata in headers, no body
    for (const path of [`${prefix}/magazines`, `${prefix}/magazines/${id}`]) {
      const get = await local.client.get(path);
      const head = await local.client.head(path);
      expect(head.status).toBe(200);
      expect(head.text).toBe('');
      expect(head.headers['last-modified']).toBeDefined();
      expect(pickHeaders(head)).toEqual(pickHeaders(get));
    }

    // PUT /magazines/{id}: 200 {id}, replaces it
    const replaced = await local.client.put(`${prefix}/magazines/${id}`, { title: 'Replaced' });
    expect(replaced.status).toBe(200);
    expect(replaced.json()).toEqual({ id });
    expect((await local.client.get(`${prefix}/magazines/${id}`)).json<MagazineView>().title).toBe('Replaced');

    // PUT /magazines: 200 {id}, replaces all
    const all = await local.client.put(`${prefix}/magazines`, [
      { id, title: 'Kept' },
      { id: `${id}-2`, title: 'Second' },
    ]);
    expect(all.status).toBe(200);
    expect(all.json()).toEqual({ id: 'magazines' });
    const listed = (await local.client.get(`${prefix}/magazines`)).json<Envelope<MagazineView>>();
    expect(listed.results.map((m) => `${m.id}=${m.title}`).sort()).toEqual([`${id}=Kept`, `${id}-2=Second`].sort());
    expect(listed.metadata.resultset.count).toBe(2);

    // DELETE /magazines/{id}: 200
    const deleted = await local.client.delete(`${prefix}/magazines/${id}`);
    expect(deleted.status).toBe(200);
    expectError(await local.client.get(`${prefix}/magazines/${id}`), { status: 404, baseUrl: local.api.baseUrl });
    expect(
      (await local.client.get(`${prefix}/magazines`)).json<Envelope<MagazineView>>().metadata.resultset.count,
    ).toBe(1);
  });

  it('table 4.3: GET magazines.json with year, sort=desc and mock', async () => {
    expect(
      (
        await local.client.put(`${prefix}/magazines`, [
          { id: 'y1', title: 'Y1', created: '1577836800' },
          { id: 'y2', title: 'Y2', created: '1590000000' },
          { id: 'y3', title: 'Y3', created: '1620000000' },
        ])
      ).status,
    ).toBe(200);
    const response = await local.client.get(`${prefix}/magazines.json?year=2020&sort=desc`);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe(JSON_TYPE);
    const envelope = response.json<Envelope<MagazineView>>();
    expectEnvelopeShape(envelope);
    expect(envelope.results.map((m) => m.id)).toEqual(['y2', 'y1']);
    expect(envelope.metadata.resultset.count).toBe(2);
    const next = parseLinkHeader(
      (await local.client.get(`${prefix}/magazines.json?year=2020&sort=desc&limit=1`)).headers.link,
    ).next!;
    expect(next.startsWith(`${local.api.baseUrl}${linkPrefix}/magazines`)).toBe(true);
    expect(new URL(next).searchParams.get('year')).toBe('2020');

    const xml = await local.client.get(`${prefix}/magazines.xml?year=2020`);
    expect(xml.headers['content-type']).toBe(XML_TYPE);
    expect(Object.keys(parseXml(xml.text))).toEqual(['response']);

    const mock = await local.client.get(`${prefix}/magazines.json?year=2020&sort=desc&mock=True`);
    expect(mock.status).toBe(200);
    expectEnvelopeShape(mock.json());
  });

  it('table 4.3: GET magazines/{id}.json with fields, format=json and mock', async () => {
    expect(
      (await local.client.put(`${prefix}/magazines/f-${id}`, { title: 'Fields', tags: [{ name: 'Travel' }] })).status,
    ).toBe(201);
    const response = await local.client.get(`${prefix}/magazines/f-${id}.json?fields=title,subtitle,date&format=json`);
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({ id: `f-${id}`, title: 'Fields' });
    const xml = await local.client.get(`${prefix}/magazines/f-${id}.xml`);
    expect(xml.headers['content-type']).toBe(XML_TYPE);
    expect(Object.keys(parseXml(xml.text))).toEqual(['magazine']);
    const mock = await local.client.get(`${prefix}/magazines/anything.json?fields=title&format=json&mock=True`);
    expect(mock.status).toBe(200);
    expect(sortedKeys(mock.json())).toEqual(['id', 'title']);
  });

  it('table 4.3: POST articles and articles.json, then GET articles.json and .xml', async () => {
    const magazineId = `a-${id}`;
    expect((await local.client.put(`${prefix}/magazines/${magazineId}`, { title: 'With Articles' })).status).toBe(201);

    const plain = await local.client.post(
      `${prefix}/magazines/${magazineId}/articles`,
      articleBody({ title: 'Plain' }),
    );
    expect(plain.status).toBe(201);
    const labelled = await local.client.post(
      `${prefix}/magazines/${magazineId}/articles.json`,
      articleBody({ title: 'Labelled' }),
    );
    expect(labelled.status).toBe(201);
    for (const response of [plain, labelled]) {
      const articleId = response.json<{ id: string }>().id;
      expect(response.headers.location).toBe(`${local.api.baseUrl}${linkPrefix}/articles/${articleId}`);
      const read = await local.client.get(`${prefix}/articles/${articleId}`);
      expect(read.status).toBe(200);
      expect(read.json<ArticleView>().magazine_id).toBe(magazineId);
    }

    const json = await local.client.get(`${prefix}/magazines/${magazineId}/articles.json`);
    expect(json.status).toBe(200);
    expect(
      json
        .json<Envelope<ArticleView>>()
        .results.map((a) => a.title)
        .sort(),
    ).toEqual(['Labelled', 'Plain']);
    const xml = await local.client.get(`${prefix}/magazines/${magazineId}/articles.xml`);
    expect(xml.status).toBe(200);
    expect(xml.headers['content-type']).toBe(XML_TYPE);
    const doc = parseXml(xml.text) as { response: { results: { article: { title: string }[] } } };
    expect(doc.response.results.article.map((a) => a.title).sort()).toEqual(['Labelled', 'Plain']);

    const mock = await local.client.post(`${prefix}/magazines/${magazineId}/articles.json?mock=True`, articleBody());
    expect(mock.status).toBe(201);
    expect(
      (await local.client.get(`${prefix}/magazines/${magazineId}/articles`)).json<Envelope<ArticleView>>().metadata
        .resultset.count,
    ).toBe(2);
  });

  it('errors carry moreInfo with the version segment of the request', async () => {
    expectError(await local.client.get(`${prefix}/magazines?limit=0`), {
      status: 400,
      baseUrl: local.api.baseUrl,
      mentions: ['limit'],
    });
    expectError(await local.client.get(`${prefix}/magazines/none-such`), { status: 404, baseUrl: local.api.baseUrl });
    expectError(await local.client.request('PATCH', `${prefix}/magazines`), {
      status: 405,
      baseUrl: local.api.baseUrl,
    });
  });
});

describe('the three prefixes are one API', () => {
  it('a magazine written under one prefix reads byte for byte the same under every prefix, links included', async () => {
    expect(
      (await local.client.put('/api/v1/magazines/shared', { title: 'Shared', tags: [{ name: 'Food' }] })).status,
    ).toBeLessThan(300);
    for (const suffix of ['', '.xml']) {
      const responses = await Promise.all(
        ['', '/v1', '/api/v1'].map((prefix) => local.client.get(`${prefix}/magazines/shared${suffix}`)),
      );
      expect(new Set(responses.map((response) => response.text)).size, suffix).toBe(1);
      expect(new Set(responses.map((response) => response.headers.etag)).size, suffix).toBe(1);
      expect(responses[0]!.text).toContain(`${local.api.baseUrl}/v1/tags/food`);
    }
  });

  it('a list, its Link header and an error are the same under every prefix', async () => {
    const lists = await Promise.all(
      ['', '/v1', '/api/v1'].map((prefix) => local.client.get(`${prefix}/magazines?limit=1&offset=1`)),
    );
    expect(new Set(lists.map((response) => response.text)).size).toBe(1);
    expect(new Set(lists.map((response) => response.headers.link)).size).toBe(1);
    expect(lists[0]!.headers.link).toContain(`<${local.api.baseUrl}/v1/magazines?`);
    const errors = await Promise.all(
      ['', '/v1', '/api/v1'].map((prefix) => local.client.get(`${prefix}/magazines/none-such`)),
    );
    expect(new Set(errors.map((response) => response.text)).size).toBe(1);
  });
});
