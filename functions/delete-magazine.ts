import { api } from '../shared/app';
import { deleteMagazine } from '../shared/bindings';
import { done } from '../shared/http/replies';

export const handler = await api('deleteMagazine', {
  store: { deleteMagazine },
  run: async ({ params, store, precondition }) => {
    await store.deleteMagazine(params.id, precondition);
    return done(params.id);
  },
});
