import { repository } from '../shared/db/store';
import { api } from '../shared/http/api';
import { done } from '../shared/http/replies';

export const handler = api({
  run: async ({ params, ifMatch }) => {
    await repository.deleteMagazine(params.id, ifMatch);
    return done(params.id);
  },
  mock: ({ params }) => done(params.id),
});
