import type { APIGatewayProxyEvent } from 'aws-lambda';
import { apiEvent, GET_ID, type Scenario, scenarioEvent, seedMagazines } from '../support/fixtures';

/**
 * The requests the cost model prices, in the order they are measured on one table seeded with the
 * benchmark's 30 magazines: the article writes first (their reads need an article), the reads on
 * the collection as the writes left it after their folds, then the magazine writes.
 */

/** What the requests measured before one may need: the id of an article made. */
export interface Made {
  articleId?: string;
}

export interface CostOperation {
  readonly key: string;
  readonly label: string;
  /** The function that serves it (functions/<handler>.ts). */
  readonly handler: string;
  readonly status: number;
  /** The i-th request of its kind (each write its own magazine where it must be). */
  readonly event: (i: number, made: Made) => APIGatewayProxyEvent;
}

/** About 2 KB of text: an article's body as a magazine's site would send it. */
const ARTICLE_TEXT = 'The text of an article of the benchmark, two kilobytes of it. '.repeat(33);

const scenario = (name: Scenario) => () => scenarioEvent(name);

/** The seeded magazines a write changes, one per request: they leave GET_ID alone. */
const replaced = (i: number) => seedMagazines[5 + i]!;
const deleted = (i: number) => seedMagazines[seedMagazines.length - 1 - i]!;

export const costOperations: readonly CostOperation[] = [
  {
    key: 'createArticle',
    label: 'POST an article (2 KB of text)',
    handler: 'create-article',
    status: 201,
    event: (i) =>
      apiEvent('POST', '/magazines/{id}/articles', `/magazines/${GET_ID}/articles`, {
        params: { id: GET_ID },
        body: JSON.stringify({
          title: `Article ${i} of the benchmark`,
          author_first_name: 'Ada',
          author_last_name: 'Lovelace',
          author_email: 'ada@example.com',
          date: '2024-02-29',
          text: ARTICLE_TEXT,
        }),
      }),
  },
  {
    key: 'getArticle',
    label: 'GET an article',
    handler: 'get-article',
    status: 200,
    event: (_, made) => {
      if (!made.articleId) throw new Error('No article was made to read.');
      return apiEvent('GET', '/articles/{articleId}', `/articles/${made.articleId}`, {
        params: { articleId: made.articleId },
      });
    },
  },
  {
    key: 'listArticles',
    label: 'a page of a magazine’s articles',
    handler: 'list-articles',
    status: 200,
    event: () =>
      apiEvent('GET', '/magazines/{id}/articles', `/magazines/${GET_ID}/articles`, { params: { id: GET_ID } }),
  },
  { key: 'getMagazine', label: '`GET /magazines/{id}`', handler: 'get-magazine', status: 200, event: scenario('get') },
  {
    key: 'listMagazines',
    label: 'a page of `GET /magazines` (25)',
    handler: 'list-magazines',
    status: 200,
    event: scenario('listJson'),
  },
  {
    key: 'listTags',
    label: '`GET /tags`',
    handler: 'list-tags',
    status: 200,
    event: () => apiEvent('GET', '/tags', '/tags'),
  },
  {
    key: 'createMagazine',
    label: '`POST /magazines` with two tags',
    handler: 'create-magazine',
    status: 201,
    event: scenario('post'),
  },
  {
    key: 'replaceMagazine',
    label: '`PUT /magazines/{id}`: a new title, the same tags',
    handler: 'replace-magazine',
    status: 200,
    event: (i) => {
      const { id, tags, created } = replaced(i);
      return apiEvent('PUT', '/magazines/{id}', `/magazines/${id}`, {
        params: { id },
        body: JSON.stringify({ title: `Magazine ${id}, its title replaced`, tags, created }),
      });
    },
  },
  {
    key: 'deleteMagazine',
    label: '`DELETE /magazines/{id}`',
    handler: 'delete-magazine',
    status: 200,
    event: (i) => {
      const { id } = deleted(i);
      return apiEvent('DELETE', '/magazines/{id}', `/magazines/${id}`, { params: { id } });
    },
  },
];
