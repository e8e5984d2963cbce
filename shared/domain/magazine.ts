import * as z from 'zod/mini';
import { ApiError } from '../http/errors';
import type { Links } from '../http/links';
import { identifier, nowInSeconds, text, unixSeconds } from './fields';
import { tagIdFromName, toTag, type Tag, type TagRef } from './tag';

export const MAX_TAGS = 32;

const tagNameRule = 'a string of 1 to 64 characters';

const tagInput = z.strictObject(
  {
    id: z.optional(identifier()),
    name: z
      .string({
        error: (issue) => (issue.input === undefined ? `is required: ${tagNameRule}` : `must be ${tagNameRule}`),
      })
      .check(z.minLength(1, { error: `must be ${tagNameRule}` }), z.maxLength(64, { error: `must be ${tagNameRule}` })),
    /** Written by the server; a value sent in (from a representation read earlier) is ignored. */
    url: z.optional(z.unknown()),
  },
  { error: 'must be an object `{"id"?, "name"}`' },
);

/** The body of POST /magazines and PUT /magazines/{id}; an array of them for PUT /magazines. */
const tagsRule = `must be an array of at most ${MAX_TAGS} tags`;

export const magazineInput = z.strictObject(
  {
    id: z.optional(identifier()),
    type: z.optional(z.literal('magazine', { error: 'must be `magazine`' })),
    title: text(1, 256),
    tags: z.optional(z.array(tagInput, { error: tagsRule }).check(z.maxLength(MAX_TAGS, { error: tagsRule }))),
    created: z.optional(unixSeconds(nowInSeconds)),
  },
  { error: 'must be a JSON object describing a magazine' },
);

export type MagazineInput = z.output<typeof magazineInput>;

export const magazineListInput = z.array(magazineInput, { error: 'must be a JSON array of magazines' });

/** A magazine as the client asked it to be, with tag ids settled. */
export interface MagazineDraft {
  readonly id: string | undefined;
  readonly title: string;
  readonly tags: readonly TagRef[];
  readonly created: number | undefined;
}

/** What the store holds of a magazine. */
export interface StoredMagazine {
  readonly id: string;
  readonly title: string;
  readonly tags: readonly TagRef[];
  readonly created: number;
  /** Unix seconds of the last change to the magazine itself. */
  readonly updated: number;
  /** Changes on every write; the `ETag` is derived from it. */
  readonly revision: string;
}

export interface Magazine {
  readonly id: string;
  readonly type: 'magazine';
  readonly title: string;
  readonly tags: readonly Tag[];
  readonly created: string;
}

/** Settles tag ids (derived from names where left out) and refuses duplicates. */
export const toDraft = (input: MagazineInput, at = ''): MagazineDraft => {
  const seen = new Set<string>();
  const tags = (input.tags ?? []).map((tag, index) => {
    const id = tag.id ?? tagIdFromName(tag.name);
    if (!id) {
      throw new ApiError(
        '40010',
        `Body field \`${at}tags[${index}].name\` (\`${tag.name}\`) leaves no letters or digits to derive a tag id from; give the tag an explicit \`id\`.`,
      );
    }
    if (seen.has(id))
      throw new ApiError(
        '40009',
        `Body field \`${at}tags[${index}]\` repeats the tag id \`${id}\`; each tag of a magazine must have its own id.`,
      );
    seen.add(id);
    return { id, name: tag.name };
  });
  return { id: input.id, title: input.title, tags, created: input.created };
};

export const toMagazine = (
  links: Links,
  stored: Pick<StoredMagazine, 'id' | 'title' | 'tags' | 'created'>,
): Magazine => ({
  id: stored.id,
  type: 'magazine',
  title: stored.title,
  tags: stored.tags.map((tag) => toTag(links, tag)),
  created: String(stored.created),
});

/** The fields of a magazine's representation, in the order they are written. */
export const MAGAZINE_FIELDS = ['id', 'type', 'title', 'tags', 'created'] as const;

/** `fields=title,tags`: only those fields plus `id`; names that are not magazine fields are ignored. */
export const selectFields = (magazine: Magazine, fields: readonly string[] | undefined): Partial<Magazine> => {
  if (!fields) return magazine;
  const wanted = new Set(['id', ...fields]);
  return Object.fromEntries(Object.entries(magazine).filter(([key]) => wanted.has(key))) as Partial<Magazine>;
};
