import type { ErrorCode } from '../../http/error-catalogue';
import { pageQuery } from '../../http/query';
import type { Operation } from '../../operation/row';

export const row = {
  id: 'listArticles',
  method: 'GET',
  path: '/magazines/{id}/articles',
  handler: 'list-articles',
  group: 'Articles',
  summary: 'List the articles of a magazine',
  actions: ['BatchGetItem', 'Query'],
  query: pageQuery(),
  success: [{ status: 200, schema: 'ArticleList', example: 'ArticleList' }],
  errors: ['40004', '40402'],
  list: true,
} as const satisfies Operation<ErrorCode>;
