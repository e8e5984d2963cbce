import { api } from '../shared/app';
import { done } from '../shared/http/replies';

export const handler = await api('deleteAllMagazines', {
  run: async ({ store, precondition }) => {
    await store.replaceAllMagazines([], precondition);
    return done('magazines');
  },
});
