import type { ErrorCode } from '../../http/error-catalogue';
import type { Operation } from '../../operation/row';
import { idReply } from './successes';

export const row = {
  id: 'deleteAllMagazines',
  method: 'DELETE',
  path: '/magazines',
  handler: 'delete-all-magazines',
  group: 'Magazines',
  summary: 'Delete all magazines',
  actions: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'BatchWriteItem'],
  success: [idReply(200, 'AllMagazinesReplaced')],
  errors: ['40013', '41201'],
  ifMatch: true,
  timeoutSeconds: 25,
} as const satisfies Operation<ErrorCode>;
