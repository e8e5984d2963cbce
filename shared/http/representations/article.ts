import type { Article } from '../../domain/article';
import type { Page } from '../../domain/paging';
import { type ListContext, listReply } from '../lists';
import { ok, type RepresentationReply } from '../replies';
import type { ArticleRepresentation } from './schemas';

export const toArticleRepresentation = (article: Article): ArticleRepresentation => ({
  id: article.id,
  type: 'article',
  magazine_id: article.magazineId,
  title: article.title,
  author_first_name: article.author_first_name,
  author_last_name: article.author_last_name,
  author_email: article.author_email,
  date: article.date,
  text: article.text,
  created: String(article.created),
});

/** Articles never change once written, so their ETag is a hash of the bytes sent. */
export const articleReply = (article: Article): RepresentationReply =>
  ok(toArticleRepresentation(article), { root: 'article' }, { lastModified: article.created });

/** JSON's size of an article, plus what XML's escaping adds (`&` becomes `&amp;`): at most 5 bytes a character. */
const worstCaseBytes = (article: ArticleRepresentation) => {
  const json = JSON.stringify(article);
  return Buffer.byteLength(json) + 5 * (json.match(/[&<>"']/g)?.length ?? 0);
};

/** Only articles (up to 100,000 characters each) can fill a response, so only their pages are measured. */
export const articleListReply = (request: ListContext, page: Page<Article>): RepresentationReply =>
  listReply(request, { ...page, items: page.items.map(toArticleRepresentation) }, 'article', {}, worstCaseBytes);
