import { listApi } from '../shared/app';
import { getTag, listMagazines } from '../shared/bindings';
import { magazineListReply } from '../shared/http/representations/magazine';
import { row } from '../shared/routes/rows/list-tag-magazines';

export const handler = await listApi(row, {
  store: { getTag, listMagazines },
  run: async (request) => {
    const tag = request.params.tagId;
    const page = await request.store.listMagazines({ ...request.query, tag }, request.page);
    // An empty page of a tag nobody carries is a tag that does not exist (404), not an empty list.
    if (page.count === 0) await request.store.getTag(tag);
    return magazineListReply(request, page);
  },
});
