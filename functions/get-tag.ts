import { api } from '../shared/app';
import { tagReply } from '../shared/http/representations/tag';

export const handler = await api('getTag', {
  run: async ({ params, links, store }) => tagReply(links, await store.getTag(params.tagId)),
});
