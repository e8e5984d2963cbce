import { repository } from '../shared/db/store';
import { mockData } from '../shared/domain/mock-data';
import { articleReply } from '../shared/domain/representation';
import { api } from '../shared/http/api';
import { articleNotFound } from '../shared/http/errors';

export const handler = api({
  run: async ({ params }) => {
    const article = await repository.getArticle(params.articleId);
    if (!article) throw articleNotFound(params.articleId);
    return articleReply(article);
  },
  mock: ({ params }) => articleReply(mockData.article(params.articleId)),
});
