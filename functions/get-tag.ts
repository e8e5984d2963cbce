import { repository } from '../shared/db/store';
import { mockData } from '../shared/domain/mock-data';
import { tagReply } from '../shared/domain/representation';
import { api } from '../shared/http/api';
import { tagNotFound } from '../shared/http/errors';

export const handler = api({
  run: async ({ params, links }) => {
    const tag = await repository.getTag(params.tagId);
    if (!tag) throw tagNotFound(params.tagId);
    return tagReply(links, tag);
  },
  mock: ({ params, links }) => tagReply(links, mockData.tag(params.tagId)),
});
