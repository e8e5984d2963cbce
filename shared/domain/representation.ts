import type { Links } from '../http/links';
import { listReply, type ListRequest } from '../http/paging';
import { ok, type RepresentationReply } from '../http/replies';
import { toArticle, type StoredArticle } from './article';
import type { Page } from './list-query';
import { selectFields, toMagazine, type StoredMagazine } from './magazine';
import { toTagResource, type TagRef } from './tag';

/** How each representation looks in XML. */
export const magazineXml = { root: 'magazine', names: { tags: 'tag' } } as const;
export const articleXml = { root: 'article' } as const;
export const tagXml = { root: 'tag' } as const;

type ListContext = ListRequest;

export const magazineReply = (links: Links, stored: StoredMagazine, fields?: readonly string[]): RepresentationReply =>
  ok(selectFields(toMagazine(links, stored), fields), magazineXml, {
    revision: stored.revision,
    lastModified: stored.updated,
  });

export const magazineListReply = (request: ListContext, page: Page<StoredMagazine>): RepresentationReply =>
  listReply(
    request,
    { ...page, items: page.items.map((m) => selectFields(toMagazine(request.links, m), request.query.fields)) },
    'magazine',
    { tags: 'tag' },
  );

/** Articles never change once written, so their ETag is a hash of the bytes sent. */
export const articleReply = (stored: StoredArticle): RepresentationReply =>
  ok(toArticle(stored), articleXml, { lastModified: stored.created });

export const articleListReply = (request: ListContext, page: Page<StoredArticle>): RepresentationReply =>
  listReply(request, { ...page, items: page.items.map(toArticle) }, 'article');

export interface TagSummary extends TagRef {
  readonly magazineCount: number;
  /** Unix seconds; an upper bound of the tag's last change. */
  readonly lastModified?: number;
  /** The revision of the collection the tag was read from. */
  readonly revision?: string;
}

export const tagReply = (links: Links, { lastModified, revision, ...tag }: TagSummary): RepresentationReply =>
  ok(toTagResource(links, tag, tag.magazineCount), tagXml, {
    ...(lastModified !== undefined && { lastModified }),
    ...(revision !== undefined && { revision }),
  });

export const tagListReply = (request: ListContext, page: Page<TagSummary>): RepresentationReply =>
  listReply(
    request,
    { ...page, items: page.items.map((tag) => toTagResource(request.links, tag, tag.magazineCount)) },
    'tag',
  );
