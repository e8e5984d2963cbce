import type { ErrorCode } from '../../http/error-catalogue';
import type { Operation } from '../../operation/row';

export const row = {
  id: 'getErrorPage',
  method: 'GET',
  path: '/documentation/errors/{errorCode}',
  handler: 'get-error-page',
  group: 'Documentation',
  summary: 'Documentation of one error code (HTML)',
  actions: [],
  success: [{ status: 200, document: 'text/html' }],
  errors: ['40405'],
} as const satisfies Operation<ErrorCode>;
