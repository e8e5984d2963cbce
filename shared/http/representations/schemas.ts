import * as v from 'valibot';
import { articleInput } from '../../domain/article';
import { IDENTIFIER_PATTERN, minChars } from '../../domain/fields';
import { MAX_TAGS, magazineInput, tagInput } from '../../domain/magazine-input';
import { MAX_LIMIT } from '../../domain/paging';
import { errorCodes } from '../error-catalogue';

/**
 * The representations the API sends, as valibot schemas, and their types inferred from them: the
 * OpenAPI document is generated from these schemas (and the contract tests validate responses
 * with that document), and the code that builds a representation is typed by them, so neither
 * can describe a shape the other does not. Field rules are taken from the request schemas
 * wherever a field is the same one a client sends.
 */

/** What the OpenAPI builder reads from a schema besides its shape. */
interface SchemaMeta {
  readonly id?: string;
  readonly title?: string;
  readonly description?: string;
  /** OpenAPI's XML Object: element names, wrapped arrays. */
  readonly xml?: { readonly name?: string; readonly wrapped?: boolean };
}

/** Representations with an `id` become `components.schemas` of the OpenAPI document. */
export const representationSchemas: Record<string, v.GenericSchema> = {};

const named = <S extends v.GenericSchema>(schema: S, { id, title, description, xml }: SchemaMeta) => {
  const described = v.pipe(
    schema,
    ...(title ? [v.title(title)] : []),
    ...(description ? [v.description(description)] : []),
    ...(xml ? [v.metadata({ xml })] : []),
  ) as v.SchemaWithPipe<readonly [S]>;
  if (id) representationSchemas[id] = described;
  return described;
};

const described = <S extends v.GenericSchema>(schema: S, description: string) =>
  v.pipe(schema, v.description(description));

const identifier = v.pipe(v.string(), v.regex(IDENTIFIER_PATTERN));
const digits = v.pipe(v.string(), v.regex(/^\d+$/));
const nonEmpty = v.pipe(v.string(), ...minChars(1, 'must not be empty'));
const count = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(Number.MAX_SAFE_INTEGER));
const url = v.pipe(v.string(), v.url());
const tagFields = tagInput.entries;

const tagSchema = named(
  v.object({
    id: identifier,
    name: tagFields.name,
    url: described(url, 'Address of the tag resource: `{base_url}/v1/tags/{tagId}`.'),
  }),
  { id: 'Tag', description: 'A tag of a magazine.', xml: { name: 'tag' } },
);

const tagList = named(v.pipe(v.array(tagSchema), v.maxLength(MAX_TAGS)), { xml: { wrapped: true } });

const magazineObject = v.object({
  id: described(identifier, 'Identifier of the magazine; always a string.'),
  type: v.literal('magazine'),
  title: magazineInput.entries.title,
  tags: tagList,
  created: described(digits, 'Creation time: seconds since the Unix epoch, as a string of digits.'),
});

const magazineSchema = named(magazineObject, {
  id: 'Magazine',
  description: 'A magazine, with every field.',
  xml: { name: 'magazine' },
});

const magazineSelectionSchema = named(
  v.object({ ...v.partial(magazineObject).entries, id: magazineObject.entries.id }),
  {
    id: 'MagazineSelection',
    description: 'A magazine as selected by the `fields` query parameter: `id` and the fields asked for.',
    xml: { name: 'magazine' },
  },
);

export const magazineResultSchema = named(v.union([magazineSchema, magazineSelectionSchema]), {
  id: 'MagazineResult',
  description: 'A magazine: every field, or only `id` and the fields the `fields` query parameter selects.',
  xml: { name: 'magazine' },
});

export const articleSchema = named(
  v.object({
    ...articleInput.entries,
    id: described(nonEmpty, 'Identifier of the article, made by the server.'),
    type: v.literal('article'),
    magazine_id: described(identifier, 'Identifier of the magazine the article belongs to.'),
    created: described(digits, 'Creation time: seconds since the Unix epoch, as a string of digits.'),
  }),
  { id: 'Article', description: 'An article of a magazine.', xml: { name: 'article' } },
);

export const tagResourceSchema = named(
  v.object({
    id: identifier,
    type: v.literal('tag'),
    name: tagFields.name,
    url,
    magazine_count: described(count, 'How many magazines carry the tag.'),
  }),
  {
    id: 'TagResource',
    description: 'A tag as a resource of its own, with the number of magazines that carry it.',
    xml: { name: 'tag' },
  },
);

const resultsetSchema = named(
  v.object({
    resultset: v.object({
      count: described(count, 'Number of items that match the request, over all pages.'),
      offset: described(count, 'Position of the first item of this page.'),
      limit: described(
        v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_LIMIT)),
        'Largest number of items this page can hold.',
      ),
    }),
  }),
  { id: 'ListMetadata', description: 'Properties of the whole result set, never of its members.' },
);

const listOf = <S extends v.GenericSchema>(id: string, item: S, what: string) =>
  named(
    v.object({
      metadata: resultsetSchema,
      results: named(v.array(item), { xml: { wrapped: true } }),
    }),
    { id, description: `One page of ${what} (the list envelope).`, xml: { name: 'response' } },
  );

export const magazineListSchema = listOf('MagazineList', magazineResultSchema, 'magazines');
export const articleListSchema = listOf('ArticleList', articleSchema, 'articles');
export const tagListSchema = listOf('TagList', tagResourceSchema, 'tags');

export const idReplySchema = named(v.object({ id: nonEmpty }), {
  id: 'IdReply',
  description:
    'The answer to a create, replace or delete: the identifier of what was written (`magazines` for the whole collection).',
  xml: { name: 'response' },
});

// Registered for the document only (its `Error` schema): errors are built from the catalogue, not parsed.
named(
  v.object({
    developerMessage: described(nonEmpty, 'What went wrong, naming the field, parameter or header, and how to fix it.'),
    userMessage: described(nonEmpty, 'A message that can be shown to end users.'),
    errorCode: described(
      v.picklist(errorCodes),
      'The code of the error in the catalogue; it starts with the HTTP status.',
    ),
    moreInfo: described(
      url,
      'The documentation page of the error: `{base_url}/v1/documentation/errors/{errorCode}.html`.',
    ),
  }),
  { id: 'Error', description: 'The error object every error response carries.', xml: { name: 'error' } },
);

export type TagRepresentation = v.InferOutput<typeof tagSchema>;
export type MagazineRepresentation = v.InferOutput<typeof magazineSchema>;
export type MagazineSelection = v.InferOutput<typeof magazineSelectionSchema>;
export type ArticleRepresentation = v.InferOutput<typeof articleSchema>;
export type TagResourceRepresentation = v.InferOutput<typeof tagResourceSchema>;
