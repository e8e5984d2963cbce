import { listApi } from '../shared/app';
import { listTags } from '../shared/bindings';
import { tagListReply } from '../shared/http/representations/tag';

export const handler = await listApi('listTags', {
  store: { listTags },
  run: async (request) => tagListReply(request, await request.store.listTags(request.page)),
});
