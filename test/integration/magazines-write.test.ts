import { describe, expect, it } from 'vitest';
import { DELETION_PREFIX } from '../../shared/db/keys';
import {
  type ArticleView,
  articleBody,
  type Envelope,
  expectError,
  expectMagazineShape,
  expectTableUnchanged,
  expectVaryAccept,
  JSON_TYPE,
  type MagazineView,
  magazineBody,
  nowSeconds,
  scanTable,
  uniqueId,
  useLocalApi,
} from './expect-api';

const local = useLocalApi();

/** Items of a magazine and its articles; not its deletion's note (its change event's source, cleared by time to live). */
const itemsAbout = async (id: string) =>
  (await scanTable(local.api.documentClient, local.api.tableName)).filter(
    (item) => (item.id === id || item.magazineId === id) && !String(item.SK).startsWith(DELETION_PREFIX),
  );

const addArticle = async (magazineId: string) => {
  const response = await local.client.post(`/magazines/${magazineId}/articles`, articleBody());
  expect(response.status).toBe(201);
  return response.json<{ id: string }>().id;
};

describe('POST /magazines', () => {
  it('creates a magazine with the id sent: 201, {id}, Location that resolves to it', async () => {
    const id = uniqueId();
    const before = nowSeconds();
    const response = await local.client.post(
      '/magazines',
      magazineBody({ id, title: 'Coastal Living', tags: [{ name: 'Travel' }, { id: 'sea', name: 'The Sea' }] }),
    );
    expect(response.status).toBe(201);
    expect(response.headers['content-type']).toBe(JSON_TYPE);
    expectVaryAccept(response);
    expect(response.json()).toEqual({ id });
    expect(response.headers.location).toBe(`${local.api.baseUrl}/v1/magazines/${id}`);

    const read = await local.client.get(new URL(response.headers.location!).pathname);
    expect(read.status).toBe(200);
    const magazine = read.json<MagazineView>();
    expectMagazineShape(magazine);
    expect(magazine).toMatchObject({
      id,
      type: 'magazine',
      title: 'Coastal Living',
      tags: [
        { id: 'travel', name: 'Travel', url: `${local.api.baseUrl}/v1/tags/travel` },
        { id: 'sea', name: 'The Sea', url: `${local.api.baseUrl}/v1/tags/sea` },
      ],
    });
    expect(Number(magazine.created)).toBeGreaterThanOrEqual(before - 1);
    expect(Number(magazine.created)).toBeLessThanOrEqual(nowSeconds() + 1);

    const stored = (await itemsAbout(id)).find((item) => item.title === 'Coastal Living');
    expect(stored, 'the magazine is in the table').toBeDefined();
  });

  it('makes an id when none is sent', async () => {
    const response = await local.client.post('/magazines', magazineBody({ title: 'No Id Given' }));
    expect(response.status).toBe(201);
    const { id } = response.json<{ id: string }>();
    expect(typeof id).toBe('string');
    expect(id).toMatch(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/);
    expect(response.headers.location).toBe(`${local.api.baseUrl}/v1/magazines/${id}`);
    const read = await local.client.get(`/magazines/${id}`);
    expect(read.status).toBe(200);
    expect(read.json<MagazineView>().title).toBe('No Id Given');
  });

  it('keeps a created time sent as a number or as a string of digits, and answers it as a string', async () => {
    const a = uniqueId();
    const b = uniqueId();
    expect((await local.client.post('/magazines', magazineBody({ id: a, created: 1_600_000_000 }))).status).toBe(201);
    expect((await local.client.post('/magazines', magazineBody({ id: b, created: '1500000000' }))).status).toBe(201);
    expect((await local.client.get(`/magazines/${a}`)).json<MagazineView>().created).toBe('1600000000');
    expect((await local.client.get(`/magazines/${b}`)).json<MagazineView>().created).toBe('1500000000');
  });

  it('defaults tags to an empty list', async () => {
    const id = uniqueId();
    expect((await local.client.post('/magazines', { id, title: 'Bare' })).status).toBe(201);
    expect((await local.client.get(`/magazines/${id}`)).json<MagazineView>().tags).toEqual([]);
  });

  it('ignores a tag url sent in and writes its own', async () => {
    const id = uniqueId();
    const sent = { id, title: 'Urls', tags: [{ id: 'x1', name: 'X', url: 'http://evil.example/tags/x1' }] };
    expect((await local.client.post('/magazines', sent)).status).toBe(201);
    expect((await local.client.get(`/magazines/${id}`)).json<MagazineView>().tags).toEqual([
      { id: 'x1', name: 'X', url: `${local.api.baseUrl}/v1/tags/x1` },
    ]);
  });

  it('refuses a duplicate id with 405 and the error object, writing nothing', async () => {
    const id = uniqueId();
    expect((await local.client.post('/magazines', magazineBody({ id, title: 'Original' }))).status).toBe(201);
    const response = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
      local.client.post('/magazines', magazineBody({ id, title: 'Impostor', tags: [{ name: 'Other Tag' }] })),
    );
    expectError(response, { status: 405, baseUrl: local.api.baseUrl, mentions: [id] });
    expect(response.headers.location).toBeUndefined();
    expect(response.headers.allow).toBe('GET, HEAD, PUT, DELETE, OPTIONS');
    expect((await local.client.get(`/magazines/${id}`)).json<MagazineView>().title).toBe('Original');
  });
});

describe('PUT /magazines/{id}', () => {
  it('creates a magazine that does not exist: 201 with Location', async () => {
    const id = uniqueId();
    const response = await local.client.put(`/magazines/${id}`, magazineBody({ title: 'Made by PUT' }));
    expect(response.status).toBe(201);
    expect(response.json()).toEqual({ id });
    expect(response.headers.location).toBe(`${local.api.baseUrl}/v1/magazines/${id}`);
    expectVaryAccept(response);
    expect((await local.client.get(`/magazines/${id}`)).json<MagazineView>().title).toBe('Made by PUT');
  });

  it('replaces an existing magazine: 200 {id}, new fields stored, articles kept', async () => {
    const id = uniqueId();
    expect(
      (await local.client.post('/magazines', magazineBody({ id, title: 'Before', tags: [{ name: 'Old Tag' }] })))
        .status,
    ).toBe(201);
    const articleId = await addArticle(id);

    const response = await local.client.put(`/magazines/${id}`, { id, title: 'After', tags: [{ name: 'New Tag' }] });
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({ id });
    expect(response.headers['content-type']).toBe(JSON_TYPE);

    const magazine = (await local.client.get(`/magazines/${id}`)).json<MagazineView>();
    expect(magazine.title).toBe('After');
    expect(magazine.tags.map((t) => t.id)).toEqual(['new-tag']);

    const articles = await local.client.get(`/magazines/${id}/articles`);
    expect(articles.status).toBe(200);
    const envelope = articles.json<Envelope<ArticleView>>();
    expect(envelope.metadata.resultset.count).toBe(1);
    expect(envelope.results.map((a) => a.id)).toEqual([articleId]);
    expect((await local.client.get(`/articles/${articleId}`)).status).toBe(200);
  });

  it('keeps the stored created time when the body leaves it out, and takes a new one when given', async () => {
    const id = uniqueId();
    expect((await local.client.post('/magazines', magazineBody({ id, created: 1_234_567_890 }))).status).toBe(201);
    expect((await local.client.put(`/magazines/${id}`, { title: 'Renamed' })).status).toBe(200);
    expect((await local.client.get(`/magazines/${id}`)).json<MagazineView>().created).toBe('1234567890');
    expect((await local.client.put(`/magazines/${id}`, { title: 'Renamed', created: '1300000000' })).status).toBe(200);
    expect((await local.client.get(`/magazines/${id}`)).json<MagazineView>().created).toBe('1300000000');
  });

  it('accepts back, unchanged, the representation GET gave: nothing changes', async () => {
    const id = uniqueId();
    expect(
      (
        await local.client.post(
          '/magazines',
          magazineBody({ id, title: 'Round Trip', tags: [{ name: 'Café Société' }, { id: 'x_1', name: 'X' }] }),
        )
      ).status,
    ).toBe(201);
    const first = await local.client.get(`/magazines/${id}`);
    const response = await local.client.put(`/magazines/${id}`, first.json());
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({ id });
    const second = await local.client.get(`/magazines/${id}`);
    expect(second.json()).toEqual(first.json());
  });

  it('refuses a body id that differs from the path, writing nothing', async () => {
    const id = uniqueId();
    expect((await local.client.post('/magazines', magazineBody({ id, title: 'Stays' }))).status).toBe(201);
    const response = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
      local.client.put(`/magazines/${id}`, { id: 'someone-else', title: 'Changed' }),
    );
    expectError(response, { status: 400, baseUrl: local.api.baseUrl, mentions: ['id'] });
    expect((await local.client.get(`/magazines/${id}`)).json<MagazineView>().title).toBe('Stays');
  });

  it('refuses a path id that is not a valid identifier, writing nothing', async () => {
    const response = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
      local.client.put('/magazines/bad%20id!', { title: 'Nope' }),
    );
    expect(response.status).toBe(400);
    expectError(response, { status: 400, baseUrl: local.api.baseUrl, mentions: ['id'] });
  });
});

describe('DELETE /magazines/{id}', () => {
  it('deletes the magazine and its articles: 200 {id}, then 404 for both', async () => {
    const id = uniqueId();
    expect((await local.client.post('/magazines', magazineBody({ id, tags: [{ name: 'Gone Soon' }] }))).status).toBe(
      201,
    );
    const first = await addArticle(id);
    const second = await addArticle(id);

    const response = await local.client.delete(`/magazines/${id}`);
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({ id });
    expectVaryAccept(response);

    expectError(await local.client.get(`/magazines/${id}`), {
      status: 404,
      baseUrl: local.api.baseUrl,
      mentions: [id],
    });
    expectError(await local.client.get(`/articles/${first}`), {
      status: 404,
      baseUrl: local.api.baseUrl,
      mentions: [first],
    });
    expectError(await local.client.get(`/articles/${second}`), { status: 404, baseUrl: local.api.baseUrl });
    expectError(await local.client.get(`/magazines/${id}/articles`), {
      status: 404,
      baseUrl: local.api.baseUrl,
      mentions: [id],
    });
    expect(await itemsAbout(id), 'no item of the magazine or its articles is left in the table').toEqual([]);
    const notes = (await scanTable(local.api.documentClient, local.api.tableName)).filter(
      (item) => item.id === id && String(item.SK).startsWith(DELETION_PREFIX),
    );
    expect(notes.map((note) => [note.requestId, typeof note.expiresAt])).toEqual([
      [response.headers['x-amzn-requestid'], 'number'],
    ]);
    expect((await local.client.get('/tags/gone-soon')).status).toBe(404);
  });

  it('answers 404 with the error object for an id that does not exist, changing nothing', async () => {
    const response = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
      local.client.delete('/magazines/never-was-here'),
    );
    expectError(response, { status: 404, baseUrl: local.api.baseUrl, mentions: ['never-was-here'] });
  });

  it('leaves the other magazines alone', async () => {
    const keep = uniqueId();
    const drop = uniqueId();
    expect((await local.client.post('/magazines', magazineBody({ id: keep }))).status).toBe(201);
    expect((await local.client.post('/magazines', magazineBody({ id: drop }))).status).toBe(201);
    const kept = await addArticle(keep);
    expect((await local.client.delete(`/magazines/${drop}`)).status).toBe(200);
    expect((await local.client.get(`/magazines/${keep}`)).status).toBe(200);
    expect((await local.client.get(`/articles/${kept}`)).status).toBe(200);
  });
});

describe('DELETE /magazines/{id} with many articles', () => {
  it('deletes all 30 of them (more than one batch)', async () => {
    const id = uniqueId();
    expect((await local.client.post('/magazines', magazineBody({ id }))).status).toBe(201);
    const articles: string[] = [];
    for (let i = 0; i < 30; i += 10) {
      const made = await Promise.all(Array.from({ length: 10 }, () => addArticle(id)));
      articles.push(...made);
    }
    expect(
      (await local.client.get(`/magazines/${id}/articles?limit=1`)).json<Envelope<ArticleView>>().metadata.resultset
        .count,
    ).toBe(30);
    expect((await local.client.delete(`/magazines/${id}`)).status).toBe(200);
    for (const article of [articles[0]!, articles[15]!, articles[29]!])
      expect((await local.client.get(`/articles/${article}`)).status).toBe(404);
    expect(await itemsAbout(id)).toEqual([]);
  });
});
