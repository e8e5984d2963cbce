import { api } from '../shared/app';
import { replaceAllMagazines } from '../shared/bindings';
import { done } from '../shared/http/replies';
import { row } from '../shared/routes/rows/delete-all-magazines';

export const handler = await api(row, {
  store: { replaceAllMagazines },
  run: async ({ store, precondition }) => {
    await store.replaceAllMagazines([], precondition);
    return done('magazines');
  },
});
