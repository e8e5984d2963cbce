import { api } from '../shared/app';
import { tagListReply } from '../shared/http/representations/tag';

export const handler = await api('listTags', {
  run: async (request) => tagListReply(request, await request.store.listTags(request.page)),
});
