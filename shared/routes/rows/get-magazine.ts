import type { ErrorCode } from '../../http/error-catalogue';
import { magazineQuery } from '../../http/query';
import type { Operation } from '../../operation/row';

export const row = {
  id: 'getMagazine',
  method: 'GET',
  path: '/magazines/{id}',
  handler: 'get-magazine',
  group: 'Magazines',
  summary: 'Get a magazine',
  actions: ['BatchGetItem'],
  query: magazineQuery(),
  success: [{ status: 200, schema: 'MagazineResult', example: 'Magazine' }],
  errors: ['40402'],
} as const satisfies Operation<ErrorCode>;
