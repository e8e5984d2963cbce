import { renderReference } from '../shared/docs/reference';
import { api } from '../shared/http/api';
import { document } from '../shared/http/replies';
import { openApiDocument } from '../shared/openapi/document';

export const handler = api({
  negotiate: false,
  run: ({ links }) => document('text/html; charset=utf-8', renderReference(openApiDocument(), links)),
});
