import type { Page, PageQuery } from '../domain/list-query';
import { MAGAZINE_FIELDS } from '../domain/magazine';
import type { Links } from './links';
import type { Format } from './negotiation';
import { ok, type RepresentationReply } from './replies';

export interface ListRequest {
  readonly links: Links;
  /** The operation path with its parameters filled in, such as `/magazines/abc/articles`. */
  readonly path: string;
  /** Kept on the links, so that the next page comes in the format this one did. */
  readonly label: string | undefined;
  readonly query: PageQuery & {
    readonly year?: number | undefined;
    readonly tag?: string | undefined;
    readonly fields?: readonly string[] | undefined;
  };
  /** The `format` query parameter, when the request chose its format so. */
  readonly formatParameter: Format | undefined;
  readonly mock: boolean;
}

/**
 * The filters a page link keeps, rebuilt from the validated query rather than copied from the
 * request: unknown parameters are dropped and `fields` keeps only magazine fields, so the `Link`
 * header stays a few hundred bytes beyond its paths whatever the request sent.
 */
const linkFilters = ({ query, formatParameter, mock }: ListRequest): [string, string][] => {
  const filters: [string, string][] = [];
  if (query.year !== undefined) filters.push(['year', String(query.year).padStart(4, '0')]);
  if (query.tag !== undefined) filters.push(['tag', query.tag]);
  const fields = MAGAZINE_FIELDS.filter((field) => query.fields?.includes(field));
  if (fields.length > 0) filters.push(['fields', fields.join(',')]);
  filters.push(['sort', query.sort]);
  if (formatParameter) filters.push(['format', formatParameter]);
  if (mock) filters.push(['mock', 'True']);
  return filters;
};

/** RFC 8288 links to the first, previous, next and last pages that exist. */
const linkHeader = (request: ListRequest, count: number): string | undefined => {
  const { links, path, label, query } = request;
  const { offset, limit } = query;
  const filters = linkFilters(request);
  const href = (at: number) => {
    const params = new URLSearchParams([...filters, ['offset', String(at)], ['limit', String(limit)]]);
    return `<${links.to(label ? `${path}.${label}` : path)}?${params.toString()}>`;
  };
  const lastOffset = count === 0 ? 0 : Math.floor((count - 1) / limit) * limit;
  const relations: string[] = [`${href(0)}; rel="first"`];
  if (offset > 0) relations.push(`${href(Math.max(0, Math.min(offset - limit, lastOffset)))}; rel="prev"`);
  if (offset + limit < count) relations.push(`${href(offset + limit)}; rel="next"`);
  relations.push(`${href(lastOffset)}; rel="last"`);
  return relations.join(', ');
};

/**
 * Lambda answers at most 6 MB. A page of long articles (up to 100,000 characters each) could pass
 * that, so a page stops before its worst-case size (XML escaping included) does, and `limit`
 * says how many items the page was cut to: the `next` link carries on from there.
 */
export const PAGE_BYTES = 5 * 1024 * 1024;

const worstCaseBytes = (item: unknown) => {
  const json = JSON.stringify(item);
  // `&` becomes `&amp;` in XML: up to four bytes more per escaped character.
  return Buffer.byteLength(json) + 4 * (json.match(/[&<>"']/g)?.length ?? 0);
};

const fittingCount = (items: readonly unknown[]) => {
  let bytes = 0;
  for (let i = 0; i < items.length; i++) {
    bytes += worstCaseBytes(items[i]);
    if (bytes > PAGE_BYTES) return Math.max(i, 1);
  }
  return items.length;
};

/** The list envelope (spec 2.4) with a `Link` header; `item` names the XML element of one result. */
export const listReply = <T>(
  request: ListRequest,
  page: Page<T>,
  item: string,
  names: Record<string, string> = {},
): RepresentationReply => {
  const fits = fittingCount(page.items);
  const applied = fits < page.items.length ? { ...request, query: { ...request.query, limit: fits } } : request;
  const link = linkHeader(applied, page.count);
  return ok(
    {
      metadata: { resultset: { count: page.count, offset: applied.query.offset, limit: applied.query.limit } },
      results: page.items.slice(0, fits),
    },
    { root: 'response', names: { results: item, ...names } },
    {
      ...(page.lastModified !== undefined && { lastModified: page.lastModified }),
      ...(page.revision !== undefined && { revision: page.revision }),
      ...(link && { headers: { Link: link } }),
    },
  );
};
