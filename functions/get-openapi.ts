import { document } from '../shared/http/replies';
import { openApiJson } from '../shared/openapi/document';
import { api } from '../shared/routes/api';

export const handler = api('getOpenApi', {
  run: ({ links }) => document('application/json; charset=utf-8', openApiJson(links.baseUrl)),
});
