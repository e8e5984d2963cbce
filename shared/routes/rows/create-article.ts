import { articleInput } from '../../domain/article';
import type { ErrorCode } from '../../http/error-catalogue';
import type { Operation } from '../../operation/row';
import { idReply } from './successes';

export const row = {
  id: 'createArticle',
  method: 'POST',
  path: '/magazines/{id}/articles',
  handler: 'create-article',
  group: 'Articles',
  summary: 'Add an article to a magazine',
  actions: ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'ConditionCheckItem'],
  body: articleInput,
  success: [idReply(201, 'ArticleCreated')],
  errors: ['40014', '40402', '40901', '42201', '50303'],
  idempotent: true,
  labels: true,
  counts: { status: 201, metric: 'ArticlesAdded' },
} as const satisfies Operation<ErrorCode>;
