import type { Entry } from '../../shared/db/ranked';
import type { Magazine } from '../../shared/domain/magazine';

/** A magazine with only what the tag lists count: its id and tags (`[tagId, spelling]`). */
export const taggedMagazine = (id: string, tags: readonly (readonly [string, string])[]): Magazine => ({
  id,
  title: 'T',
  created: 1,
  tags: tags.map(([tagId, name]) => ({ id: tagId, name })),
  updated: 1,
  revision: 'r',
});

/** The tags in use by a recount, in id order: magazines carrying each, and each spelling's count (sorted). */
export const recountTags = (magazines: Iterable<Magazine>): Entry[] => {
  const members = new Map<string, Map<string, number>>();
  for (const m of magazines)
    for (const tag of m.tags) {
      const names = members.get(tag.id) ?? new Map<string, number>();
      members.set(tag.id, names);
      names.set(tag.name, (names.get(tag.name) ?? 0) + 1);
    }
  return [...members]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([key, names]) => ({
      key,
      n: [...names.values()].reduce((sum, count) => sum + count, 0),
      names: [...names].sort(),
    }));
};
