import type { Links } from '../http/links';

export interface TagRef {
  readonly id: string;
  readonly name: string;
}

/** A tag as it appears inside a magazine. */
export interface Tag extends TagRef {
  readonly url: string;
}

/** A tag as a resource of its own (`/tags/{tagId}`). */
export interface TagResource extends Tag {
  readonly type: 'tag';
  readonly magazine_count: number;
}

/**
 * A tag id from its name: accents removed, lower case, runs of anything but
 * `a-z0-9` turned into one `-`, no `-` at either end. Empty when nothing is left.
 */
export const tagIdFromName = (name: string): string =>
  name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64)
    .replace(/-+$/, '');

export const tagUrl = (links: Links, id: string) => links.to(`/tags/${encodeURIComponent(id)}`);

export const toTag = (links: Links, tag: TagRef): Tag => ({ id: tag.id, name: tag.name, url: tagUrl(links, tag.id) });

export const toTagResource = (links: Links, tag: TagRef, magazineCount: number): TagResource => ({
  id: tag.id,
  type: 'tag',
  name: tag.name,
  url: tagUrl(links, tag.id),
  magazine_count: magazineCount,
});
