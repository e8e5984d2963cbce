import { repository } from '../shared/db/store';
import { api } from '../shared/http/api';
import { done } from '../shared/http/replies';

export const handler = api({
  run: async ({ ifMatch }) => {
    await repository.replaceAllMagazines([], ifMatch);
    return done('magazines');
  },
  mock: () => done('magazines'),
});
