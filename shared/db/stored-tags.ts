import type { TagRef } from '../domain/tag';

/**
 * A magazine's tags as its item holds them: each `<id> <name>` in one string, since an id holds no
 * space (IDENTIFIER_PATTERN). A page reads a hundred magazines, and a tag stored as a map of `id`
 * and `name` costs 28 bytes more on the wire. Items written before 2026-11-28 hold such maps, and
 * both forms are read.
 */
export const encodeTags = (tags: readonly TagRef[]): string[] => tags.map((tag) => `${tag.id} ${tag.name}`);

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
