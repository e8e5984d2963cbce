import { api } from '../shared/app';
import { listArticles } from '../shared/bindings';
import { articleListReply } from '../shared/http/representations/article';

export const handler = await api('listArticles', {
  store: { listArticles },
  run: async (request) => articleListReply(request, await request.store.listArticles(request.params.id, request.page)),
});
