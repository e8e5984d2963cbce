import { describe, expect, it } from 'vitest';
import { parseLinkHeader } from '../support/http';
import {
  type Envelope,
  expectEnvelopeShape,
  expectError,
  expectMagazineShape,
  expectVaryAccept,
  JSON_TYPE,
  type MagazineView,
  parseXml,
  type TagView,
  useLocalApi,
  XML_TYPE,
} from './expect-api';

const local = useLocalApi(undefined, async () => {
  const response = await local.client.put('/magazines', [
    { id: 't1', title: 'T1', created: '1577836800', tags: [{ name: 'Science' }, { name: 'Travel' }] }, // 2020
    { id: 't2', title: 'T2', created: '1609459200', tags: [{ name: 'Science' }] }, // 2021
    { id: 't3', title: 'T3', created: '1609459300', tags: [{ name: 'Café Society' }] },
  ]);
  expect(response.status).toBe(200);
});

/** A path on this API from an absolute URL the API wrote. */
const pathOf = (url: string) => {
  const parsed = new URL(url);
  expect(parsed.origin).toBe(new URL(local.api.baseUrl).origin);
  return `${parsed.pathname}${parsed.search}`;
};

describe('GET /tags', () => {
  it('lists every tag in use in the envelope, each with its url', async () => {
    const response = await local.client.get('/tags');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe(JSON_TYPE);
    expectVaryAccept(response);
    const envelope = response.json<Envelope<TagView>>();
    expectEnvelopeShape(envelope);
    expect(envelope.metadata.resultset.count).toBe(3);
    expect(envelope.results.map((t) => t.id).sort()).toEqual(['cafe-society', 'science', 'travel']);
    for (const tag of envelope.results) {
      expect(tag).toMatchObject({ id: tag.id, url: `${local.api.baseUrl}/v1/tags/${tag.id}` });
      expect(typeof tag.name).toBe('string');
    }
    expect(envelope.results.find((t) => t.id === 'cafe-society')?.name).toBe('Café Society');
  });

  it('pages tags with limit and offset, count staying exact', async () => {
    const envelope = (await local.client.get('/tags?limit=2&offset=1')).json<Envelope<TagView>>();
    expect(envelope.metadata.resultset).toEqual({ count: 3, offset: 1, limit: 2 });
    expect(envelope.results).toHaveLength(2);
    const links = parseLinkHeader((await local.client.get('/tags?limit=2&offset=1')).headers.link);
    expect(Object.keys(links).sort()).toEqual(['first', 'last', 'prev']);
    expect(links.first?.startsWith(`${local.api.baseUrl}/v1/tags?`)).toBe(true);
    const byTag = parseLinkHeader((await local.client.get('/tags/science/magazines?limit=1')).headers.link);
    expect(Object.keys(byTag).sort()).toEqual(['first', 'last', 'next']);
    expect(byTag.next?.startsWith(`${local.api.baseUrl}/v1/tags/science/magazines?`)).toBe(true);
  });

  it('gives the tags as XML: <response><results><tag>', async () => {
    const response = await local.client.get('/tags.xml');
    expect(response.headers['content-type']).toBe(XML_TYPE);
    const doc = parseXml(response.text) as { response: { results: { tag: { id: string }[] } } };
    expect(doc.response.results.tag.map((t) => t.id).sort()).toEqual(['cafe-society', 'science', 'travel']);
  });

  it('refuses limit=101 with 400 naming limit', async () => {
    expectError(await local.client.get('/tags?limit=101'), {
      status: 400,
      baseUrl: local.api.baseUrl,
      mentions: ['limit'],
    });
  });
});

describe('GET /tags/{tagId}', () => {
  it("a magazine's tag url resolves to the tag", async () => {
    const magazine = (await local.client.get('/magazines/t1')).json<MagazineView>();
    for (const tag of magazine.tags) {
      const response = await local.client.get(pathOf(tag.url));
      expect(response.status, tag.url).toBe(200);
      expect(response.json<TagView>()).toMatchObject({ id: tag.id, name: tag.name, url: tag.url });
    }
  });

  it('a tag url read under /api/v1 is the /v1 one, and resolves', async () => {
    const magazine = (await local.client.get('/api/v1/magazines/t3')).json<MagazineView>();
    expect(magazine.tags[0]?.url).toBe(`${local.api.baseUrl}/v1/tags/cafe-society`);
    expect((await local.client.get(pathOf(magazine.tags[0]!.url))).status).toBe(200);
  });

  it('gives a tag as XML with <tag> at the root', async () => {
    const response = await local.client.get('/api/v1/tags/science.xml');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe(XML_TYPE);
    const doc = parseXml(response.text) as { tag: { id: string; url: string } };
    expect(Object.keys(doc)).toEqual(['tag']);
    expect(doc.tag).toMatchObject({ id: 'science', url: `${local.api.baseUrl}/v1/tags/science` });
  });

  it('answers 404 with the error object for a tag no magazine carries', async () => {
    expectError(await local.client.get('/tags/no-such-tag'), {
      status: 404,
      baseUrl: local.api.baseUrl,
      mentions: ['no-such-tag'],
    });
  });
});

describe('GET /tags/{tagId}/magazines', () => {
  it('lists the magazines carrying the tag, count exact', async () => {
    const response = await local.client.get('/tags/science/magazines');
    expect(response.status).toBe(200);
    const envelope = response.json<Envelope<MagazineView>>();
    expectEnvelopeShape(envelope);
    expect(envelope.metadata.resultset).toEqual({ count: 2, offset: 0, limit: 25 });
    expect(envelope.results.map((m) => m.id)).toEqual(['t1', 't2']);
    for (const magazine of envelope.results) expectMagazineShape(magazine);
    expect(
      (await local.client.get('/tags/science/magazines?sort=desc'))
        .json<Envelope<MagazineView>>()
        .results.map((m) => m.id),
    ).toEqual(['t2', 't1']);
    const y2021 = (await local.client.get('/tags/science/magazines?year=2021')).json<Envelope<MagazineView>>();
    expect(y2021.results.map((m) => m.id)).toEqual(['t2']);
    expect(y2021.metadata.resultset.count).toBe(1);
  });

  it('answers 404 for a tag no magazine carries', async () => {
    expectError(await local.client.get('/tags/no-such-tag/magazines'), {
      status: 404,
      baseUrl: local.api.baseUrl,
      mentions: ['no-such-tag'],
    });
  });

  it.each([
    ['sort', 'up'],
    ['offset', '-1'],
    ['limit', '0'],
  ])('refuses %s=%s with 400 naming the parameter', async (name, value) => {
    expectError(await local.client.get(`/tags/science/magazines?${name}=${value}`), {
      status: 400,
      baseUrl: local.api.baseUrl,
      mentions: [name],
    });
  });

  it('a tag goes away with the last magazine carrying it', async () => {
    expect((await local.client.put('/magazines/t3', { title: 'T3', tags: [] })).status).toBe(200);
    expectError(await local.client.get('/tags/cafe-society'), { status: 404, baseUrl: local.api.baseUrl });
    expect((await local.client.get('/tags')).json<Envelope<TagView>>().metadata.resultset.count).toBe(2);
  });
});
