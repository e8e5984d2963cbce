import { methodNotAllowed } from '../shared/http/errors';
import { api } from '../shared/routes/api';
import { allowedMethods } from '../shared/routes/table';

/** API Gateway's `ANY` on every resource: the methods the route table does not give it. */
export const handler = api('methodNotAllowed', {
  run: ({ method, resource }) => {
    throw methodNotAllowed(method, allowedMethods(resource));
  },
});
