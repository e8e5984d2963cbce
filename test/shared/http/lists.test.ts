import { describe, expect, it } from 'vitest';
import { linksAt } from '../../../shared/http/links';
import { listReply, PAGE_BYTES } from '../../../shared/http/lists';

const links = linksAt('https://api.example.com');
const request = (limit: number) => ({
  links,
  path: '/magazines/m1/articles',
  label: undefined,
  query: { limit, sort: 'asc' as const },
  formatParameter: undefined,
  mock: false,
  cursorFor: (position: string, offset: number) => `${position}@${offset}`,
});

/** The worst case of the real article lists: JSON, plus five bytes for each character XML escapes. */
const worstCase = (item: unknown) => {
  const json = JSON.stringify(item);
  return Buffer.byteLength(json) + 5 * (json.match(/[&<>"']/g)?.length ?? 0);
};

describe('list pages', () => {
  it('echo offset and limit, and link first, prev, next and last', () => {
    const reply = listReply(request(2), { items: [{ id: 'c' }, { id: 'd' }], count: 7, offset: 2 }, 'article');
    expect(reply.body).toEqual({
      metadata: { resultset: { count: 7, offset: 2, limit: 2 } },
      results: [{ id: 'c' }, { id: 'd' }],
    });
    expect(reply.headers?.Link).toBe(
      [
        '<https://api.example.com/v1/magazines/m1/articles?sort=asc&offset=0&limit=2>; rel="first"',
        '<https://api.example.com/v1/magazines/m1/articles?sort=asc&offset=0&limit=2>; rel="prev"',
        '<https://api.example.com/v1/magazines/m1/articles?sort=asc&offset=4&limit=2>; rel="next"',
        '<https://api.example.com/v1/magazines/m1/articles?sort=asc&offset=6&limit=2>; rel="last"',
      ].join(', '),
    );
  });

  it('carry a cursor on `next` when the store gave the page an end position', () => {
    const reply = listReply(
      request(2),
      { items: [{ id: 'c' }, { id: 'd' }], count: 7, offset: 2, next: 'pos-d' },
      'article',
    );
    expect(reply.headers?.Link).toContain(
      '<https://api.example.com/v1/magazines/m1/articles?sort=asc&cursor=pos-d%404&limit=2>; rel="next"',
    );
  });

  it('stop before a response Lambda could not return, and say where the page was cut', () => {
    // 100 articles of 100,000 characters, half of them `&`: 10 MB as JSON, more as XML.
    const text = '&a'.repeat(50_000);
    const items = Array.from({ length: 100 }, (_, i) => ({ id: `a${i}`, text }));
    const reply = listReply(
      request(100),
      { items, count: 100, offset: 0, next: 'end-of-whole-page' },
      'article',
      {},
      worstCase,
    );
    const body = reply.body as { metadata: { resultset: { limit: number } }; results: unknown[] };
    expect(body.results.length).toBeGreaterThan(0);
    expect(body.results.length).toBeLessThan(100);
    expect(body.metadata.resultset.limit).toBe(body.results.length);
    expect(Buffer.byteLength(JSON.stringify(body)) + 4 * body.results.length * 50_000).toBeLessThanOrEqual(
      PAGE_BYTES + 1000,
    );
    expect(reply.headers?.Link).toContain(`offset=${body.results.length}&limit=${body.results.length}>; rel="next"`);
    expect(reply.headers?.Link).not.toContain('cursor=');
  });
});
