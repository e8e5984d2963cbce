import { gatewayCodings, requestCodings } from './compression';
import { ApiError, malformedJson, missingBody } from './errors';

export const MAX_BODY_BYTES = 1024 * 1024;

/** `application/json`, `text/javascript`, `application/*+json`, or no `Content-Type`. */
const isJsonMediaType = (contentType: string | undefined) => {
  if (contentType === undefined || contentType.trim() === '') return true;
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  return (
    mediaType === 'application/json' ||
    mediaType === 'text/javascript' ||
    /^application\/[a-z0-9.!#$&^_-]+\+json$/.test(mediaType)
  );
};

/**
 * The `charset` values a `Content-Type` names (RFC 9110 §5.6.6: a parameter's name is
 * case-insensitive, its value a token or a quoted string, which a charset needs no escape in).
 */
const charsetsOf = (contentType: string): string[] =>
  [...contentType.matchAll(/;\s*charset\s*=\s*"?([^";\s]*)/gi)].map(([, value = '']) => value);

interface RawBody {
  readonly body: string | null;
  readonly isBase64Encoded: boolean;
  readonly contentType: string | undefined;
  readonly contentEncoding?: string | undefined;
}

/** Checks media type and size, then parses; every refusal comes before anything is written. */
export const readJsonBody = ({ body, isBase64Encoded, contentType, contentEncoding }: RawBody): unknown => {
  const coding = contentEncoding?.trim().toLowerCase();
  // API Gateway has decoded a gzip or deflate body and kept its header; any other coding reaches a
  // function only past it (sam local, a test): RFC 9110 §15.5.16 makes it a 415, not a body that
  // failed to parse, and its Accept-Encoding lets a client tell it from a wrong media type.
  if (coding && coding !== 'identity' && !(gatewayCodings as readonly string[]).includes(coding)) {
    throw new ApiError(
      '41502',
      `\`Content-Encoding: ${contentEncoding}\` is not accepted: send the JSON as it is, or compressed with \`gzip\` or \`deflate\`.`,
      { 'Accept-Encoding': requestCodings },
    );
  }
  if (!isJsonMediaType(contentType)) {
    throw new ApiError(
      '41501',
      `The request body must be JSON; \`Content-Type: ${contentType}\` is not accepted. Send \`Content-Type: application/json\`.`,
    );
  }
  // The body is read as UTF-8 (RFC 8259 §8.1); read so, another charset's bytes would become other text.
  const charset = charsetsOf(contentType ?? '').find((name) => name.toLowerCase() !== 'utf-8');
  if (charset !== undefined) {
    throw new ApiError(
      '41501',
      `The request body must be UTF-8 JSON; \`charset=${charset}\` is not accepted: send \`charset=utf-8\` or none.`,
    );
  }
  if (body === null || body === '') throw missingBody();
  const bytes = isBase64Encoded ? Buffer.from(body, 'base64') : Buffer.from(body, 'utf8');
  if (bytes.byteLength > MAX_BODY_BYTES) {
    throw new ApiError(
      '41301',
      `The request body has ${bytes.byteLength} bytes; at most ${MAX_BODY_BYTES} (1 MiB) are accepted.`,
    );
  }
  // RFC 8259 §8.1 lets a parser ignore a byte order mark; JSON.parse would refuse it.
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  if (text.trim() === '') throw missingBody();
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw malformedJson(`The request body is not well-formed JSON: ${(error as Error).message}.`);
  }
};
