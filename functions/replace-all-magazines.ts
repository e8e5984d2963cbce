import { api } from '../shared/app';
import { identifyDrafts } from '../shared/domain/magazine';
import { done } from '../shared/http/replies';
import { replaceAllMagazines } from '../shared/stores';

export const handler = await api('replaceAllMagazines', {
  store: { replaceAllMagazines },
  run: async ({ body, store, precondition }) => {
    await store.replaceAllMagazines(identifyDrafts(body), precondition);
    return done('magazines');
  },
});
