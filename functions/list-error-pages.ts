import { renderErrorIndex } from '../shared/docs/error-pages';
import { document } from '../shared/http/replies';
import { api } from '../shared/routes/api';

export const handler = api('listErrorPages', {
  run: ({ links }) => document('text/html; charset=utf-8', renderErrorIndex(links)),
});
