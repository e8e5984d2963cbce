import { magazineTagsForm } from '../config';
import type { TagRef } from '../domain/tag';

/**
 * A magazine's tags as its item holds them: each `<id> <name>` in one string, since an id holds no
 * space (IDENTIFIER_PATTERN), or as 1.0.0 wrote them, a map of `id` and `name`, which costs 28
 * bytes more a tag on the wire (a page reads a hundred magazines). Both forms are read; which one
 * is written is a deployment's setting (`magazineTagsForm` in config.ts says why).
 */
export const encodeTags = (tags: readonly TagRef[]): (string | { id: string; name: string })[] =>
  magazineTagsForm() === 'string'
    ? tags.map((tag) => `${tag.id} ${tag.name}`)
    : tags.map((tag) => ({ id: tag.id, name: tag.name }));

const decodeTag = (stored: unknown): TagRef | undefined => {
  if (typeof stored === 'string') {
    const space = stored.indexOf(' ');
    return space > 0 ? { id: stored.slice(0, space), name: stored.slice(space + 1) } : undefined;
  }
  const { id, name } = (stored ?? {}) as Partial<Record<keyof TagRef, unknown>>;
  return typeof id === 'string' && typeof name === 'string' ? { id, name } : undefined;
};

/** The tags an item's `tags` holds, in either form; undefined when it is not a list of tags. */
export const decodeTags = (stored: unknown): TagRef[] | undefined => {
  if (!Array.isArray(stored)) return undefined;
  const tags: TagRef[] = [];
  for (const element of stored) {
    const tag = decodeTag(element);
    if (!tag) return undefined;
    tags.push(tag);
  }
  return tags;
};
