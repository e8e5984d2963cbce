import { api } from '../shared/app';
import { createArticle } from '../shared/bindings';
import { created } from '../shared/http/replies';
import { row } from '../shared/routes/rows/create-article';

export const handler = await api(row, {
  store: { createArticle },
  run: async ({ params, body, links, store, idempotency }) => {
    const article = await store.createArticle(params.id, body, { idempotency });
    return created(article.id, links.to(`/articles/${article.id}`), article);
  },
});
