import { describe, expect, it } from 'vitest';
import { parseLinkHeader } from '../support/http';
import { articleBody, type Envelope, expectError, magazineBody, uniqueId, useLocalApi } from './expect-api';

const local = useLocalApi();

/**
 * A `next` cursor followed after the list changed before it: the page resumes right after the
 * item it came from, says where it stands now, and links on while items are left.
 */

interface Item {
  readonly id: string;
}

/** Every page from `path`, following `next` links; `between` runs after the first page. */
const walk = async (path: string, between: () => Promise<void>) => {
  const pages: { ids: string[]; offset: number; count: number }[] = [];
  let url: string | undefined = path;
  while (url) {
    const response = await local.client.get(url);
    expect(response.status).toBe(200);
    const body = response.json<Envelope<Item>>();
    pages.push({
      ids: body.results.map((item) => item.id),
      offset: body.metadata.resultset.offset,
      count: body.metadata.resultset.count,
    });
    const next = parseLinkHeader(response.headers.link).next;
    url = next && new URL(next).pathname.replace(/^\/v1/, '') + new URL(next).search;
    if (pages.length === 1) await between();
  }
  return pages;
};

describe('a cursor followed after items before it were deleted', () => {
  const magazines = async (tag: string, n: number) => {
    const ids = Array.from({ length: n }, (_, index) => `${tag}-${index + 1}`);
    for (const [index, id] of ids.entries())
      expect(
        (
          await local.client.post('/magazines', {
            id,
            title: id,
            created: String(1_000 + index),
            tags: [{ id: tag, name: tag }],
          })
        ).status,
      ).toBe(201);
    return ids;
  };

  it.each(['asc', 'desc'] as const)('reaches every item left, at the offsets they have now (%s)', async (sort) => {
    const tag = uniqueId('cur');
    const ids = await magazines(tag, 7);
    const ordered = sort === 'asc' ? ids : [...ids].reverse();
    const pages = await walk(`/magazines?tag=${tag}&sort=${sort}&limit=3&fields=id`, async () => {
      for (const id of ordered.slice(0, 2)) expect((await local.client.delete(`/magazines/${id}`)).status).toBe(200);
    });
    expect(pages.map((page) => page.ids)).toEqual([ordered.slice(0, 3), ordered.slice(3, 6), ordered.slice(6)]);
    expect(pages.map((page) => [page.offset, page.count])).toEqual([
      [0, 7],
      [1, 5],
      [4, 5],
    ]);
  });

  it('reaches every tag left in /tags, at the offsets they have now', async () => {
    const prefix = `zzzz-${uniqueId('t')}`;
    const tags = Array.from({ length: 5 }, (_, index) => `${prefix}-${index + 1}`);
    for (const tag of tags)
      expect(
        (await local.client.post('/magazines', { id: tag, title: tag, tags: [{ id: tag, name: tag }] })).status,
      ).toBe(201);
    const { count } = (await local.client.get('/tags?limit=1')).json<Envelope<Item>>().metadata.resultset;
    const pages = await walk(`/tags?offset=${count - 5}&limit=2`, async () => {
      expect((await local.client.delete(`/magazines/${tags[0]}`)).status).toBe(200);
    });
    expect(pages.map((page) => page.ids)).toEqual([tags.slice(0, 2), tags.slice(2, 4), tags.slice(4)]);
    expect(pages.map((page) => page.offset)).toEqual([count - 5, count - 4, count - 2]);
  });
});

describe('a cursor of the articles of a magazine', () => {
  const addArticles = async (id: string, n: number) => {
    for (let index = 0; index < n; index++)
      expect((await local.client.post(`/magazines/${id}/articles`, articleBody({ title: `A${index}` }))).status).toBe(
        201,
      );
  };

  it('places its page where the articles stand now, newest first, after more were added', async () => {
    const id = uniqueId('arts');
    expect((await local.client.post('/magazines', magazineBody({ id }))).status).toBe(201);
    await addArticles(id, 7);
    const pages = await walk(`/magazines/${id}/articles?sort=desc&limit=3&fields=title`, () => addArticles(id, 2));
    expect(pages.map((page) => [page.offset, page.count])).toEqual([
      [0, 7],
      [5, 9],
      [8, 9],
    ]);
  });

  it('is refused (400) once its magazine was deleted and made anew: it is another list', async () => {
    const id = uniqueId('arts');
    expect((await local.client.post('/magazines', magazineBody({ id }))).status).toBe(201);
    await addArticles(id, 5);
    const first = await local.client.get(`/magazines/${id}/articles?limit=2`);
    const next = parseLinkHeader(first.headers.link).next ?? '';
    expect((await local.client.delete(`/magazines/${id}`)).status).toBe(200);
    expect((await local.client.post('/magazines', magazineBody({ id }))).status).toBe(201);
    await addArticles(id, 5);
    const response = await local.client.get(new URL(next).pathname.replace(/^\/v1/, '') + new URL(next).search);
    expectError(response, { status: 400, baseUrl: local.api.baseUrl, mentions: ['`cursor`', 'deleted since'] });
  });
});
