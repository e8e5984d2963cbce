import { api } from '../shared/app';
import { tagListReply } from '../shared/http/representations/tag';
import { listTags } from '../shared/stores';

export const handler = await api('listTags', {
  store: { listTags },
  run: async (request) => tagListReply(request, await request.store.listTags(request.page)),
});
