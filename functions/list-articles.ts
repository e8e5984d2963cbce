import { repository } from '../shared/db/store';
import { pageQuery } from '../shared/domain/list-query';
import { mockData } from '../shared/domain/mock-data';
import { articleListReply } from '../shared/domain/representation';
import { api } from '../shared/http/api';

export const handler = api({
  query: pageQuery,
  run: async (request) => articleListReply(request, await repository.listArticles(request.params.id, request.query)),
  mock: (request) => articleListReply(request, mockData.listArticles(request.params.id, request.query)),
});
