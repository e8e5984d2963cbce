import type { Magazine } from '../../domain/magazine';
import { MAGAZINE_FIELDS } from '../../domain/magazine';
import type { Page } from '../../domain/paging';
import type { TagRef } from '../../domain/tag';
import type { Links } from '../links';
import { type ListContext, listReply } from '../lists';
import { ok, type RepresentationReply } from '../replies';
import type { MagazineRepresentation, MagazineSelection, TagRepresentation } from './schemas';

/** How a magazine looks in XML: `<magazine>`, its tags as `<tags><tag>…</tag></tags>`. */
const magazineXml = { root: 'magazine', names: { tags: 'tag' } } as const;

/**
 * Tag URLs already written, by links and tag id: a page of magazines names the same few tags many
 * times, and one string written again is serialised faster than a new one. Kept to a bound.
 */
const tagUrls = new WeakMap<Links, Map<string, string>>();
const TAG_URLS_KEPT = 1_000;

export const tagUrl = (links: Links, id: string) => {
  let urls = tagUrls.get(links);
  if (!urls) {
    urls = new Map();
    tagUrls.set(links, urls);
  }
  let url = urls.get(id);
  if (url === undefined) {
    if (urls.size >= TAG_URLS_KEPT) urls.clear();
    url = links.to(`/tags/${encodeURIComponent(id)}`);
    urls.set(id, url);
  }
  return url;
};

const toTag = (links: Links, tag: TagRef): TagRepresentation => ({
  id: tag.id,
  name: tag.name,
  url: tagUrl(links, tag.id),
});

export const toMagazineRepresentation = (links: Links, magazine: Magazine): MagazineRepresentation => ({
  id: magazine.id,
  type: 'magazine',
  title: magazine.title,
  tags: magazine.tags.map((tag) => toTag(links, tag)),
  created: String(magazine.created),
});

/** `fields=title,tags`: only those fields plus `id`; names that are not magazine fields are ignored. */
const selectFields = (magazine: MagazineRepresentation, fields: readonly string[] | undefined): MagazineSelection => {
  if (!fields) return magazine;
  const wanted = new Set(['id', ...fields]);
  const selection: Record<string, unknown> = {};
  for (const field of MAGAZINE_FIELDS) if (wanted.has(field)) selection[field] = magazine[field];
  return selection as MagazineSelection;
};

export const magazineReply = (links: Links, magazine: Magazine, fields?: readonly string[]): RepresentationReply =>
  ok(selectFields(toMagazineRepresentation(links, magazine), fields), magazineXml, {
    revision: magazine.revision,
    lastModified: magazine.updated,
  });

export const magazineListReply = (request: ListContext, page: Page<Magazine>): RepresentationReply =>
  listReply(
    request,
    {
      ...page,
      items: page.items.map((m) => selectFields(toMagazineRepresentation(request.links, m), request.query.fields)),
    },
    'magazine',
    { tags: 'tag' },
  );
