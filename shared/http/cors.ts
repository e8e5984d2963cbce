/**
 * Cross-origin access, in one place: the headers every response carries (functions and gateway
 * errors alike) and the preflight API Gateway answers (and the local server imitates).
 */
export const corsResponseHeaders = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'ETag, Last-Modified, Location, Link, Allow, Retry-After',
} as const;

export const corsPreflight = {
  allowOrigin: '*',
  allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS'],
  /**
   * What a browser may send cross-origin: content, SigV4 signing, conditional requests, the API key.
   * `Content-Encoding` too: the API reads it (`identity` passes, any other is its 415), and a browser
   * should see that answer rather than a preflight refusal.
   */
  allowHeaders: [
    'Accept',
    'Content-Type',
    'Content-Encoding',
    'Authorization',
    'X-Amz-Date',
    'X-Amz-Security-Token',
    'X-Amz-Content-Sha256',
    'If-Match',
    'Idempotency-Key',
    'X-Api-Key',
    'If-None-Match',
    'If-Modified-Since',
    'If-Unmodified-Since',
  ],
  maxAgeSeconds: 3600,
} as const;
