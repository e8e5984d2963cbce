import type { Page } from '../../domain/paging';
import type { TagSummary } from '../../domain/tag';
import type { Links } from '../links';
import { type ListContext, listReply } from '../lists';
import { ok, type RepresentationReply } from '../replies';
import { tagUrl } from './magazine';
import type { TagResourceRepresentation } from './schemas';

const toTagResource = (links: Links, tag: TagSummary): TagResourceRepresentation => ({
  id: tag.id,
  type: 'tag',
  name: tag.name,
  url: tagUrl(links, tag.id),
  magazine_count: tag.magazineCount,
});

export const tagReply = (links: Links, tag: TagSummary): RepresentationReply =>
  ok(
    toTagResource(links, tag),
    { root: 'tag' },
    {
      ...(tag.lastModified !== undefined && { lastModified: tag.lastModified }),
      ...(tag.revision !== undefined && { revision: tag.revision }),
    },
  );

export const tagListReply = (request: ListContext, page: Page<TagSummary>): RepresentationReply =>
  listReply(request, { ...page, items: page.items.map((tag) => toTagResource(request.links, tag)) }, 'tag');
