import { z } from 'zod';
import { errorCodes } from '../http/error-catalogue';
import { articleInput } from './article';
import { IDENTIFIER_PATTERN } from './fields';
import { MAX_LIMIT } from './list-query';
import { MAX_TAGS, magazineInput, type Magazine } from './magazine';
import type { Article } from './article';
import type { Tag, TagResource } from './tag';

/**
 * The representations the API sends, as zod schemas. The OpenAPI document is generated from
 * them (and the contract tests validate responses with that document), so the document cannot
 * describe a response shape that is not written here. Field rules are taken from the request
 * schemas wherever a field is the same one a client sends.
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

/** Metadata goes where `.describe()` puts it (zod's global registry); ids stay in ours. */
const named = <S extends z.ZodType>(schema: S, { id, ...meta }: SchemaMeta): S => {
  const described = schema.meta(meta);
  if (id) representationRegistry.add(described, { id });
  return described;
};

const identifier = z.string().regex(IDENTIFIER_PATTERN);
const digits = z.string().regex(/^\d+$/);
const tagFields = magazineInput.shape.tags.unwrap().element.shape;

export const tagSchema = named(
  z.object({
    id: identifier,
    name: tagFields.name,
    url: z.url().describe('Address of the tag resource: `{base_url}/v1/tags/{tagId}`.'),
  }),
  { id: 'Tag', description: 'A tag of a magazine.', xml: { name: 'tag' } },
);

const tagList = named(z.array(tagSchema).max(MAX_TAGS), { xml: { wrapped: true } });

export const magazineSchema = named(
  z.object({
    id: identifier.describe('Identifier of the magazine; always a string.'),
    type: z.literal('magazine'),
    title: magazineInput.shape.title,
    tags: tagList,
    created: digits.describe('Creation time: seconds since the Unix epoch, as a string of digits.'),
  }),
  { id: 'Magazine', description: 'A magazine, with every field.', xml: { name: 'magazine' } },
);

export const magazineSelectionSchema = named(magazineSchema.partial().required({ id: true }), {
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
  articleInput.extend({
    id: z.string().min(1).describe('Identifier of the article, made by the server.'),
    type: z.literal('article'),
    magazine_id: identifier.describe('Identifier of the magazine the article belongs to.'),
    created: digits.describe('Creation time: seconds since the Unix epoch, as a string of digits.'),
  }),
  { id: 'Article', description: 'An article of a magazine.', xml: { name: 'article' } },
);

export const tagResourceSchema = named(
  z.object({
    id: identifier,
    type: z.literal('tag'),
    name: tagFields.name,
    url: z.url(),
    magazine_count: z.int().nonnegative().describe('How many magazines carry the tag.'),
  }),
  { id: 'TagResource', description: 'A tag as a resource of its own, with the number of magazines that carry it.', xml: { name: 'tag' } },
);

export const resultsetSchema = named(
  z.object({
    resultset: z.object({
      count: z.int().nonnegative().describe('Number of items that match the request, over all pages.'),
      offset: z.int().nonnegative().describe('Position of the first item of this page.'),
      limit: z.int().min(1).max(MAX_LIMIT).describe('Largest number of items this page can hold.'),
    }),
  }),
  { id: 'ListMetadata', description: 'Properties of the whole result set, never of its members.' },
);

const listOf = (id: string, item: z.ZodType, what: string) =>
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

export const idReplySchema = named(z.object({ id: z.string().min(1) }), {
  id: 'IdReply',
  description: 'The answer to a create, replace or delete: the identifier of what was written (`magazines` for the whole collection).',
  xml: { name: 'response' },
});

export const errorSchema = named(
  z.object({
    developerMessage: z.string().min(1).describe('What went wrong, naming the field, parameter or header, and how to fix it.'),
    userMessage: z.string().min(1).describe('A message that can be shown to end users.'),
    errorCode: z.enum(errorCodes).describe('The code of the error in the catalogue; it starts with the HTTP status.'),
    moreInfo: z.url().describe('The documentation page of the error: `{base_url}/v1/documentation/errors/{errorCode}.html`.'),
  }),
  { id: 'Error', description: 'The error object every error response carries.', xml: { name: 'error' } },
);

type Mutable<T> = T extends readonly (infer Item)[] ? Mutable<Item>[] : T extends object ? { -readonly [K in keyof T]: Mutable<T[K]> } : T;
/** Compile-time proof that the representations the code builds fit these schemas. */
type Fits<Built, Schema extends z.ZodType> = Mutable<Built> extends z.output<Schema> ? true : never;
export const representationsFit: [Fits<Magazine, typeof magazineSchema>, Fits<Tag, typeof tagSchema>, Fits<Article, typeof articleSchema>, Fits<TagResource, typeof tagResourceSchema>] = [
  true,
  true,
  true,
  true,
];
