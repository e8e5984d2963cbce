/**
 * Responses from this size on (bytes) are compressed when the client accepts it; a smaller one
 * gains less than compressing it costs. API Gateway applies it (`minimumCompressionSize`), and the
 * local server imitates API Gateway with the same figure.
 */
export const minimumCompressionBytes = 1024;

/** The codings API Gateway compresses with (REST APIs: no `br`). */
export const gatewayCodings = ['gzip', 'deflate'] as const;
