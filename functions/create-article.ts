import { repository } from '../shared/db/store';
import { articleInput } from '../shared/domain/article';
import { mockData } from '../shared/domain/mock-data';
import { api } from '../shared/http/api';
import { created } from '../shared/http/replies';

export const handler = api({
  body: articleInput,
  run: async ({ params, body, links }) => {
    const article = await repository.createArticle(params.id, body);
    return created(article.id, links.to(`/articles/${article.id}`));
  },
  mock: ({ params, body, links }) => {
    const id = mockData.newId({ magazine: params.id, ...body });
    return created(id, links.to(`/articles/${id}`));
  },
});
