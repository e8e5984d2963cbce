import { api } from '../shared/app';
import { identifyDrafts } from '../shared/domain/magazine';
import { done } from '../shared/http/replies';

export const handler = await api('replaceAllMagazines', {
  run: async ({ body, store, precondition }) => {
    await store.replaceAllMagazines(identifyDrafts(body), precondition);
    return done('magazines');
  },
});
