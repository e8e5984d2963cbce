import { renderErrorIndex } from '../shared/docs/error-pages';
import { api } from '../shared/http/api';
import { document } from '../shared/http/replies';

export const handler = api('listErrorPages', {
  run: ({ links }) => document('text/html; charset=utf-8', renderErrorIndex(links)),
});
