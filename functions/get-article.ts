import { api } from '../shared/app';
import { articleReply } from '../shared/http/representations/article';

export const handler = await api('getArticle', {
  run: async ({ params, store }) => articleReply(await store.getArticle(params.articleId)),
});
