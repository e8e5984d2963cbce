import { magazineListInput } from '../../domain/magazine-input';
import type { ErrorCode } from '../../http/error-catalogue';
import type { Operation } from '../../operation/row';
import { idReply } from './successes';

export const row = {
  id: 'replaceAllMagazines',
  method: 'PUT',
  path: '/magazines',
  handler: 'replace-all-magazines',
  group: 'Magazines',
  summary: 'Replace all magazines',
  actions: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'BatchWriteItem'],
  body: magazineListInput,
  success: [idReply(200, 'AllMagazinesReplaced')],
  errors: ['40008', '40009', '40010', '40013', '41201'],
  ifMatch: true,
  timeoutSeconds: 25,
} as const satisfies Operation<ErrorCode>;
