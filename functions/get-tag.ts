import { api } from '../shared/app';
import { tagReply } from '../shared/http/representations/tag';
import { getTag } from '../shared/stores';

export const handler = await api('getTag', {
  store: { getTag },
  run: async ({ params, links, store }) => tagReply(links, await store.getTag(params.tagId)),
});
