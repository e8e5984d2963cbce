import type { ErrorCode } from '../../http/error-catalogue';
import type { Operation } from '../../operation/row';

export const row = {
  id: 'getDocumentation',
  method: 'GET',
  path: '/documentation',
  handler: 'get-documentation',
  group: 'Documentation',
  summary: 'API reference (HTML)',
  actions: [],
  success: [{ status: 200, document: 'text/html' }],
  errors: [],
} as const satisfies Operation<ErrorCode>;
