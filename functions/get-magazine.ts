import { api } from '../shared/app';
import { getMagazine } from '../shared/bindings';
import { magazineReply } from '../shared/http/representations/magazine';
import { row } from '../shared/routes/rows/get-magazine';

export const handler = await api(row, {
  store: { getMagazine },
  run: async ({ params, query, links, store }) =>
    magazineReply(links, await store.getMagazine(params.id), query.fields),
});
