import type { ErrorCode } from '../../http/error-catalogue';
import type { Operation } from '../../operation/row';

export const row = {
  id: 'listErrorPages',
  method: 'GET',
  path: '/documentation/errors',
  handler: 'list-error-pages',
  group: 'Documentation',
  summary: 'Index of error codes (HTML)',
  actions: [],
  success: [{ status: 200, document: 'text/html' }],
  errors: [],
} as const satisfies Operation<ErrorCode>;
