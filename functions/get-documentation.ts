import { renderReference } from '../shared/docs/reference';
import { api } from '../shared/http/api';
import { document } from '../shared/http/replies';
import { openApiDocument } from '../shared/openapi/document';

/** The page differs only by base URL: rendered once for each. */
const rendered = new Map<string, string>();

export const handler = api('getDocumentation', {
  run: ({ links }) => {
    const key = links.baseUrl;
    const page = rendered.get(key) ?? renderReference(openApiDocument(), links);
    rendered.set(key, page);
    return document('text/html; charset=utf-8', page);
  },
});
