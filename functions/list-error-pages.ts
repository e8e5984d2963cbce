import { renderErrorIndex } from '../shared/docs/error-pages';
import { document } from '../shared/http/replies';
import { api } from '../shared/routes/api';
import { row } from '../shared/routes/rows/list-error-pages';

export const handler = api(row, {
  run: ({ links }) => document('text/html; charset=utf-8', renderErrorIndex(links)),
});
