/**
 * Responses from this size on (bytes) are compressed when the client accepts it; a smaller one
 * gains less than compressing it costs. API Gateway applies it (`minimumCompressionSize`), and the
 * local server imitates API Gateway with the same figure.
 */
export const minimumCompressionBytes = 1024;

/**
 * `Vary` of a response: its format follows `Accept`, and from the compression size on its bytes
 * follow `Accept-Encoding` too. API Gateway compresses after the function, so the function says
 * it, for caches between the client and the API.
 */
export const varyOf = (body: string): string =>
  // A string has at least as many UTF-8 bytes as UTF-16 units: a long one needs no counting.
  body.length >= minimumCompressionBytes || Buffer.byteLength(body) >= minimumCompressionBytes
    ? 'Accept, Accept-Encoding'
    : 'Accept';

/** The codings API Gateway compresses with (REST APIs: no `br`), and decodes a request body from. */
export const gatewayCodings = ['gzip', 'deflate'] as const;

/**
 * A request body's `Accept-Encoding` when its coding was refused (RFC 9110 §12.5.3): API Gateway
 * decodes a `gzip` or `deflate` body before the function sees it, and refuses any other coding, or
 * a body that does not decode, with its own 415.
 */
export const requestCodings = `${gatewayCodings.join(', ')}, identity`;
