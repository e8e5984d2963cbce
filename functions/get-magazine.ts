import { api } from '../shared/app';
import { magazineReply } from '../shared/http/representations/magazine';
import { getMagazine } from '../shared/stores';

export const handler = await api('getMagazine', {
  store: { getMagazine },
  run: async ({ params, query, links, store }) =>
    magazineReply(links, await store.getMagazine(params.id), query.fields),
});
