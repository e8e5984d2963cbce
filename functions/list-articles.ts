import { api } from '../shared/app';
import { articleListReply } from '../shared/http/representations/article';
import { listArticles } from '../shared/stores';

export const handler = await api('listArticles', {
  store: { listArticles },
  run: async (request) => articleListReply(request, await request.store.listArticles(request.params.id, request.page)),
});
