import { document } from '../shared/http/replies';
import { openApiJson } from '../shared/openapi/document';
import { api } from '../shared/routes/api';
import { row } from '../shared/routes/rows/get-openapi';

export const handler = api(row, {
  run: ({ links }) => document('application/json; charset=utf-8', openApiJson(links.baseUrl)),
});
