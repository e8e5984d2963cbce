import { api } from '../shared/app';
import { replaceAllMagazines } from '../shared/bindings';
import { done } from '../shared/http/replies';

export const handler = await api('deleteAllMagazines', {
  store: { replaceAllMagazines },
  run: async ({ store, precondition }) => {
    await store.replaceAllMagazines([], precondition);
    return done('magazines');
  },
});
