import { listApi } from '../shared/app';
import { tagListReply } from '../shared/http/representations/tag';
import { listTags } from '../shared/stores';

export const handler = await listApi('listTags', {
  store: { listTags },
  run: async (request) => tagListReply(request, await request.store.listTags(request.page)),
});
