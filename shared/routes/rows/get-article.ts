import type { ErrorCode } from '../../http/error-catalogue';
import type { Operation } from '../../operation/row';

export const row = {
  id: 'getArticle',
  method: 'GET',
  path: '/articles/{articleId}',
  handler: 'get-article',
  group: 'Articles',
  summary: 'Get an article',
  actions: ['BatchGetItem'],
  success: [{ status: 200, schema: 'Article', example: 'Article' }],
  errors: ['40403'],
} as const satisfies Operation<ErrorCode>;
