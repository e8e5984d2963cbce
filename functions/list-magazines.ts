import { listApi } from '../shared/app';
import { listMagazines } from '../shared/bindings';
import { magazineListReply } from '../shared/http/representations/magazine';
import { row } from '../shared/routes/rows/list-magazines';

export const handler = await listApi(row, {
  store: { listMagazines },
  run: async (request) => magazineListReply(request, await request.store.listMagazines(request.query, request.page)),
});
