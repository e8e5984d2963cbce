import * as z from 'zod/mini';
import { articleInput } from '../../domain/article';
import { IDENTIFIER_PATTERN } from '../../domain/fields';
import { MAX_TAGS, magazineInput } from '../../domain/magazine';
import { MAX_LIMIT } from '../../domain/paging';
import { errorCodes } from '../error-catalogue';

/**
 * The representations the API sends, as zod schemas, and their types inferred from them: the
 * OpenAPI document is generated from these schemas (and the contract tests validate responses
 * with that document), and the code that builds a representation is typed by them, so neither
 * can describe a shape the other does not. Field rules are taken from the request schemas
 * wherever a field is the same one a client sends.
 */

/** What the OpenAPI builder reads from a schema besides its shape. */
export interface SchemaMeta {
  readonly id?: string;
  readonly title?: string;
  readonly description?: string;
  /** OpenAPI's XML Object: element names, wrapped arrays. */
  readonly xml?: { readonly name?: string; readonly wrapped?: boolean };
}

/** Representations with an `id` become `components.schemas` of the OpenAPI document. */
export const representationRegistry = z.registry<{ id: string }>();

/** Metadata goes where `z.describe()` puts it (zod's global registry); ids stay in ours. */
const named = <S extends z.ZodMiniType>(schema: S, { id, ...meta }: SchemaMeta): S => {
  const described = schema.check(z.meta(meta));
  if (id) representationRegistry.add(described, { id });
  return described;
};

const described = <S extends z.ZodMiniType>(schema: S, description: string): S => schema.check(z.describe(description));

const identifier = z.string().check(z.regex(IDENTIFIER_PATTERN));
const digits = z.string().check(z.regex(/^\d+$/));
const nonEmpty = z.string().check(z.minLength(1));
const count = z.int().check(z.gte(0));
const tagFields = magazineInput.shape.tags.def.innerType.def.element.shape;

export const tagSchema = named(
  z.object({
    id: identifier,
    name: tagFields.name,
    url: described(z.url(), 'Address of the tag resource: `{base_url}/v1/tags/{tagId}`.'),
  }),
  { id: 'Tag', description: 'A tag of a magazine.', xml: { name: 'tag' } },
);

const tagList = named(z.array(tagSchema).check(z.maxLength(MAX_TAGS)), { xml: { wrapped: true } });

const magazineObject = z.object({
  id: described(identifier, 'Identifier of the magazine; always a string.'),
  type: z.literal('magazine'),
  title: magazineInput.shape.title,
  tags: tagList,
  created: described(digits, 'Creation time: seconds since the Unix epoch, as a string of digits.'),
});

export const magazineSchema = named(magazineObject, {
  id: 'Magazine',
  description: 'A magazine, with every field.',
  xml: { name: 'magazine' },
});

export const magazineSelectionSchema = named(z.required(z.partial(magazineObject), { id: true }), {
  id: 'MagazineSelection',
  description: 'A magazine as selected by the `fields` query parameter: `id` and the fields asked for.',
  xml: { name: 'magazine' },
});

export const magazineResultSchema = named(z.union([magazineSchema, magazineSelectionSchema]), {
  id: 'MagazineResult',
  description: 'A magazine: every field, or only `id` and the fields the `fields` query parameter selects.',
  xml: { name: 'magazine' },
});

export const articleSchema = named(
  z.extend(articleInput, {
    id: described(nonEmpty, 'Identifier of the article, made by the server.'),
    type: z.literal('article'),
    magazine_id: described(identifier, 'Identifier of the magazine the article belongs to.'),
    created: described(digits, 'Creation time: seconds since the Unix epoch, as a string of digits.'),
  }),
  { id: 'Article', description: 'An article of a magazine.', xml: { name: 'article' } },
);

export const tagResourceSchema = named(
  z.object({
    id: identifier,
    type: z.literal('tag'),
    name: tagFields.name,
    url: z.url(),
    magazine_count: described(count, 'How many magazines carry the tag.'),
  }),
  {
    id: 'TagResource',
    description: 'A tag as a resource of its own, with the number of magazines that carry it.',
    xml: { name: 'tag' },
  },
);

export const resultsetSchema = named(
  z.object({
    resultset: z.object({
      count: described(count, 'Number of items that match the request, over all pages.'),
      offset: described(count, 'Position of the first item of this page.'),
      limit: described(z.int().check(z.gte(1), z.lte(MAX_LIMIT)), 'Largest number of items this page can hold.'),
    }),
  }),
  { id: 'ListMetadata', description: 'Properties of the whole result set, never of its members.' },
);

const listOf = (id: string, item: z.ZodMiniType, what: string) =>
  named(
    z.object({
      metadata: resultsetSchema,
      results: named(z.array(item), { xml: { wrapped: true } }),
    }),
    { id, description: `One page of ${what} (the list envelope).`, xml: { name: 'response' } },
  );

export const magazineListSchema = listOf('MagazineList', magazineResultSchema, 'magazines');
export const articleListSchema = listOf('ArticleList', articleSchema, 'articles');
export const tagListSchema = listOf('TagList', tagResourceSchema, 'tags');

export const idReplySchema = named(z.object({ id: nonEmpty }), {
  id: 'IdReply',
  description:
    'The answer to a create, replace or delete: the identifier of what was written (`magazines` for the whole collection).',
  xml: { name: 'response' },
});

export const errorSchema = named(
  z.object({
    developerMessage: described(nonEmpty, 'What went wrong, naming the field, parameter or header, and how to fix it.'),
    userMessage: described(nonEmpty, 'A message that can be shown to end users.'),
    errorCode: described(z.enum(errorCodes), 'The code of the error in the catalogue; it starts with the HTTP status.'),
    moreInfo: described(
      z.url(),
      'The documentation page of the error: `{base_url}/v1/documentation/errors/{errorCode}.html`.',
    ),
  }),
  { id: 'Error', description: 'The error object every error response carries.', xml: { name: 'error' } },
);

export type TagRepresentation = z.output<typeof tagSchema>;
export type MagazineRepresentation = z.output<typeof magazineSchema>;
export type MagazineSelection = z.output<typeof magazineSelectionSchema>;
export type ArticleRepresentation = z.output<typeof articleSchema>;
export type TagResourceRepresentation = z.output<typeof tagResourceSchema>;
export type IdReply = z.output<typeof idReplySchema>;
export type ErrorObject = z.output<typeof errorSchema>;
