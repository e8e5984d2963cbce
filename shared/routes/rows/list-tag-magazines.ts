import type { ErrorCode } from '../../http/error-catalogue';
import { tagMagazineListQuery } from '../../http/query';
import type { Operation } from '../../operation/row';
import { magazineList } from './successes';

export const row = {
  id: 'listTagMagazines',
  method: 'GET',
  path: '/tags/{tagId}/magazines',
  handler: 'list-tag-magazines',
  group: 'Tags',
  summary: 'List the magazines carrying a tag',
  actions: ['BatchGetItem', 'Query'],
  query: tagMagazineListQuery(),
  success: [{ ...magazineList, example: 'TagMagazineList' }],
  errors: ['40004', '40404'],
  list: true,
} as const satisfies Operation<ErrorCode>;
