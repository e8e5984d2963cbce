import type { Operation } from '../../operation/row';
import { notUnicode } from '../text';
import type { ApiMiddleware } from './state';

/** The request headers the API reads, as a client spells them; the header normaliser has lower-cased the event's. */
const READ_HEADERS = [
  'Accept',
  'Content-Type',
  'Content-Encoding',
  'If-Match',
  'If-None-Match',
  'If-Modified-Since',
  'If-Unmodified-Since',
  'Idempotency-Key',
] as const;

/**
 * Refuses text that is not Unicode (400, `40015`) in what the operation takes from the request
 * line and headers: every path parameter, the query parameters it reads (its row's, `mock`, and
 * `format` where it negotiates), and the headers the API reads. It runs before the mock switch and
 * the input, so that nothing reads such text, and after negotiation, so that the refusal comes in
 * the format asked for (negotiation passes over a `format` or `Accept` that is not Unicode).
 * Unknown parameters and other headers are ignored, as they always are. The body is decoded later,
 * and checked where it is validated (shared/http/validation.ts). The 404 and 405 (no `operation`)
 * take nothing: that the path or method does not exist is what the client must learn.
 */
export const wellFormedText = (operation: Operation | undefined, negotiates: boolean): ApiMiddleware => {
  const parameters = operation
    ? [...(negotiates ? ['format'] : []), 'mock', ...Object.keys(operation.query?.entries ?? {})]
    : [];
  return {
    before: ({ event }) => {
      if (!operation) return;
      for (const [name, value] of Object.entries(event.pathParameters ?? {}))
        if (value !== undefined && !value.isWellFormed()) throw notUnicode(`Path segment \`{${name}}\``);
      const query = event.queryStringParameters ?? {};
      for (const name of parameters) {
        const value = Object.hasOwn(query, name) ? query[name] : undefined;
        if (value !== undefined && !value.isWellFormed()) throw notUnicode(`Query parameter \`${name}\``);
      }
      const headers = event.headers ?? {};
      for (const name of READ_HEADERS) {
        const value = headers[name.toLowerCase()];
        if (value !== undefined && !value.isWellFormed()) throw notUnicode(`Header \`${name}\``);
      }
    },
  };
};
