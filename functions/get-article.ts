import { api } from '../shared/app';
import { articleReply } from '../shared/http/representations/article';
import { getArticle } from '../shared/stores';

export const handler = await api('getArticle', {
  store: { getArticle },
  run: async ({ params, store }) => articleReply(await store.getArticle(params.articleId)),
});
