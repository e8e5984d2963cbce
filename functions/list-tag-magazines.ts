import { repository } from '../shared/db/store';
import { tagMagazineListQuery } from '../shared/domain/list-query';
import { mockData } from '../shared/domain/mock-data';
import { magazineListReply } from '../shared/domain/representation';
import { api } from '../shared/http/api';
import { tagNotFound } from '../shared/http/errors';

export const handler = api({
  query: tagMagazineListQuery,
  run: async (request) => {
    const tag = request.params.tagId;
    const page = await repository.listMagazines({ ...request.query, tag });
    if (page.count === 0 && !(await repository.getTag(tag))) throw tagNotFound(tag);
    return magazineListReply(request, page);
  },
  mock: (request) =>
    magazineListReply(request, mockData.listMagazines({ ...request.query, tag: request.params.tagId })),
});
