import type { ErrorCode } from '../../http/error-catalogue';
import { pageQuery } from '../../http/query';
import type { Operation } from '../../operation/row';

export const row = {
  id: 'listTags',
  method: 'GET',
  path: '/tags',
  handler: 'list-tags',
  group: 'Tags',
  summary: 'List tags',
  actions: ['BatchGetItem', 'Query'],
  query: pageQuery(),
  success: [{ status: 200, schema: 'TagList', example: 'TagList' }],
  errors: ['40004'],
  list: true,
} as const satisfies Operation<ErrorCode>;
