import httpHeaderNormalizer from '@middy/http-header-normalizer';

/**
 * Header names in lower case, so that the other middlewares read `content-type` whatever case
 * the client sent (a REST event keeps the client's case). First in the stack, as middy's docs
 * order it for REST APIs.
 */
export const headerNormalizer = () => httpHeaderNormalizer({ canonical: false });
