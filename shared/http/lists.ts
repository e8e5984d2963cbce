import { MAGAZINE_FIELDS } from '../domain/magazine';
import type { Page } from '../domain/paging';
import type { Links } from './links';
import type { Format } from './negotiation';
import { ok, type RepresentationReply } from './replies';

/** What a list's envelope and `Link` header are made from: the request as the handler received it. */
export interface ListContext {
  readonly links: Links;
  /** The operation path with its parameters filled in, such as `/magazines/abc/articles`. */
  readonly path: string;
  /** Kept on the links, so that the next page comes in the format this one did. */
  readonly label: string | undefined;
  readonly query: {
    readonly limit: number;
    readonly sort: 'asc' | 'desc';
    readonly year?: number | undefined;
    readonly tag?: string | undefined;
    readonly fields?: readonly string[] | undefined;
  };
  /** The `format` query parameter, when the request chose its format so. */
  readonly formatParameter: Format | undefined;
  readonly mock: boolean;
  /** Turns a page's `next` position into the `cursor` its `next` link carries. */
  readonly cursorFor: (position: string, offset: number) => string;
}

/**
 * The filters a page link keeps, rebuilt from the validated query rather than copied from the
 * request: unknown parameters are dropped and `fields` keeps only magazine fields, so the `Link`
 * header stays a few hundred bytes beyond its paths whatever the request sent.
 */
const linkFilters = ({ query, formatParameter, mock }: ListContext): [string, string][] => {
  const filters: [string, string][] = [];
  if (query.year !== undefined) filters.push(['year', String(query.year).padStart(4, '0')]);
  if (query.tag !== undefined) filters.push(['tag', query.tag]);
  // A `fields` that names no magazine field still selects: the page shows `id` alone, and so must the next.
  const fields = MAGAZINE_FIELDS.filter((field) => query.fields?.includes(field));
  if (query.fields) filters.push(['fields', fields.join(',') || 'id']);
  filters.push(['sort', query.sort]);
  if (formatParameter) filters.push(['format', formatParameter]);
  if (mock) filters.push(['mock', 'True']);
  return filters;
};

/** Characters that form encoding (URLSearchParams) leaves as they are: offsets and cursors are made of them. */
const FORM_SAFE = /^[A-Za-z0-9*._-]*$/;

/** A value as URLSearchParams encodes it. */
const formValue = (value: string) =>
  FORM_SAFE.test(value) ? value : new URLSearchParams([['', value]]).toString().slice(1);

/**
 * RFC 8288 links to the first, previous, next and last pages that exist. `next` carries a cursor
 * when the store gave the page's end position (a page at any depth then costs one page), an
 * offset otherwise.
 */
const linkHeader = (context: ListContext, page: Page<unknown>, limit: number): string => {
  const { links, path, label } = context;
  // Every link has the same target and filters: encoded once, each link adding where it starts and its limit.
  const target = `${links.to(label ? `${path}.${label}` : path)}?${new URLSearchParams(linkFilters(context)).toString()}`;
  const href = ([name, value]: [string, string]) => `<${target}&${name}=${formValue(value)}&limit=${limit}>`;
  const at = (offset: number): [string, string] => ['offset', String(offset)];
  const { count, offset } = page;
  const lastOffset = count === 0 ? 0 : Math.floor((count - 1) / limit) * limit;
  const relations = [`${href(at(0))}; rel="first"`];
  if (offset > 0) relations.push(`${href(at(Math.max(0, Math.min(offset - limit, lastOffset))))}; rel="prev"`);
  if (offset + page.items.length < count) {
    const nextOffset = offset + page.items.length;
    relations.push(
      `${href(page.next ? ['cursor', context.cursorFor(page.next, nextOffset)] : at(nextOffset))}; rel="next"`,
    );
  }
  relations.push(`${href(at(lastOffset))}; rel="last"`);
  return relations.join(', ');
};

/**
 * Lambda answers at most 6 MB. A page of long articles (up to 100,000 characters each) could pass
 * that, so such a page stops before its worst-case size does, and `limit` says how many items the
 * page was cut to: the `next` link carries on from there.
 */
export const PAGE_BYTES = 5 * 1024 * 1024;

/** How many of the items fit under PAGE_BYTES, by a worst-case size estimate of each. */
const fittingCount = (items: readonly unknown[], worstCaseBytes: (item: never) => number) => {
  let bytes = 0;
  for (let i = 0; i < items.length; i++) {
    bytes += worstCaseBytes(items[i] as never);
    if (bytes > PAGE_BYTES) return Math.max(i, 1);
  }
  return items.length;
};

/**
 * The list envelope with a `Link` header; `item` names the XML element of one result. Lists
 * whose items could add up to more than a response can carry pass `worstCaseBytes`.
 */
export const listReply = <T>(
  context: ListContext,
  page: Page<T>,
  item: string,
  names: Record<string, string> = {},
  worstCaseBytes?: (item: T) => number,
): RepresentationReply => {
  const fits = worstCaseBytes ? fittingCount(page.items, worstCaseBytes) : page.items.length;
  const cut = fits < page.items.length;
  const items = cut ? page.items.slice(0, fits) : page.items;
  // A page cut short here resumes by offset: the store's end position belongs to the whole page.
  const shown = cut ? { ...page, items, next: undefined } : page;
  // Short of `limit` before the end (cut here, or by the store's 1 MB a read): `limit` says how many it holds.
  const short = items.length < context.query.limit && page.offset + items.length < page.count;
  const limit = cut || short ? Math.max(1, items.length) : context.query.limit;
  return ok(
    { metadata: { resultset: { count: page.count, offset: page.offset, limit } }, results: items },
    { root: 'response', names: { results: item, ...names } },
    {
      ...(page.lastModified !== undefined && { lastModified: page.lastModified }),
      ...(page.revision !== undefined && { revision: page.revision }),
      headers: { Link: linkHeader(context, shown, limit) },
    },
  );
};
