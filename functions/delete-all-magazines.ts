import { repository } from '../shared/db/repository';
import { api } from '../shared/http/api';
import { done } from '../shared/http/replies';

export const handler = api({
  run: async () => {
    await repository.replaceAllMagazines([]);
    return done('magazines');
  },
  mock: () => done('magazines'),
});
