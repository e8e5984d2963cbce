import type { ErrorCode } from '../../http/error-catalogue';
import type { Operation } from '../../operation/row';

export const row = {
  id: 'getTag',
  method: 'GET',
  path: '/tags/{tagId}',
  handler: 'get-tag',
  group: 'Tags',
  summary: 'Get a tag',
  actions: ['BatchGetItem', 'Query'],
  success: [{ status: 200, schema: 'TagResource', example: 'TagResource' }],
  errors: ['40404'],
} as const satisfies Operation<ErrorCode>;
