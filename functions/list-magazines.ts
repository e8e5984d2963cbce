import { listApi } from '../shared/app';
import { listMagazines } from '../shared/bindings';
import { magazineListReply } from '../shared/http/representations/magazine';

export const handler = await listApi('listMagazines', {
  store: { listMagazines },
  run: async (request) => magazineListReply(request, await request.store.listMagazines(request.query, request.page)),
});
