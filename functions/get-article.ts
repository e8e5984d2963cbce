import { api } from '../shared/app';
import { getArticle } from '../shared/bindings';
import { articleReply } from '../shared/http/representations/article';

export const handler = await api('getArticle', {
  store: { getArticle },
  run: async ({ params, store }) => articleReply(await store.getArticle(params.articleId)),
});
