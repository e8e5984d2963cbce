import { api } from '../shared/app';
import { getArticle } from '../shared/bindings';
import { articleReply } from '../shared/http/representations/article';
import { row } from '../shared/routes/rows/get-article';

export const handler = await api(row, {
  store: { getArticle },
  run: async ({ params, store }) => articleReply(await store.getArticle(params.articleId)),
});
