import { createHash } from 'node:crypto';
import { InvalidInput } from './errors';
import { isIdentifier } from './fields';
import type { MagazineInput } from './magazine-input';
import { type TagRef, tagIdFromName } from './tag';

/** A magazine as the client asked it to be, with tag ids settled. */
export interface MagazineDraft {
  readonly id: string | undefined;
  readonly title: string;
  readonly tags: readonly TagRef[];
  readonly created: number | undefined;
}

export type IdentifiedDraft = MagazineDraft & { readonly id: string };

/** A magazine as the store holds it. */
export interface Magazine {
  readonly id: string;
  readonly title: string;
  readonly tags: readonly TagRef[];
  /** Unix seconds. */
  readonly created: number;
  /** Unix seconds of the last change to the magazine itself. */
  readonly updated: number;
  /** Changes on every write; the `ETag` is derived from it. */
  readonly revision: string;
}

/** The fields of a magazine's representation, in the order they are written. */
export const MAGAZINE_FIELDS = ['id', 'type', 'title', 'tags', 'created'] as const;

/** Settles tag ids (derived from names where left out) and refuses duplicates; `at` prefixes field names (`[3].`). */
export const toDraft = (input: MagazineInput, at = ''): MagazineDraft => {
  const seen = new Set<string>();
  const tags = (input.tags ?? []).map((tag, index) => {
    const id = tag.id ?? tagIdFromName(tag.name);
    if (!id) {
      throw new InvalidInput(
        'tag-id-underivable',
        `Body field \`${at}tags[${index}].name\` (\`${tag.name}\`) leaves no letters or digits to derive a tag id from; give the tag an explicit \`id\`.`,
      );
    }
    if (seen.has(id)) {
      throw new InvalidInput(
        'duplicate-tag',
        `Body field \`${at}tags[${index}]\` repeats the tag id \`${id}\`; each tag of a magazine must have its own id.`,
      );
    }
    seen.add(id);
    return { id, name: tag.name };
  });
  return { id: input.id, title: input.title, tags, created: input.created };
};

/**
 * The id of an element of PUT /magazines sent without one, made from the whole request and the
 * element's place in it rather than at random: the same request sent again (the retry of one cut
 * short) names the same magazines, so it resumes the first rather than waiting out its lease, and
 * sending it twice leaves the collection as sending it once did. A UUID in form (version 8, the
 * form for ids made by a rule of one's own), as the ids of POST are.
 */
const requestDerivedId = (request: string, index: number) => {
  const hex = createHash('sha256').update(`${index}\n${request}`).digest('hex');
  const variant = (8 | (Number.parseInt(hex.charAt(16), 16) & 3)).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};

/** The drafts of PUT /magazines: every element checked before anything is written; ids left out are made here. */
export const identifyDrafts = (inputs: readonly MagazineInput[]): IdentifiedDraft[] => {
  const drafts = inputs.map((input, index) => toDraft(input, `[${index}].`));
  const request = drafts.some((draft) => draft.id === undefined)
    ? JSON.stringify(drafts.map((d) => [d.id ?? null, d.title, d.tags, d.created ?? null]))
    : '';
  const seen = new Map<string, number>();
  return drafts.map((draft, index) => {
    const id = draft.id ?? requestDerivedId(request, index);
    const first = seen.get(id);
    if (first !== undefined) {
      throw new InvalidInput(
        'duplicate-id',
        `Elements [${first}] and [${index}] of the body have the same \`id\` (\`${id}\`); each magazine must have its own id.`,
      );
    }
    seen.set(id, index);
    return { ...draft, id };
  });
};

/** The draft of PUT /magazines/{id}: the path names the magazine; a body `id`, if given, must agree. */
export const draftFor = (id: string, input: MagazineInput): IdentifiedDraft => {
  if (!isIdentifier(id)) {
    throw new InvalidInput(
      'invalid-id',
      `Path segment \`{id}\` (\`${id}\`) must be 1 to 64 letters, digits, \`_\` or \`-\`, starting with a letter or digit.`,
    );
  }
  if (input.id !== undefined && input.id !== id) {
    throw new InvalidInput(
      'id-mismatch',
      `Body field \`id\` (\`${input.id}\`) differs from the path's \`{id}\` (\`${id}\`); leave it out or make them equal.`,
    );
  }
  return { ...toDraft(input), id };
};
