import { api } from '../shared/app';
import { replaceAllMagazines } from '../shared/bindings';
import { identifyDrafts } from '../shared/domain/magazine';
import { done } from '../shared/http/replies';

export const handler = await api('replaceAllMagazines', {
  store: { replaceAllMagazines },
  run: async ({ body, store, precondition }) => {
    await store.replaceAllMagazines(identifyDrafts(body), precondition);
    return done('magazines');
  },
});
