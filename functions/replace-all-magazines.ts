import { api } from '../shared/app';
import { replaceAllMagazines } from '../shared/bindings';
import { identifyDrafts } from '../shared/domain/magazine';
import { done } from '../shared/http/replies';
import { row } from '../shared/routes/rows/replace-all-magazines';

export const handler = await api(row, {
  store: { replaceAllMagazines },
  run: async ({ body, store, precondition }) => {
    await store.replaceAllMagazines(identifyDrafts(body), precondition);
    return done('magazines');
  },
});
