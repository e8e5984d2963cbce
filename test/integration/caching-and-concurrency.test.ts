import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import {
  articleBody,
  expectError,
  expectTableUnchanged,
  expectVaryAccept,
  type MagazineView,
  magazineBody,
  pickHeaders,
  uniqueId,
  useLocalApi,
} from './expect-api';

let articleId: string;

const local = useLocalApi(undefined, async () => {
  expect((await local.client.post('/magazines', magazineBody({ id: 'c1', tags: [{ name: 'Science' }] }))).status).toBe(
    201,
  );
  const article = await local.client.post('/magazines/c1/articles', articleBody());
  articleId = article.json<{ id: string }>().id;
});

const newMagazine = async (title = 'Original') => {
  const id = uniqueId();
  expect((await local.client.post('/magazines', magazineBody({ id, title }))).status).toBe(201);
  return id;
};

/** Waits into the next second, so that a later write gets a later `Last-Modified` (HTTP dates have whole seconds). */
const nextSecond = () => sleep(1100 - (Date.now() % 1000));

const READ_PATHS = [
  '/magazines',
  '/magazines?limit=1&sort=desc',
  '/magazines/c1',
  '/magazines/c1.xml',
  '/magazines/c1/articles',
  `/articles/ART`,
  '/tags',
  '/tags/science',
  '/tags/science/magazines',
];

describe('validators on GET and HEAD', () => {
  it.each(READ_PATHS)('GET and HEAD %s send ETag and Last-Modified', async (template) => {
    const path = template.replace('ART', articleId);
    for (const response of [await local.client.get(path), await local.client.head(path)]) {
      expect(response.status).toBe(200);
      expect(response.headers.etag, 'ETag').toMatch(/^(W\/)?"[^"]+"$/);
      expect(
        Number.isNaN(Date.parse(response.headers['last-modified'] ?? 'missing')),
        `Last-Modified: ${response.headers['last-modified']}`,
      ).toBe(false);
    }
  });

  it.each(READ_PATHS)('HEAD %s: the same status and headers as GET, no body', async (template) => {
    const path = template.replace('ART', articleId);
    const get = await local.client.get(path);
    const head = await local.client.head(path);
    expect(head.status).toBe(get.status);
    expect(head.text).toBe('');
    expect(pickHeaders(head)).toEqual(pickHeaders(get));
  });

  it.each(READ_PATHS)('If-None-Match with the ETag of %s: 304, no body', async (template) => {
    const path = template.replace('ART', articleId);
    const { headers } = await local.client.get(path);
    const response = await local.client.get(path, { headers: { 'If-None-Match': headers.etag! } });
    expect(response.status).toBe(304);
    expect(response.text).toBe('');
    expect(response.headers.etag).toBe(headers.etag);
    expectVaryAccept(response);
    expect((await local.client.head(path, { headers: { 'If-None-Match': headers.etag! } })).status).toBe(304);
  });

  it.each(READ_PATHS)('If-Modified-Since the Last-Modified of %s: 304', async (template) => {
    const path = template.replace('ART', articleId);
    const { headers } = await local.client.get(path);
    expect(headers['last-modified'], 'Last-Modified').toBeDefined();
    const response = await local.client.get(path, { headers: { 'If-Modified-Since': headers['last-modified'] ?? '' } });
    expect(response.status).toBe(304);
    expect(response.text).toBe('');
  });

  it('another ETag or an older date: 200 with the body', async () => {
    const other = await local.client.get('/magazines/c1', { headers: { 'If-None-Match': '"something-else"' } });
    expect(other.status).toBe(200);
    expect(other.json<MagazineView>().id).toBe('c1');
    const old = await local.client.get('/magazines/c1', {
      headers: { 'If-Modified-Since': 'Thu, 01 Jan 2015 00:00:00 GMT' },
    });
    expect(old.status).toBe(200);
  });

  it('JSON and XML of one magazine have different ETags', async () => {
    const json = await local.client.get('/magazines/c1');
    const xml = await local.client.get('/magazines/c1.xml');
    expect(json.headers.etag).not.toBe(xml.headers.etag);
    expect(
      (await local.client.get('/magazines/c1.xml', { headers: { 'If-None-Match': json.headers.etag! } })).status,
    ).toBe(200);
  });

  it('a magazine ETag changes when the magazine changes, and the old one no longer gives 304', async () => {
    const id = await newMagazine();
    const before = await local.client.get(`/magazines/${id}`);
    expect((await local.client.put(`/magazines/${id}`, { title: 'Changed' })).status).toBe(200);
    const after = await local.client.get(`/magazines/${id}`, { headers: { 'If-None-Match': before.headers.etag! } });
    expect(after.status).toBe(200);
    expect(after.headers.etag).not.toBe(before.headers.etag);
  });
});

describe('HEAD /magazines reports the last change to the collection', () => {
  it('Last-Modified and ETag move on after a write', async () => {
    const before = await local.client.head('/magazines');
    await nextSecond();
    await newMagazine('Later');
    const after = await local.client.head('/magazines');
    expect(after.status).toBe(200);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect(Date.parse(after.headers['last-modified']!)).toBeGreaterThan(Date.parse(before.headers['last-modified']!));
    expect(
      (await local.client.get('/magazines', { headers: { 'If-Modified-Since': before.headers['last-modified']! } }))
        .status,
    ).toBe(200);
  });

  it('a change to one magazine (not a create) moves it too', async () => {
    const id = await newMagazine();
    const before = await local.client.head('/magazines');
    await nextSecond();
    expect((await local.client.put(`/magazines/${id}`, { title: 'Edited' })).status).toBe(200);
    const after = await local.client.head('/magazines');
    expect(Date.parse(after.headers['last-modified']!)).toBeGreaterThan(Date.parse(before.headers['last-modified']!));
  });

  it('a delete moves it too', async () => {
    const id = await newMagazine();
    const before = await local.client.head('/magazines');
    await nextSecond();
    expect((await local.client.delete(`/magazines/${id}`)).status).toBe(200);
    const after = await local.client.head('/magazines');
    expect(Date.parse(after.headers['last-modified']!)).toBeGreaterThan(Date.parse(before.headers['last-modified']!));
  });
});

describe('If-Match on PUT and DELETE', () => {
  it('PUT with a stale If-Match: 412, nothing changed', async () => {
    const id = await newMagazine();
    const stale = (await local.client.get(`/magazines/${id}`)).headers.etag!;
    expect((await local.client.put(`/magazines/${id}`, { title: 'Someone else' })).status).toBe(200);
    const response = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
      local.client.put(`/magazines/${id}`, { title: 'Mine' }, { headers: { 'If-Match': stale } }),
    );
    expectError(response, { status: 412, baseUrl: local.api.baseUrl, mentions: ['`If-Match`'] });
    expect((await local.client.get(`/magazines/${id}`)).json<MagazineView>().title).toBe('Someone else');
  });

  it('PUT with the current ETag made weak as If-Match: 412, since If-Match compares strongly', async () => {
    const id = await newMagazine();
    const etag = (await local.client.get(`/magazines/${id}`)).headers.etag!;
    const response = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
      local.client.put(`/magazines/${id}`, { title: 'Weak' }, { headers: { 'If-Match': `W/${etag}` } }),
    );
    expectError(response, { status: 412, baseUrl: local.api.baseUrl });
  });

  it('PUT with the current ETag as If-Match (JSON or XML): success', async () => {
    const id = await newMagazine();
    const json = (await local.client.get(`/magazines/${id}`)).headers.etag!;
    expect(
      (await local.client.put(`/magazines/${id}`, { title: 'First' }, { headers: { 'If-Match': json } })).status,
    ).toBe(200);
    const xml = (await local.client.get(`/magazines/${id}.xml`)).headers.etag!;
    expect(
      (await local.client.put(`/magazines/${id}`, { title: 'Second' }, { headers: { 'If-Match': xml } })).status,
    ).toBe(200);
    expect((await local.client.get(`/magazines/${id}`)).json<MagazineView>().title).toBe('Second');
    expect(
      (await local.client.put(`/magazines/${id}`, { title: 'Third' }, { headers: { 'If-Match': '*' } })).status,
    ).toBe(200);
  });

  it('PUT with an If-Match that matches nothing: 412', async () => {
    const id = await newMagazine();
    const response = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
      local.client.put(`/magazines/${id}`, { title: 'Nope' }, { headers: { 'If-Match': '"made-up"' } }),
    );
    expectError(response, { status: 412, baseUrl: local.api.baseUrl });
  });

  it('DELETE with a stale If-Match: 412, the magazine and its articles stay', async () => {
    const id = await newMagazine();
    const article = await local.client.post(`/magazines/${id}/articles`, articleBody());
    const stale = (await local.client.get(`/magazines/${id}`)).headers.etag!;
    expect((await local.client.put(`/magazines/${id}`, { title: 'Moved on' })).status).toBe(200);
    const response = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
      local.client.delete(`/magazines/${id}`, { headers: { 'If-Match': stale } }),
    );
    expectError(response, { status: 412, baseUrl: local.api.baseUrl });
    expect((await local.client.get(`/magazines/${id}`)).status).toBe(200);
    expect((await local.client.get(`/articles/${article.json<{ id: string }>().id}`)).status).toBe(200);
  });

  it('DELETE with the current ETag: 200, gone', async () => {
    const id = await newMagazine();
    const etag = (await local.client.get(`/magazines/${id}`)).headers.etag!;
    expect((await local.client.delete(`/magazines/${id}`, { headers: { 'If-Match': etag } })).status).toBe(200);
    expect((await local.client.get(`/magazines/${id}`)).status).toBe(404);
  });
});

describe('If-None-Match on PUT and DELETE', () => {
  it('PUT with If-None-Match: * creates a magazine that does not exist, and refuses with 412 to replace one that does', async () => {
    const id = uniqueId();
    const created = await local.client.put(
      `/magazines/${id}`,
      { title: 'First' },
      { headers: { 'If-None-Match': '*' } },
    );
    expect(created.status, created.text).toBe(201);
    const again = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
      local.client.put(`/magazines/${id}`, { title: 'Second' }, { headers: { 'If-None-Match': '*' } }),
    );
    const error = expectError(again, { status: 412, baseUrl: local.api.baseUrl, mentions: ['`If-None-Match`'] });
    expect(error?.developerMessage).not.toContain('`If-Match`');
    expect((await local.client.get(`/magazines/${id}`)).json<MagazineView>().title).toBe('First');
  });

  it('a 412 names the header that failed; with both, If-Match is evaluated first', async () => {
    const id = await newMagazine();
    const { etag } = (await local.client.get(`/magazines/${id}`)).headers;
    const put = (headers: Record<string, string>) => local.client.put(`/magazines/${id}`, { title: 'Z' }, { headers });
    const noneMatch = await put({ 'If-Match': etag!, 'If-None-Match': '*' });
    expectError(noneMatch, { status: 412, baseUrl: local.api.baseUrl, mentions: ['`If-None-Match`'] });
    const both = await put({ 'If-Match': '"made-up"', 'If-None-Match': '*' });
    expectError(both, { status: 412, baseUrl: local.api.baseUrl, mentions: ['`If-Match`'] });
    const deleted = await local.client.delete(`/magazines/${id}`, { headers: { 'If-None-Match': etag! } });
    expectError(deleted, { status: 412, baseUrl: local.api.baseUrl, mentions: ['`If-None-Match`'] });
    const collection = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
      local.client.put('/magazines', [magazineBody({ id: 'only-one' })], { headers: { 'If-None-Match': '*' } }),
    );
    expectError(collection, { status: 412, baseUrl: local.api.baseUrl, mentions: ['`If-None-Match`'] });
  });

  it('PUT or DELETE with If-None-Match naming the current ETag: 412; naming another: applied', async () => {
    const id = await newMagazine();
    const { etag } = (await local.client.get(`/magazines/${id}`)).headers;
    expect(
      (await local.client.put(`/magazines/${id}`, { title: 'X' }, { headers: { 'If-None-Match': etag! } })).status,
    ).toBe(412);
    expect((await local.client.delete(`/magazines/${id}`, { headers: { 'If-None-Match': etag! } })).status).toBe(412);
    expect(
      (await local.client.put(`/magazines/${id}`, { title: 'Y' }, { headers: { 'If-None-Match': '"other-json"' } }))
        .status,
    ).toBe(200);
  });
});

describe('If-Match on the whole collection (PUT and DELETE /magazines)', () => {
  const everything = async () =>
    (await local.client.get('/magazines?limit=100')).json<{ results: MagazineView[] }>().results;

  it('the list ETag stays while nothing changes and moves with any magazine write', async () => {
    const first = (await local.client.get('/magazines')).headers.etag;
    expect((await local.client.head('/magazines')).headers.etag).toBe(first);
    await newMagazine();
    expect((await local.client.get('/magazines')).headers.etag).not.toBe(first);
  });

  it('PUT /magazines with a stale If-Match: 412, nothing changed', async () => {
    const stale = (await local.client.get('/magazines')).headers.etag!;
    await newMagazine();
    const before = await everything();
    const response = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
      local.client.put('/magazines', [magazineBody({ id: 'only-one' })], { headers: { 'If-Match': stale } }),
    );
    expectError(response, { status: 412, baseUrl: local.api.baseUrl, mentions: ['`If-Match`'] });
    expect(await everything()).toEqual(before);
  });

  it('DELETE /magazines with a stale If-Match: 412, nothing deleted', async () => {
    const stale = (await local.client.get('/magazines.xml')).headers.etag!;
    await newMagazine();
    const response = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
      local.client.delete('/magazines', { headers: { 'If-Match': stale } }),
    );
    expectError(response, { status: 412, baseUrl: local.api.baseUrl });
  });

  it('PUT /magazines with the current ETag: applied', async () => {
    const current = await everything();
    const etag = (await local.client.get('/magazines')).headers.etag!;
    const body = current.map((magazine) =>
      magazine.id === 'c1' ? { ...magazine, title: 'Renamed under If-Match' } : magazine,
    );
    expect((await local.client.put('/magazines', body, { headers: { 'If-Match': etag } })).status).toBe(200);
    expect((await local.client.get('/magazines/c1')).json<MagazineView>().title).toBe('Renamed under If-Match');
  });
});
