import { magazineInput } from '../../domain/magazine-input';
import type { ErrorCode } from '../../http/error-catalogue';
import type { Operation } from '../../operation/row';
import { idReply } from './successes';

export const row = {
  id: 'replaceMagazine',
  method: 'PUT',
  path: '/magazines/{id}',
  handler: 'replace-magazine',
  group: 'Magazines',
  summary: 'Create or replace a magazine',
  actions: ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'ConditionCheckItem'],
  body: magazineInput,
  success: [idReply(200, 'MagazineReplaced'), idReply(201, 'MagazineCreated')],
  errors: ['40007', '40009', '40010', '40013', '41201', '50302', '50303'],
  ifMatch: true,
  counts: { status: 201, metric: 'MagazinesCreated' },
} as const satisfies Operation<ErrorCode>;
