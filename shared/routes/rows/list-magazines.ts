import type { ErrorCode } from '../../http/error-catalogue';
import { magazineListQuery } from '../../http/query';
import type { Operation } from '../../operation/row';
import { magazineList } from './successes';

export const row = {
  id: 'listMagazines',
  method: 'GET',
  path: '/magazines',
  handler: 'list-magazines',
  group: 'Magazines',
  summary: 'List magazines',
  actions: ['BatchGetItem', 'Query'],
  query: magazineListQuery(),
  success: [magazineList],
  errors: ['40004'],
  list: true,
} as const satisfies Operation<ErrorCode>;
