import { api } from '../shared/app';
import { done } from '../shared/http/replies';
import { deleteMagazine } from '../shared/stores';

export const handler = await api('deleteMagazine', {
  store: { deleteMagazine },
  run: async ({ params, store, precondition }) => {
    await store.deleteMagazine(params.id, precondition);
    return done(params.id);
  },
});
