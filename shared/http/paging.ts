import type { Page, PageQuery } from '../domain/list-query';
import type { Links } from './links';
import { ok, type RepresentationReply } from './replies';

interface ListRequest {
  readonly links: Links;
  /** The operation path with its parameters filled in, such as `/magazines/abc/articles`. */
  readonly path: string;
  /** Kept on the links, so that the next page comes in the format this one did. */
  readonly label: string | undefined;
  readonly query: PageQuery;
  /** The query string as sent, so that links keep the client's filters. */
  readonly rawQuery: Readonly<Record<string, string>>;
}

/** RFC 8288 links to the first, previous, next and last pages that exist. */
const linkHeader = ({ links, path, label, query, rawQuery }: ListRequest, count: number): string | undefined => {
  const { offset, limit } = query;
  const href = (at: number) => {
    const params = new URLSearchParams({ ...rawQuery, offset: String(at), limit: String(limit) });
    return `<${links.to(label ? `${path}.${label}` : path)}?${params.toString()}>`;
  };
  const lastOffset = count === 0 ? 0 : Math.floor((count - 1) / limit) * limit;
  const relations: string[] = [`${href(0)}; rel="first"`];
  if (offset > 0) relations.push(`${href(Math.max(0, Math.min(offset - limit, lastOffset)))}; rel="prev"`);
  if (offset + limit < count) relations.push(`${href(offset + limit)}; rel="next"`);
  relations.push(`${href(lastOffset)}; rel="last"`);
  return relations.join(', ');
};

/** The list envelope (spec 2.4) with a `Link` header; `item` names the XML element of one result. */
export const listReply = <T>(request: ListRequest, page: Page<T>, item: string, names: Record<string, string> = {}): RepresentationReply => {
  const link = linkHeader(request, page.count);
  return ok(
    {
      metadata: { resultset: { count: page.count, offset: request.query.offset, limit: request.query.limit } },
      results: page.items,
    },
    { root: 'response', names: { results: item, ...names } },
    {
      ...(page.lastModified !== undefined && { lastModified: page.lastModified }),
      ...(page.revision !== undefined && { revision: page.revision }),
      ...(link && { headers: { Link: link } }),
    },
  );
};
