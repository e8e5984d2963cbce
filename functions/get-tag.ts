import { api } from '../shared/app';
import { getTag } from '../shared/bindings';
import { tagReply } from '../shared/http/representations/tag';
import { row } from '../shared/routes/rows/get-tag';

export const handler = await api(row, {
  store: { getTag },
  run: async ({ params, links, store }) => tagReply(links, await store.getTag(params.tagId)),
});
