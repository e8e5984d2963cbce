import * as v from 'valibot';
import { identifier, maxChars, minChars, nowInSeconds, requiredOr, text, unixSeconds } from './fields';

/**
 * The bodies a client sends to make magazines, apart from what a magazine is (magazine.ts): a
 * schema is made when its module loads, so only the functions that take a body (and the
 * document) make these and carry them.
 */

export const MAX_TAGS = 32;

const tagNameRule = 'a string of 1 to 64 characters';

export const tagInput = v.strictObject(
  {
    id: v.optional(identifier()),
    name: v.pipe(
      v.string(requiredOr(tagNameRule)),
      ...minChars(1, `must be ${tagNameRule}`),
      ...maxChars(64, `must be ${tagNameRule}`),
    ),
    /** Written by the server; a value sent in (from a representation read earlier) is ignored. */
    url: v.optional(v.unknown()),
  },
  'must be an object `{"id"?, "name"}`',
);

const tagsRule = `must be an array of at most ${MAX_TAGS} tags`;

/** The body of POST /magazines and PUT /magazines/{id}; an array of them for PUT /magazines. */
export const magazineInput = v.strictObject(
  {
    id: v.optional(identifier()),
    type: v.optional(v.literal('magazine', 'must be `magazine`')),
    title: text(1, 256),
    tags: v.optional(v.pipe(v.array(tagInput, tagsRule), v.maxLength(MAX_TAGS, tagsRule))),
    created: v.optional(unixSeconds(nowInSeconds)),
  },
  'must be a JSON object describing a magazine',
);

export type MagazineInput = v.InferOutput<typeof magazineInput>;

export const magazineListInput = v.array(magazineInput, 'must be a JSON array of magazines');
