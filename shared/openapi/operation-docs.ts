import * as z from 'zod/mini';
import { magazineListQuery, magazineQuery, pageQuery, tagMagazineListQuery } from '../domain/list-query';
import type { ErrorCode } from '../http/error-catalogue';
import type { OperationId } from '../routes';
import type { ReplyExample } from './examples';

/**
 * What the route table does not say about an operation: its prose, the query schema its handler
 * validates with, its answers and the error codes it gives of its own. Errors every operation of
 * a kind can give (mock, format, body, gateway, store) are added by the builder from the route
 * table. `satisfies Record<OperationId, …>` makes a new operation without documentation a type
 * error.
 */

export type Group = 'Magazines' | 'Articles' | 'Tags' | 'Documentation';

export type RequestSchemaId = 'MagazineInput' | 'MagazineListInput' | 'ArticleInput';
export type ResponseSchemaId =
  | 'MagazineResult'
  | 'MagazineList'
  | 'Article'
  | 'ArticleList'
  | 'TagResource'
  | 'TagList'
  | 'IdReply';

export interface RepresentationSuccess {
  readonly kind: 'representation';
  readonly status: 200 | 201;
  readonly description: string;
  readonly schema: ResponseSchemaId;
  readonly example: ReplyExample;
  /** A list: `Link` header with first/prev/next/last. */
  readonly list?: boolean;
}

export interface DocumentSuccess {
  readonly kind: 'document';
  readonly status: 200;
  readonly description: string;
  readonly mediaType: 'text/html' | 'application/json';
}

export type Success = RepresentationSuccess | DocumentSuccess;

export interface OperationDoc {
  readonly group: Group;
  readonly description: string;
  /** The schema the handler validates its query with (the same object, imported from the domain). */
  readonly query?: z.ZodMiniObject;
  readonly body?: { readonly schema: RequestSchemaId; readonly description: string };
  readonly success: readonly Success[];
  /** Codes of this operation's own failures. */
  readonly errors: readonly ErrorCode[];
  /** Honours `If-Match`. */
  readonly ifMatch?: boolean;
}

const magazineList = (description: string, example: ReplyExample): RepresentationSuccess => ({
  kind: 'representation',
  status: 200,
  description,
  schema: 'MagazineList',
  example,
  list: true,
});

export const operationDocs = {
  listMagazines: {
    group: 'Magazines',
    description:
      'One page of the magazines, oldest first unless `sort=desc`, filtered by `year` and `tag`. `metadata.resultset.count` is the number of every magazine that matches, not only of this page. ' +
      'A deep `offset` is served by skipping keys only: DynamoDB reads about one read unit per 4 KB of skipped keys (a few hundred magazines per unit) before the page itself.',
    query: magazineListQuery,
    success: [
      magazineList(
        'One page of magazines. `Last-Modified` is the time of the last change to any magazine.',
        'MagazineList',
      ),
    ],
    errors: ['40004'],
  },
  createMagazine: {
    group: 'Magazines',
    description:
      'Creates a magazine. Without an `id` the server makes one. Nothing is written when the request is refused.',
    body: { schema: 'MagazineInput', description: 'The magazine to create.' },
    success: [
      {
        kind: 'representation',
        status: 201,
        description: 'Created. `Location` is the address of the new magazine.',
        schema: 'IdReply',
        example: 'MagazineCreated',
      },
    ],
    errors: ['40009', '40010', '40502', '40901'],
  },
  replaceAllMagazines: {
    group: 'Magazines',
    description:
      'Replaces the whole collection: magazines not in the array are deleted with their articles; the others are created or replaced (their articles are kept). Every element is checked first; any error, or two elements with one `id`, changes nothing.',
    body: {
      schema: 'MagazineListInput',
      description: 'Every magazine the collection is to hold; `GET /magazines` results can be sent back as they are.',
    },
    success: [
      {
        kind: 'representation',
        status: 200,
        description: 'Replaced. The `id` is `magazines`.',
        schema: 'IdReply',
        example: 'AllMagazinesReplaced',
      },
    ],
    ifMatch: true,
    errors: ['40008', '40009', '40010', '40901', '41201'],
  },
  deleteAllMagazines: {
    group: 'Magazines',
    description:
      'Deletes every magazine and its articles. The collection itself remains: `GET /magazines` then answers 200 with `count` 0.',
    success: [
      {
        kind: 'representation',
        status: 200,
        description: 'Deleted. The `id` is `magazines`.',
        schema: 'IdReply',
        example: 'AllMagazinesReplaced',
      },
    ],
    ifMatch: true,
    errors: ['40901', '41201'],
  },
  getMagazine: {
    group: 'Magazines',
    description:
      'One magazine. `fields=title,tags` returns only those fields and `id`; names that are not magazine fields are ignored.',
    query: magazineQuery,
    success: [
      {
        kind: 'representation',
        status: 200,
        description: 'The magazine.',
        schema: 'MagazineResult',
        example: 'Magazine',
      },
    ],
    errors: ['40402'],
  },
  replaceMagazine: {
    group: 'Magazines',
    description:
      'Creates the magazine, or replaces it if it exists. `id` may be left out of the body; if given it must equal the path. A left-out `created` keeps the stored value. The articles of the magazine are kept.',
    body: {
      schema: 'MagazineInput',
      description: 'The magazine as it is to be; a representation read with GET can be sent back unchanged.',
    },
    success: [
      {
        kind: 'representation',
        status: 200,
        description: 'Replaced an existing magazine.',
        schema: 'IdReply',
        example: 'MagazineReplaced',
      },
      {
        kind: 'representation',
        status: 201,
        description: 'Created a new magazine. `Location` is its address.',
        schema: 'IdReply',
        example: 'MagazineCreated',
      },
    ],
    errors: ['40007', '40009', '40010', '40013', '40901', '41201'],
    ifMatch: true,
  },
  deleteMagazine: {
    group: 'Magazines',
    description: 'Deletes the magazine and its articles.',
    success: [
      { kind: 'representation', status: 200, description: 'Deleted.', schema: 'IdReply', example: 'MagazineDeleted' },
    ],
    errors: ['40402', '40901', '41201'],
    ifMatch: true,
  },
  listArticles: {
    group: 'Articles',
    description:
      'One page of the articles of a magazine, oldest first unless `sort=desc`. A page of very long articles may hold fewer than `limit` asked for, to stay under the 6 MB a response can carry; `metadata.resultset.limit` then says how many, and `Link: next` carries on from there.',
    query: pageQuery,
    success: [
      {
        kind: 'representation',
        status: 200,
        description: 'One page of articles.',
        schema: 'ArticleList',
        example: 'ArticleList',
        list: true,
      },
    ],
    errors: ['40004', '40402'],
  },
  createArticle: {
    group: 'Articles',
    description:
      'Adds an article to a magazine. With `mock` the request is checked and answered, but nothing is created.',
    body: { schema: 'ArticleInput', description: 'The article; every field is required.' },
    success: [
      {
        kind: 'representation',
        status: 201,
        description: 'Created. `Location` is the address of the new article.',
        schema: 'IdReply',
        example: 'ArticleCreated',
      },
    ],
    errors: ['40402', '40901'],
  },
  getArticle: {
    group: 'Articles',
    description: 'One article.',
    success: [
      { kind: 'representation', status: 200, description: 'The article.', schema: 'Article', example: 'Article' },
    ],
    errors: ['40403'],
  },
  listTags: {
    group: 'Tags',
    description: 'One page of the tags carried by at least one magazine, with the number of magazines that carry each.',
    query: pageQuery,
    success: [
      {
        kind: 'representation',
        status: 200,
        description: 'One page of tags.',
        schema: 'TagList',
        example: 'TagList',
        list: true,
      },
    ],
    errors: ['40004'],
  },
  getTag: {
    group: 'Tags',
    description: 'One tag: the address a magazine tag’s `url` gives.',
    success: [
      { kind: 'representation', status: 200, description: 'The tag.', schema: 'TagResource', example: 'TagResource' },
    ],
    errors: ['40404'],
  },
  listTagMagazines: {
    group: 'Tags',
    description:
      'One page of the magazines that carry the tag, with the same parameters as `GET /magazines` (but `tag`).',
    query: tagMagazineListQuery,
    success: [magazineList('One page of magazines carrying the tag.', 'TagMagazineList')],
    errors: ['40004', '40404'],
  },
  getDocumentation: {
    group: 'Documentation',
    description: 'This reference, as one self-contained HTML page rendered from the OpenAPI document.',
    success: [{ kind: 'document', status: 200, description: 'The HTML reference.', mediaType: 'text/html' }],
    errors: [],
  },
  listErrorPages: {
    group: 'Documentation',
    description:
      'An HTML index of every error code of the API, linking to each code’s page. Also served with a trailing slash.',
    success: [{ kind: 'document', status: 200, description: 'The HTML index.', mediaType: 'text/html' }],
    errors: [],
  },
  getErrorPage: {
    group: 'Documentation',
    description:
      'What an error code means, why it happens, how to fix it, and an example response: the page every `moreInfo` links to.',
    success: [
      { kind: 'document', status: 200, description: 'The HTML page of the error code.', mediaType: 'text/html' },
    ],
    errors: ['40405'],
  },
  getOpenApi: {
    group: 'Documentation',
    description: 'This OpenAPI 3.1 document. The same document is served under every version prefix.',
    success: [{ kind: 'document', status: 200, description: 'The OpenAPI document.', mediaType: 'application/json' }],
    errors: [],
  },
} as const satisfies Record<OperationId, OperationDoc>;

export const groupDescriptions: Record<Group, string> = {
  Magazines: 'The magazine collection and single magazines.',
  Articles: 'The articles of a magazine; each article also has its own address.',
  Tags: 'The tags magazines carry; a magazine tag’s `url` is the address of its tag resource.',
  Documentation: 'This reference, the error pages and the OpenAPI document.',
};

/** Prose for query parameters; the rules and defaults come from the zod schemas. */
export const queryParameterDescriptions: Record<string, string> = {
  offset: 'Position of the first item to return; 0 is the first.',
  limit: 'Largest number of items to return.',
  sort: 'Order by creation time, then identifier: `asc` (oldest first) or `desc`.',
  year: 'Only magazines created in this year (UTC).',
  tag: 'Only magazines that carry the tag with this identifier.',
  fields:
    'Comma-separated magazine fields to return besides `id`, such as `title,tags`. Names that are not magazine fields (the spec’s own example has `subtitle` and `date`) are ignored.',
};
