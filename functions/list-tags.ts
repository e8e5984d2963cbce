import { repository } from '../shared/db/store';
import { pageQuery } from '../shared/domain/list-query';
import { mockData } from '../shared/domain/mock-data';
import { tagListReply } from '../shared/domain/representation';
import { api } from '../shared/http/api';

export const handler = api({
  query: pageQuery,
  run: async (request) => tagListReply(request, await repository.listTags(request.query)),
  mock: (request) => tagListReply(request, mockData.listTags(request.query)),
});
