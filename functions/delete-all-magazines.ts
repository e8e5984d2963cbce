import { api } from '../shared/app';
import { done } from '../shared/http/replies';
import { replaceAllMagazines } from '../shared/stores';

export const handler = await api('deleteAllMagazines', {
  store: { replaceAllMagazines },
  run: async ({ store, precondition }) => {
    await store.replaceAllMagazines([], precondition);
    return done('magazines');
  },
});
