import { beforeEach, describe, expect, it } from 'vitest';
import { sweepGarbage } from '../support/garbage';
import {
  type ArticleView,
  articleBody,
  type Envelope,
  expectError,
  expectTableUnchanged,
  expectVaryAccept,
  JSON_TYPE,
  type MagazineView,
  magazineBody,
  scanTable,
  useLocalApi,
} from './expect-api';

const local = useLocalApi();

const count = async (query = '') =>
  (await local.client.get(`/magazines?limit=1${query}`)).json<Envelope<MagazineView>>().metadata.resultset.count;

const addArticle = async (magazineId: string) => {
  const response = await local.client.post(`/magazines/${magazineId}/articles`, articleBody());
  expect(response.status).toBe(201);
  return response.json<{ id: string }>().id;
};

/**
 * Items that belong to a magazine or an article (everything but bookkeeping), once the garbage
 * the request left (what readers can no longer reach) has been swept, as the janitor does.
 */
const dataItems = async () => {
  await sweepGarbage(local.api.documentClient, local.api.tableName);
  return (await scanTable(local.api.documentClient, local.api.tableName)).filter(
    (item) => 'id' in item || 'magazineId' in item,
  );
};

describe('PUT /magazines', () => {
  beforeEach(async () => {
    expect((await local.client.delete('/magazines')).status).toBe(200);
  });

  it('replaces the whole collection: those sent are created or replaced, the others deleted with their articles', async () => {
    for (const id of ['a', 'b', 'c'])
      expect((await local.client.post('/magazines', magazineBody({ id, title: `Old ${id}` }))).status).toBe(201);
    const keptArticle = await addArticle('a');
    const droppedArticle = await addArticle('b');

    const response = await local.client.put('/magazines', [
      { id: 'a', title: 'New a', tags: [{ name: 'Fresh' }] },
      { id: 'd', title: 'New d', created: '1600000000' },
    ]);
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({ id: 'magazines' });
    expect(response.headers['content-type']).toBe(JSON_TYPE);
    expectVaryAccept(response);

    const all = (await local.client.get('/magazines')).json<Envelope<MagazineView>>();
    expect(all.metadata.resultset.count).toBe(2);
    expect(all.results.map((m) => m.id).sort()).toEqual(['a', 'd']);
    expect(all.results.find((m) => m.id === 'a')?.title).toBe('New a');
    expect((await local.client.get('/magazines/b')).status).toBe(404);
    expect((await local.client.get('/magazines/c')).status).toBe(404);

    expect((await local.client.get(`/articles/${keptArticle}`)).status).toBe(200);
    expect(
      (await local.client.get('/magazines/a/articles')).json<Envelope<ArticleView>>().metadata.resultset.count,
    ).toBe(1);
    expect((await local.client.get(`/articles/${droppedArticle}`)).status).toBe(404);
    const left = await dataItems();
    expect(
      left.filter(
        (item) => item.id === 'b' || item.id === 'c' || item.magazineId === 'b' || item.id === droppedArticle,
      ),
    ).toEqual([]);
  });

  it('makes ids for elements sent without one', async () => {
    const response = await local.client.put('/magazines', [{ title: 'Anon 1' }, { title: 'Anon 2' }]);
    expect(response.status).toBe(200);
    const all = (await local.client.get('/magazines')).json<Envelope<MagazineView>>();
    expect(all.metadata.resultset.count).toBe(2);
    expect(all.results.map((m) => m.title).sort()).toEqual(['Anon 1', 'Anon 2']);
    expect(new Set(all.results.map((m) => m.id)).size).toBe(2);
  });

  it('makes the same ids when the same request comes again, so a repeat leaves the same magazines', async () => {
    const body = [{ title: 'Anon 1' }, { title: 'Anon 2', tags: [{ name: 'Kept' }] }];
    const ids = async () =>
      (await local.client.get('/magazines')).json<Envelope<MagazineView>>().results.map((m) => m.id);
    expect((await local.client.put('/magazines', body)).status).toBe(200);
    const first = await ids();
    expect((await local.client.put('/magazines', body)).status).toBe(200);
    expect(await ids()).toEqual(first);
    // Another request names other magazines, even for an element sent the same.
    expect((await local.client.put('/magazines', [...body, { title: 'Anon 3' }])).status).toBe(200);
    const third = await ids();
    expect(third).toHaveLength(3);
    expect(third.filter((id) => first.includes(id))).toEqual([]);
  });

  it('takes the results of GET /magazines back as its body, and nothing changes', async () => {
    for (let i = 0; i < 4; i++) {
      expect(
        (
          await local.client.post(
            '/magazines',
            magazineBody({
              id: `g${i}`,
              title: `Title <${i}> & "q"`,
              tags: [{ name: 'Ça Va' }, { id: `t${i}`, name: `T${i}` }],
            }),
          )
        ).status,
      ).toBe(201);
    }
    const first = (await local.client.get('/magazines')).json<Envelope<MagazineView>>();
    const response = await local.client.put('/magazines', first.results);
    expect(response.status).toBe(200);
    const second = (await local.client.get('/magazines')).json<Envelope<MagazineView>>();
    expect(second).toEqual(first);
  });

  it('an empty array deletes every magazine', async () => {
    expect((await local.client.post('/magazines', magazineBody({ id: 'e1' }))).status).toBe(201);
    expect((await local.client.put('/magazines', [])).status).toBe(200);
    expect(await count()).toBe(0);
  });

  describe('refuses, changing nothing', () => {
    beforeEach(async () => {
      expect((await local.client.post('/magazines', magazineBody({ id: 'stay', title: 'Stays' }))).status).toBe(201);
    });

    it('a body that is not an array', async () => {
      const response = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
        local.client.put('/magazines', { id: 'x', title: 'Not a list' }),
      );
      expectError(response, { status: 400, baseUrl: local.api.baseUrl, mentions: ['array'] });
    });

    it('two elements with one id', async () => {
      const response = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
        local.client.put('/magazines', [
          { id: 'twin', title: 'One' },
          { id: 'other', title: 'Other' },
          { id: 'twin', title: 'Two' },
        ]),
      );
      expectError(response, { status: 400, baseUrl: local.api.baseUrl, mentions: ['twin'] });
    });

    it('one bad element among good ones, naming it', async () => {
      const response = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
        local.client.put('/magazines', [
          { id: 'fine', title: 'Fine' },
          { id: 'broken', title: '' },
        ]),
      );
      expectError(response, { status: 400, baseUrl: local.api.baseUrl, mentions: ['[1]', 'title'] });
      expect((await local.client.get('/magazines/fine')).status).toBe(404);
    });

    it('an element with an unknown field', async () => {
      const response = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
        local.client.put('/magazines', [{ id: 'fine', title: 'Fine', subtitle: 'no' }]),
      );
      expectError(response, { status: 400, baseUrl: local.api.baseUrl, mentions: ['subtitle'] });
    });

    it('a path that ends with `/`, which names an empty magazine id, not the collection', async () => {
      const response = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
        local.client.put('/magazines/', [{ id: 'fine', title: 'Fine' }]),
      );
      expect(
        expectError(response, { status: 400, baseUrl: local.api.baseUrl, mentions: ['`PUT /magazines/`'] })?.errorCode,
      ).toBe('40013');
    });

    it('an element whose tags repeat an id', async () => {
      const response = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
        local.client.put('/magazines', [{ id: 'fine', title: 'Fine', tags: [{ name: 'Sci Fi' }, { name: 'sci-fi' }] }]),
      );
      expectError(response, { status: 400, baseUrl: local.api.baseUrl, mentions: ['sci-fi'] });
    });
  });
});

describe('DELETE /magazines', () => {
  it('deletes every magazine and its articles; the collection still answers, with count 0', async () => {
    expect(
      (
        await local.client.put('/magazines', [
          { id: 'x1', title: 'X1', tags: [{ name: 'Gone' }] },
          { id: 'x2', title: 'X2' },
        ])
      ).status,
    ).toBe(200);
    const article = await addArticle('x1');

    const response = await local.client.delete('/magazines');
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({ id: 'magazines' });
    expectVaryAccept(response);

    const after = await local.client.get('/magazines');
    expect(after.status).toBe(200);
    expect(after.json<Envelope<MagazineView>>()).toEqual({
      metadata: { resultset: { count: 0, offset: 0, limit: 25 } },
      results: [],
    });
    expect((await local.client.head('/magazines')).status).toBe(200);
    expect((await local.client.get(`/articles/${article}`)).status).toBe(404);
    expect((await local.client.get('/tags')).json<Envelope<unknown>>().metadata.resultset.count).toBe(0);
    expect((await local.client.get('/tags/gone')).status).toBe(404);
    expect(await dataItems()).toEqual([]);
  });

  it('refuses a path that ends with `/` (an empty magazine id, as a client that builds the path from "" makes), deleting nothing', async () => {
    expect((await local.client.post('/magazines', magazineBody({ id: 'kept' }))).status).toBe(201);
    const before = await count();
    expect(before).toBeGreaterThan(0);
    for (const path of ['/magazines/', '/v1/magazines/', '/magazines/?mock=true']) {
      const response = await expectTableUnchanged(local.api.documentClient, local.api.tableName, () =>
        local.client.delete(path),
      );
      expect(
        expectError(response, { status: 400, baseUrl: local.api.baseUrl, mentions: ['`DELETE /magazines/`'] })
          ?.errorCode,
        path,
      ).toBe('40013');
    }
    expect(await count()).toBe(before);
  });

  it('on an empty collection still answers 200 {id: "magazines"}', async () => {
    expect((await local.client.delete('/magazines')).status).toBe(200);
    const again = await local.client.delete('/magazines');
    expect(again.status).toBe(200);
    expect(again.json()).toEqual({ id: 'magazines' });
    expect(await count()).toBe(0);
  });
});

describe('2,000 magazines (more than one transaction holds)', () => {
  it('PUT /magazines replaces them all, counts are exact, then DELETE /magazines removes every one with its articles', {
    timeout: 120_000,
  }, async () => {
    expect((await local.client.delete('/magazines')).status).toBe(200);
    expect((await local.client.post('/magazines', magazineBody({ id: 'bulk-0007', title: 'Before' }))).status).toBe(
      201,
    );
    expect((await local.client.post('/magazines', magazineBody({ id: 'old-one', title: 'Dropped' }))).status).toBe(201);
    const keptArticle = await addArticle('bulk-0007');
    const droppedArticle = await addArticle('old-one');

    const TOTAL = 2000;
    const body = Array.from({ length: TOTAL }, (_, i) => ({
      id: `bulk-${String(i).padStart(4, '0')}`,
      title: `Bulk ${i}`,
      created: String(Date.UTC(2020 + (i % 4), i % 12, 1 + (i % 28)) / 1000),
      tags: i % 5 === 0 ? [{ name: 'Fifth' }] : [],
    }));
    const put = await local.client.put('/magazines', body);
    expect(put.status, put.text).toBe(200);
    expect(put.json()).toEqual({ id: 'magazines' });

    expect(await count()).toBe(TOTAL);
    expect(await count('&year=2021')).toBe(TOTAL / 4);
    expect(await count('&tag=fifth')).toBe(TOTAL / 5);
    expect((await local.client.get('/magazines/old-one')).status).toBe(404);
    expect((await local.client.get(`/articles/${droppedArticle}`)).status).toBe(404);
    expect((await local.client.get('/magazines/bulk-0007')).json<MagazineView>().title).toBe('Bulk 7');
    expect((await local.client.get(`/articles/${keptArticle}`)).status).toBe(200);
    const deep = (await local.client.get('/magazines?offset=1990&limit=20')).json<Envelope<MagazineView>>();
    expect(deep.results).toHaveLength(10);
    expect(deep.metadata.resultset.count).toBe(TOTAL);

    const del = await local.client.delete('/magazines');
    expect(del.status, del.text).toBe(200);
    expect(await count()).toBe(0);
    expect(await count('&tag=fifth')).toBe(0);
    expect((await local.client.get(`/articles/${keptArticle}`)).status).toBe(404);
    expect(await dataItems()).toEqual([]);
  });
});
