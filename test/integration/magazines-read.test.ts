import { describe, expect, it } from 'vitest';
import { parseLinkHeader } from '../support/http';
import {
  type Envelope,
  expectEnvelopeShape,
  expectError,
  expectMagazineShape,
  expectTableUnchanged,
  expectVaryAccept,
  JSON_TYPE,
  type MagazineView,
  pickHeaders,
  sortedKeys,
  useLocalApi,
} from './expect-api';

/** Seeded once; this file only reads. Listed in ascending order (created, then id). */
const SEED = [
  { id: 'r1', title: 'One', created: '1559347200', tags: [{ id: 'science', name: 'Science' }] }, // 2019-06-01
  {
    id: 'r2',
    title: 'Two',
    created: '1577836800',
    tags: [
      { id: 'science', name: 'Science' },
      { id: 'travel', name: 'Travel' },
    ],
  }, // 2020-01-01T00:00:00Z
  { id: 'r3', title: 'Three', created: '1592179200', tags: [{ id: 'travel', name: 'Travel' }] }, // 2020-06-15
  { id: 'r4', title: 'Four', created: '1609459199', tags: [{ id: 'science', name: 'Science' }] }, // 2020-12-31T23:59:59Z
  { id: 'r5', title: 'Five', created: '1609459200', tags: [{ id: 'food', name: 'Food' }] }, // 2021-01-01T00:00:00Z
  { id: 'r6', title: 'Six', created: '1651708800', tags: [] }, // 2022-05-05
  { id: 'r8', title: 'Eight', created: '1651708800', tags: [{ id: 'food', name: 'Food' }] }, // same second as r6: id decides
  { id: 'r7', title: 'Seven', created: '1677801600', tags: [{ id: 'science', name: 'Science' }] }, // 2023-03-03
];
const ASC = SEED.map((m) => m.id);

const local = useLocalApi(undefined, async () => {
  // Shuffled, so that the order of the answers is the server's doing.
  const body = [SEED[5], SEED[2], SEED[7], SEED[0], SEED[6], SEED[3], SEED[1], SEED[4]];
  const response = await local.client.put('/magazines', body);
  expect(response.status).toBe(200);
});

const list = async (query: string) => {
  const response = await local.client.get(`/magazines${query}`);
  expect(response.status, response.text).toBe(200);
  const envelope = response.json<Envelope<MagazineView>>();
  expectEnvelopeShape(envelope);
  return { response, envelope, ids: envelope.results.map((m) => m.id) };
};

describe('GET /magazines', () => {
  it('answers the list envelope: exact count, default offset 0 and limit 25, ascending by created then id', async () => {
    const { response, envelope, ids } = await list('');
    expect(response.headers['content-type']).toBe(JSON_TYPE);
    expectVaryAccept(response);
    expect(envelope.metadata.resultset).toEqual({ count: 8, offset: 0, limit: 25 });
    expect(ids).toEqual(ASC);
    for (const magazine of envelope.results) expectMagazineShape(magazine);
    const r2 = envelope.results.find((m) => m.id === 'r2')!;
    expect(r2).toEqual({
      id: 'r2',
      type: 'magazine',
      title: 'Two',
      created: '1577836800',
      tags: [
        { id: 'science', name: 'Science', url: `${local.api.baseUrl}/v1/tags/science` },
        { id: 'travel', name: 'Travel', url: `${local.api.baseUrl}/v1/tags/travel` },
      ],
    });
  });

  it('sorts descending with sort=desc and ascending with sort=asc', async () => {
    expect((await list('?sort=desc')).ids).toEqual([...ASC].reverse());
    expect((await list('?sort=asc')).ids).toEqual(ASC);
  });

  it('pages with offset and limit; count stays the number of all matches', async () => {
    const { envelope, ids } = await list('?offset=2&limit=3');
    expect(ids).toEqual(ASC.slice(2, 5));
    expect(envelope.metadata.resultset).toEqual({ count: 8, offset: 2, limit: 3 });
    expect((await list('?offset=7&limit=5')).ids).toEqual(ASC.slice(7));
    const beyond = await list('?offset=100');
    expect(beyond.ids).toEqual([]);
    expect(beyond.envelope.metadata.resultset).toEqual({ count: 8, offset: 100, limit: 25 });
    expect((await list('?limit=100')).envelope.metadata.resultset.limit).toBe(100);
    expect((await list('?limit=1&sort=desc&offset=1')).ids).toEqual(['r8']);
  });

  it('any offset gives the right page: far past the end is an empty page, not an error', async () => {
    for (const offset of ['1000000', '5000000', '123456789']) {
      const { envelope, ids } = await list(`?offset=${offset}`);
      expect(ids).toEqual([]);
      expect(envelope.metadata.resultset).toEqual({ count: 8, offset: Number(offset), limit: 25 });
    }
  });

  it('walks every page in order: the pages together are the whole list, once each', async () => {
    const seen: string[] = [];
    for (let offset = 0; offset < 8; offset += 3) seen.push(...(await list(`?offset=${offset}&limit=3`)).ids);
    expect(seen).toEqual(ASC);
  });

  it('keeps the format label on the Link header, so every page comes in the same format', async () => {
    const response = await local.client.get('/api/v1/magazines.xml?limit=3&offset=3');
    const links = parseLinkHeader(response.headers.link);
    expect(links.next).toMatch(new RegExp(`^${local.api.baseUrl}/v1/magazines\\.xml\\?sort=asc&cursor=[^&]+&limit=3$`));
    expect(links.prev).toBe(`${local.api.baseUrl}/v1/magazines.xml?sort=asc&offset=0&limit=3`);
  });

  it('keeps the Link header small whatever the query: filters rebuilt, unknown parameters and field names dropped', async () => {
    const fields = `title,${'x'.repeat(9 * 1024)},tags,title`;
    const response = await local.client.get(
      `/magazines?offset=3&limit=2&sort=desc&fields=${fields}&junk=${'y'.repeat(4096)}&format=json&mock=False`,
    );
    expect(response.status).toBe(200);
    const links = parseLinkHeader(response.headers.link);
    expect(Object.keys(links).sort()).toEqual(['first', 'last', 'next', 'prev']);
    const paths = Object.values(links).reduce(
      (bytes, link) => bytes + new URL(link).origin.length + new URL(link).pathname.length,
      0,
    );
    expect(Buffer.byteLength(response.headers.link ?? '') - paths).toBeLessThan(400);
    const next = new URL(links.next!);
    expect([...next.searchParams.keys()]).toEqual(['fields', 'sort', 'format', 'cursor', 'limit']);
    expect(next.searchParams.get('fields')).toBe('title,tags');
    expect(new URL(links.last ?? '').searchParams.get('offset')).toBe(String(Math.floor((ASC.length - 1) / 2) * 2));
    expect(next.searchParams.get('cursor')).toMatch(/^5\./);
  });

  it.each([
    ['names no magazine field', 'bogus'],
    ['is empty', ''],
    ['is long and names none', `${'x'.repeat(2048)},subtitle`],
  ])('keeps a `fields` that %s on every link, as fields=id, so the next page shows only id too', async (_, fields) => {
    const first = await local.client.get(`/magazines?fields=${fields}&limit=2`);
    expect(first.status).toBe(200);
    for (const magazine of first.json<Envelope<MagazineView>>().results) expect(sortedKeys(magazine)).toEqual(['id']);
    const links = parseLinkHeader(first.headers.link);
    for (const link of Object.values(links)) expect(new URL(link).searchParams.get('fields'), link).toBe('id');
    const next = await local.client.get(links.next!.slice(local.api.baseUrl.length));
    expect(next.status).toBe(200);
    const page = next.json<Envelope<MagazineView>>();
    expect(page.results.length).toBe(2);
    for (const magazine of page.results) expect(sortedKeys(magazine)).toEqual(['id']);
  });

  it('gives a Link header with first, prev, next and last, keeping the other parameters', async () => {
    const { response } = await list('?offset=2&limit=3&sort=asc');
    const links = parseLinkHeader(response.headers.link);
    expect(Object.keys(links).sort()).toEqual(['first', 'last', 'next', 'prev']);
    const at = (rel: string) => {
      const url = new URL(links[rel]!);
      expect(`${url.origin}${url.pathname}`).toBe(`${local.api.baseUrl}/v1/magazines`);
      expect(url.searchParams.get('limit')).toBe('3');
      expect(url.searchParams.get('sort')).toBe('asc');
      return Number(url.searchParams.get('offset'));
    };
    expect(at('first')).toBe(0);
    expect(at('prev')).toBe(0);
    expect(new URL(links.next ?? '').searchParams.get('cursor')).toMatch(/^5\./);
    expect(at('last')).toBe(6);

    const firstPage = parseLinkHeader((await list('?limit=3')).response.headers.link);
    expect(Object.keys(firstPage).sort()).toEqual(['first', 'last', 'next']);
    const lastPage = parseLinkHeader((await list('?offset=6&limit=3')).response.headers.link);
    expect(Object.keys(lastPage).sort()).toEqual(['first', 'last', 'prev']);
    expect(new URL(lastPage.prev!).searchParams.get('offset')).toBe('3');
    const onePage = parseLinkHeader((await list('')).response.headers.link);
    expect(onePage.next).toBeUndefined();
    expect(onePage.prev).toBeUndefined();
  });

  it('refuses a cursor of the table on the mock list, and one of the mock on the table, with 400', async () => {
    const real = new URL(parseLinkHeader((await list('?limit=2')).response.headers.link).next!);
    const mocked = await local.client.get('/magazines?limit=2&mock=True');
    const mockCursor = new URL(parseLinkHeader(mocked.headers.link).next!).searchParams.get('cursor');
    const realOnMock = await local.client.get(`/magazines?limit=2&mock=True&cursor=${real.searchParams.get('cursor')}`);
    expect(expectError(realOnMock, { status: 400, baseUrl: local.api.baseUrl, mentions: ['cursor'] })?.errorCode).toBe(
      '40004',
    );
    const mockOnReal = await local.client.get(`/magazines?limit=2&cursor=${mockCursor}`);
    expect(expectError(mockOnReal, { status: 400, baseUrl: local.api.baseUrl, mentions: ['cursor'] })?.errorCode).toBe(
      '40004',
    );
  });

  it('the Link next page resolves to the following items', async () => {
    const { response } = await list('?limit=4');
    const next = new URL(parseLinkHeader(response.headers.link).next!);
    const followed = await local.client.get(`${next.pathname}${next.search}`);
    expect(followed.status).toBe(200);
    expect(followed.json<Envelope<MagazineView>>().results.map((m) => m.id)).toEqual(ASC.slice(4));
  });

  it('filters by the UTC year of created, counting only the matches', async () => {
    const y2020 = await list('?year=2020');
    expect(y2020.ids).toEqual(['r2', 'r3', 'r4']);
    expect(y2020.envelope.metadata.resultset.count).toBe(3);
    expect((await list('?year=2021')).ids).toEqual(['r5']);
    const none = await list('?year=1999');
    expect(none.ids).toEqual([]);
    expect(none.envelope.metadata.resultset.count).toBe(0);
    expect((await list('?year=2020&sort=desc&limit=2')).ids).toEqual(['r4', 'r3']);
    expect((await list('?year=2020&sort=desc&limit=2')).envelope.metadata.resultset.count).toBe(3);
  });

  it('filters by tag id, alone and with year', async () => {
    const science = await list('?tag=science');
    expect(science.ids).toEqual(['r1', 'r2', 'r4', 'r7']);
    expect(science.envelope.metadata.resultset.count).toBe(4);
    const both = await list('?tag=science&year=2020');
    expect(both.ids).toEqual(['r2', 'r4']);
    expect(both.envelope.metadata.resultset.count).toBe(2);
    expect((await list('?tag=science&sort=desc&limit=1')).ids).toEqual(['r7']);
    const unknown = await list('?tag=no-such-tag');
    expect(unknown.ids).toEqual([]);
    expect(unknown.envelope.metadata.resultset.count).toBe(0);
    // A magazine seen through a tag is the whole magazine.
    expect(science.envelope.results.find((m) => m.id === 'r2')).toEqual(
      (await local.client.get('/magazines/r2')).json(),
    );
  });

  it('returns only the fields asked for, plus id, and ignores names that are not fields', async () => {
    const { envelope } = await list('?fields=title,tags');
    for (const magazine of envelope.results) expect(sortedKeys(magazine)).toEqual(['id', 'tags', 'title']);
    const spec = await list('?fields=title,subtitle,date');
    for (const magazine of spec.envelope.results) expect(sortedKeys(magazine)).toEqual(['id', 'title']);
    expect(spec.envelope.metadata.resultset.count).toBe(8);
  });

  it('ignores unknown query parameters', async () => {
    expect((await list('?colour=red&page=3')).ids).toEqual(ASC);
  });

  it.each([
    ['offset', '-1'],
    ['offset', 'abc'],
    ['offset', '1.5'],
    ['limit', '0'],
    ['limit', '101'],
    ['limit', 'ten'],
    ['year', '20x4'],
    ['year', '24'],
    ['sort', 'up'],
    ['sort', 'DESCENDING'],
    ['tag', 'bad!'],
  ])('refuses %s=%s with 400 naming the parameter', async (name, value) => {
    const response = await local.client.get(`/magazines?${name}=${encodeURIComponent(value)}`);
    expectError(response, { status: 400, baseUrl: local.api.baseUrl, mentions: [name] });
  });

  it('a refused list read changes nothing', async () => {
    const response = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
      local.client.get('/magazines?limit=0'),
    );
    expect(response.status).toBe(400);
  });
});

describe('GET /magazines/{id}', () => {
  it("answers the magazine with exactly the representation's fields", async () => {
    const response = await local.client.get('/magazines/r3');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe(JSON_TYPE);
    expectVaryAccept(response);
    const magazine = response.json<MagazineView>();
    expectMagazineShape(magazine);
    expect(magazine).toEqual({
      id: 'r3',
      type: 'magazine',
      title: 'Three',
      created: '1592179200',
      tags: [{ id: 'travel', name: 'Travel', url: `${local.api.baseUrl}/v1/tags/travel` }],
    });
  });

  it('fields=title,tags gives those plus id; unknown names are ignored', async () => {
    expect((await local.client.get('/magazines/r2?fields=title,tags')).json()).toEqual({
      id: 'r2',
      title: 'Two',
      tags: [
        { id: 'science', name: 'Science', url: `${local.api.baseUrl}/v1/tags/science` },
        { id: 'travel', name: 'Travel', url: `${local.api.baseUrl}/v1/tags/travel` },
      ],
    });
    expect((await local.client.get('/magazines/r2?fields=title,subtitle,date')).json()).toEqual({
      id: 'r2',
      title: 'Two',
    });
    expect((await local.client.get('/magazines/r2?fields=created')).json()).toEqual({
      id: 'r2',
      created: '1577836800',
    });
  });

  it('answers 404 with the error object for an unknown id', async () => {
    expectError(await local.client.get('/magazines/not-here'), {
      status: 404,
      baseUrl: local.api.baseUrl,
      mentions: ['not-here'],
    });
  });

  it('answers 404 (not 500) for an id no magazine could have', async () => {
    expectError(await local.client.get('/magazines/bad%20id!'), { status: 404, baseUrl: local.api.baseUrl });
    expectError(await local.client.get(`/magazines/${'x'.repeat(200)}`), { status: 404, baseUrl: local.api.baseUrl });
  });
});

describe('HEAD on GET paths', () => {
  it.each([
    '/magazines',
    '/magazines?limit=2&offset=2',
    '/magazines/r1',
    '/magazines/r1?fields=title',
    '/magazines/r1.xml',
    '/magazines/nope',
    '/magazines?limit=0',
  ])('HEAD %s: the same status and headers as GET, no body', async (path) => {
    const get = await local.client.get(path);
    const head = await local.client.head(path);
    expect(head.status).toBe(get.status);
    expect(head.text).toBe('');
    expect(pickHeaders(head)).toEqual(pickHeaders(get));
    expectVaryAccept(head);
  });

  it('HEAD /magazines carries Last-Modified and ETag', async () => {
    const head = await local.client.head('/magazines');
    expect(head.status).toBe(200);
    expect(Number.isNaN(Date.parse(head.headers['last-modified'] ?? ''))).toBe(false);
    expect(head.headers.etag).toMatch(/^(W\/)?".+"$/);
  });
});
