import { listApi } from '../shared/app';
import { getTag, listMagazines } from '../shared/bindings';
import { magazineListReply } from '../shared/http/representations/magazine';
import { row } from '../shared/routes/rows/list-tag-magazines';

/** How often a page that counted no magazine is read again when its tag was found in use after it. */
const REREADS = 2;

export const handler = await listApi(row, {
  store: { getTag, listMagazines },
  run: async (request) => {
    const tag = request.params.tagId;
    const read = () => request.store.listMagazines({ ...request.query, tag }, request.page);
    let page = await read();
    // An empty page of a tag nobody carries is a tag that does not exist (404), not an empty list.
    // A tag found in use after all came into use after the page was read: its page is read again.
    for (let again = 0; page.count === 0 && again < REREADS; again++) {
      await request.store.getTag(tag);
      page = await read();
    }
    return magazineListReply(request, page);
  },
});
