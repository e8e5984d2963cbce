import { api } from '../shared/app';
import { replaceMagazine } from '../shared/bindings';
import { draftFor } from '../shared/domain/magazine';
import { created, done } from '../shared/http/replies';
import { row } from '../shared/routes/rows/replace-magazine';

export const handler = await api(row, {
  store: { replaceMagazine },
  run: async ({ params, body, links, store, precondition }) => {
    const draft = draftFor(params.id, body);
    const outcome = await store.replaceMagazine(draft, precondition);
    return outcome === 'created' ? created(draft.id, links.to(`/magazines/${draft.id}`)) : done(draft.id);
  },
});
