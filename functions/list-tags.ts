import { listApi } from '../shared/app';
import { listTags } from '../shared/bindings';
import { tagListReply } from '../shared/http/representations/tag';
import { row } from '../shared/routes/rows/list-tags';

export const handler = await listApi(row, {
  store: { listTags },
  run: async (request) => tagListReply(request, await request.store.listTags(request.page)),
});
