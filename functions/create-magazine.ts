import { repository } from '../shared/db/store';
import { magazineInput, toDraft } from '../shared/domain/magazine';
import { mockData } from '../shared/domain/mock-data';
import { api } from '../shared/http/api';
import { created } from '../shared/http/replies';

export const handler = api({
  body: magazineInput,
  run: async ({ body, links }) => {
    const magazine = await repository.createMagazine(toDraft(body));
    return created(magazine.id, links.to(`/magazines/${magazine.id}`));
  },
  mock: ({ body, links }) => {
    const id = toDraft(body).id ?? mockData.newId(body);
    return created(id, links.to(`/magazines/${id}`));
  },
});
