import type { Article } from '../domain/article';
import type { Magazine } from '../domain/magazine';
import type { TagSummary } from '../domain/tag';
import type { ErrorCode } from '../http/error-catalogue';
import { errorObject } from '../http/errors';
import { type Links, linksAt } from '../http/links';
import type { ListContext } from '../http/lists';
import { created, done, type RepresentationReply } from '../http/replies';
import { articleListReply, articleReply } from '../http/representations/article';
import { magazineListReply, magazineReply } from '../http/representations/magazine';
import { tagListReply, tagReply } from '../http/representations/tag';
import { toXml } from '../http/xml';

/**
 * Examples for the OpenAPI document, made by the same functions that build the real responses
 * (representations, list envelopes, XML), so an example shows exactly what the server sends.
 */

/** The local server's address, as the README's curl lines use it: one base URL in every example. */
export const EXAMPLE_BASE_URL = 'http://127.0.0.1:3000';

const exampleLinks: Links = linksAt(EXAMPLE_BASE_URL);

const JAN_2024 = 1_704_067_200;

const magazines: Magazine[] = [
  {
    id: 'national-geographic',
    title: 'National Geographic',
    tags: [
      { id: 'science', name: 'Science' },
      { id: 'travel', name: 'Travel' },
    ],
    created: JAN_2024,
    updated: JAN_2024 + 3_600,
    revision: '3f9a1c',
  },
  {
    id: 'the-economist',
    title: 'The Economist',
    tags: [{ id: 'politique-economie', name: 'Politique & Économie' }],
    created: JAN_2024 + 86_400 * 40,
    updated: JAN_2024 + 86_400 * 40,
    revision: '7d02be',
  },
];

const article: Article = {
  id: '5b0f9a52-6c1e-4c0e-9f59-2d1f3a8e7c41',
  magazineId: 'national-geographic',
  title: 'The Secret Life of Coral Reefs',
  author_first_name: 'Sylvia',
  author_last_name: 'Earle',
  author_email: 'sylvia.earle@example.org',
  date: '2024-03-15',
  text: 'Coral reefs cover less than one percent of the ocean floor, yet they shelter a quarter of all marine species.',
  created: JAN_2024 + 86_400 * 74,
};

const tags: TagSummary[] = [
  { id: 'science', name: 'Science', magazineCount: 1 },
  { id: 'travel', name: 'Travel', magazineCount: 1 },
  { id: 'politique-economie', name: 'Politique & Économie', magazineCount: 1 },
];

const listRequest = (path: string): ListContext => ({
  links: exampleLinks,
  path,
  label: undefined,
  mock: false,
  formatParameter: undefined,
  query: { limit: 2, sort: 'asc' },
  cursorFor: () => 'eyJsIjoiZXhhbXBsZSJ9.Zm9yLWRvY3VtZW50YXRpb24',
});

export const requestExamples = {
  MagazineInput: {
    id: 'national-geographic',
    title: 'National Geographic',
    tags: [{ name: 'Science' }, { id: 'travel', name: 'Travel' }],
  },
  MagazineListInput: [
    { id: 'national-geographic', title: 'National Geographic', tags: [{ name: 'Science' }], created: '1704067200' },
    { id: 'the-economist', title: 'The Economist', tags: [{ name: 'Politique & Économie' }] },
  ],
  ArticleInput: {
    title: article.title,
    author_first_name: article.author_first_name,
    author_last_name: article.author_last_name,
    author_email: article.author_email,
    date: article.date,
    text: article.text,
  },
} as const;

const firstMagazine = magazines[0]!;

/** Replies as the operations build them, keyed by example name. */
export const replyExamples = {
  Magazine: magazineReply(exampleLinks, firstMagazine),
  MagazineList: magazineListReply(listRequest('/magazines'), {
    items: magazines,
    count: 7,
    offset: 0,
    next: 'example',
  }),
  TagMagazineList: magazineListReply(listRequest('/tags/science/magazines'), {
    items: [firstMagazine],
    count: 1,
    offset: 0,
  }),
  Article: articleReply(article),
  ArticleList: articleListReply(listRequest('/magazines/national-geographic/articles'), {
    items: [article],
    count: 1,
    offset: 0,
  }),
  TagResource: tagReply(exampleLinks, tags[0]!),
  TagList: tagListReply(listRequest('/tags'), {
    items: tags.slice(0, 2),
    count: tags.length,
    offset: 0,
    next: 'example',
  }),
  MagazineCreated: created(firstMagazine.id, exampleLinks.to(`/magazines/${firstMagazine.id}`)),
  MagazineReplaced: done(firstMagazine.id),
  MagazineDeleted: done(firstMagazine.id),
  AllMagazinesReplaced: done('magazines'),
  ArticleCreated: created(article.id, exampleLinks.to(`/articles/${article.id}`)),
} satisfies Record<string, RepresentationReply>;

export const xmlOf = (reply: RepresentationReply) => toXml(reply.xml.root, reply.body, reply.xml.names);

export const errorExample = (code: ErrorCode, links: Links = exampleLinks) =>
  errorObject(code, undefined, links.baseUrl);

export const errorXml = (code: ErrorCode, links: Links = exampleLinks) => toXml('error', errorExample(code, links));
