import { listApi } from '../shared/app';
import { listArticles } from '../shared/bindings';
import { articleListReply } from '../shared/http/representations/article';
import { row } from '../shared/routes/rows/list-articles';

export const handler = await listApi(row, {
  store: { listArticles },
  run: async (request) => articleListReply(request, await request.store.listArticles(request.params.id, request.page)),
});
