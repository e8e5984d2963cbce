import { repository } from '../shared/db/store';
import { magazineListQuery } from '../shared/domain/list-query';
import { mockData } from '../shared/domain/mock-data';
import { magazineListReply } from '../shared/domain/representation';
import { api } from '../shared/http/api';

export const handler = api({
  query: magazineListQuery,
  run: async (request) => magazineListReply(request, await repository.listMagazines(request.query)),
  mock: (request) => magazineListReply(request, mockData.listMagazines(request.query)),
});
