import { repository } from '../shared/db/store';
import { magazineQuery } from '../shared/domain/list-query';
import { mockData } from '../shared/domain/mock-data';
import { magazineReply } from '../shared/domain/representation';
import { api } from '../shared/http/api';
import { magazineNotFound } from '../shared/http/errors';

export const handler = api({
  query: magazineQuery,
  run: async ({ params, query, links }) => {
    const magazine = await repository.getMagazine(params.id);
    if (!magazine) throw magazineNotFound(params.id);
    return magazineReply(links, magazine, query.fields);
  },
  mock: ({ params, query, links }) => magazineReply(links, mockData.magazine(params.id), query.fields),
});
