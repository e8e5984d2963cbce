import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { ApiMiddleware } from './state';

/**
 * The list-valued headers the API reads. Sent on several lines they are one list (RFC 9110 §5.3),
 * but API Gateway's `headers` keeps only the last line: `Accept: application/xml` then
 * `Accept: application/json;q=0.1` would read as JSON alone, an `If-None-Match` line holding the
 * current ETag would be missed. A date sent on several lines is a list of dates, which RFC 9110
 * §13.1.3-4 says to ignore: joined, it is no HTTP-date, and is ignored.
 */
const LISTS = ['accept', 'if-match', 'if-none-match', 'if-modified-since', 'if-unmodified-since'] as const;

/**
 * Header names in lower case, so that the other middlewares read `content-type` whatever case
 * the client sent (a REST event keeps the client's case), and the lines of a list-valued header
 * joined into its one value. First in the stack, as middy's docs order it for REST APIs.
 */
export const headerNormalizer = (): ApiMiddleware => {
  const lowerCase = httpHeaderNormalizer({ canonical: false });
  return {
    before: async (request) => {
      await lowerCase.before?.(request);
      const { headers, multiValueHeaders } = request.event;
      if (!headers || !multiValueHeaders) return;
      for (const name of LISTS) {
        const lines = multiValueHeaders[name];
        if (lines && lines.length > 1) headers[name] = lines.join(', ');
      }
    },
  };
};
