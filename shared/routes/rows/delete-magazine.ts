import type { ErrorCode } from '../../http/error-catalogue';
import type { Operation } from '../../operation/row';
import { idReply } from './successes';

export const row = {
  id: 'deleteMagazine',
  method: 'DELETE',
  path: '/magazines/{id}',
  handler: 'delete-magazine',
  group: 'Magazines',
  summary: 'Delete a magazine',
  actions: [
    'GetItem',
    'BatchGetItem',
    'Query',
    'PutItem',
    'UpdateItem',
    'DeleteItem',
    'BatchWriteItem',
    'ConditionCheckItem',
  ],
  success: [idReply(200, 'MagazineDeleted')],
  errors: ['40402', '41201', '50303'],
  ifMatch: true,
  counts: { status: 200, metric: 'MagazinesDeleted' },
} as const satisfies Operation<ErrorCode>;
