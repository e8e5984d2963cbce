import { listApi } from '../shared/app';
import { articleListReply } from '../shared/http/representations/article';
import { listArticles } from '../shared/stores';

export const handler = await listApi('listArticles', {
  store: { listArticles },
  run: async (request) => articleListReply(request, await request.store.listArticles(request.params.id, request.page)),
});
