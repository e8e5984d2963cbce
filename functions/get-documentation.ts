import { renderReference } from '../shared/docs/reference';
import { document } from '../shared/http/replies';
import { openApiDocumentAt } from '../shared/openapi/document';
import { api } from '../shared/routes/api';
import { row } from '../shared/routes/rows/get-documentation';

/**
 * The page differs only by base URL: rendered once for each. A deployment has a handful of base
 * URLs (its API Gateway domain and custom domains); the cap keeps an instance's memory bounded
 * whatever domains reach it.
 */
const rendered = new Map<string, string>();
const MAX_RENDERED = 8;

export const handler = api(row, {
  run: ({ links }) => {
    const key = links.baseUrl;
    const page = rendered.get(key) ?? renderReference(openApiDocumentAt(key), links);
    if (!rendered.has(key) && rendered.size >= MAX_RENDERED) rendered.delete(rendered.keys().next().value!);
    rendered.set(key, page);
    return document('text/html; charset=utf-8', page);
  },
});
