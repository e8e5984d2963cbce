import type { ErrorCode } from '../../http/error-catalogue';
import type { Operation } from '../../operation/row';

export const row = {
  id: 'getOpenApi',
  method: 'GET',
  path: '/openapi.json',
  handler: 'get-openapi',
  group: 'Documentation',
  summary: 'OpenAPI 3.1 document of this API',
  actions: [],
  success: [{ status: 200, document: 'application/json' }],
  errors: [],
} as const satisfies Operation<ErrorCode>;
