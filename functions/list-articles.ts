import { listApi } from '../shared/app';
import { listArticles } from '../shared/bindings';
import { articleListReply } from '../shared/http/representations/article';

export const handler = await listApi('listArticles', {
  store: { listArticles },
  run: async (request) => articleListReply(request, await request.store.listArticles(request.params.id, request.page)),
});
