import { magazineInput } from '../../domain/magazine-input';
import type { ErrorCode } from '../../http/error-catalogue';
import type { Operation } from '../../operation/row';
import { idReply } from './successes';

export const row = {
  id: 'createMagazine',
  method: 'POST',
  path: '/magazines',
  handler: 'create-magazine',
  group: 'Magazines',
  summary: 'Create a magazine',
  actions: ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'ConditionCheckItem'],
  body: magazineInput,
  success: [idReply(201, 'MagazineCreated')],
  errors: ['40009', '40010', '40014', '40502', '40901', '42201', '50302', '50303'],
  idempotent: true,
  counts: { status: 201, metric: 'MagazinesCreated' },
} as const satisfies Operation<ErrorCode>;
