import { listApi } from '../shared/app';
import { magazineListReply } from '../shared/http/representations/magazine';
import { listMagazines } from '../shared/stores';

export const handler = await listApi('listMagazines', {
  store: { listMagazines },
  run: async (request) => magazineListReply(request, await request.store.listMagazines(request.query, request.page)),
});
