import { api } from '../shared/app';
import { createMagazine } from '../shared/bindings';
import { toDraft } from '../shared/domain/magazine';
import { created } from '../shared/http/replies';
import { row } from '../shared/routes/rows/create-magazine';

export const handler = await api(row, {
  store: { createMagazine },
  run: async ({ body, links, store, idempotency }) => {
    const magazine = await store.createMagazine(toDraft(body), { idempotency });
    return created(magazine.id, links.to(`/magazines/${magazine.id}`), magazine);
  },
});
