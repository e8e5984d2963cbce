import { api } from '../shared/app';
import { deleteMagazine } from '../shared/bindings';
import { done } from '../shared/http/replies';
import { row } from '../shared/routes/rows/delete-magazine';

export const handler = await api(row, {
  store: { deleteMagazine },
  run: async ({ params, store, precondition }) => {
    await store.deleteMagazine(params.id, precondition);
    return done(params.id);
  },
});
