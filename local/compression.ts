import { deflateSync, gunzipSync, gzipSync, inflateSync } from 'node:zlib';
import { gatewayCodings, minimumCompressionBytes } from '../shared/http/compression';

export type GatewayCoding = (typeof gatewayCodings)[number];

/** Each coding API Gateway compresses responses with and decodes request bodies from, by its name. */
const codecs: Record<GatewayCoding, { readonly encode: typeof gzipSync; readonly decode: typeof gunzipSync }> = {
  gzip: { encode: gzipSync, decode: gunzipSync },
  deflate: { encode: deflateSync, decode: inflateSync },
};
const isGatewayCoding = (coding: string): coding is GatewayCoding => Object.hasOwn(codecs, coding);

/**
 * The coding API Gateway would compress a response with for this `Accept-Encoding`, if any.
 * API Gateway compresses only when the client's most preferred coding is one it supports: a
 * client that prefers `br` gets the body whole, not gzip, so the local server does the same.
 * Among codings preferred equally (`gzip, br`, as browsers send it) a supported one is chosen.
 */
export const negotiateCoding = (acceptEncoding: string | undefined): GatewayCoding | undefined => {
  if (!acceptEncoding) return undefined;
  const offers = acceptEncoding.split(',').flatMap((part) => {
    const [name = '', ...parameters] = part.split(';').map((piece) => piece.trim());
    if (!name) return [];
    const q = parameters.find((parameter) => /^q=/i.test(parameter));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    return Number.isFinite(weight) && weight > 0 ? [{ name: name.toLowerCase(), weight }] : [];
  });
  const best = Math.max(0, ...offers.map((offer) => offer.weight));
  const preferred = offers.filter((offer) => offer.weight === best).map((offer) => offer.name);
  return gatewayCodings.find((coding) => preferred.includes(coding) || preferred.includes('*'));
};

/**
 * The body as API Gateway would send it: compressed when it is at least `minimumCompressionBytes`
 * long, the client accepts a coding API Gateway supports, and the function did not encode it itself.
 */
export const compressForClient = (
  body: Buffer,
  acceptEncoding: string | undefined,
  alreadyEncoded: boolean,
): { body: Buffer; coding: GatewayCoding | undefined } => {
  const coding = alreadyEncoded || body.length < minimumCompressionBytes ? undefined : negotiateCoding(acceptEncoding);
  return coding ? { body: codecs[coding].encode(body), coding } : { body, coding: undefined };
};

/**
 * A request body as API Gateway hands it to the function: decoded from `gzip` or `deflate` (the
 * function still sees the `Content-Encoding`), as sent with `identity` or none; `refused` where
 * API Gateway answers its own 415 (another coding, or a body that does not decode with its own).
 */
export const decodeRequestBody = (
  body: Buffer,
  contentEncoding: string | undefined,
  maxBytes: number,
): Buffer | 'refused' | 'too-large' => {
  const coding = contentEncoding?.trim().toLowerCase();
  if (!coding || coding === 'identity' || body.length === 0) return body;
  if (!isGatewayCoding(coding)) return 'refused';
  try {
    return codecs[coding].decode(body, { maxOutputLength: maxBytes });
  } catch (error) {
    return (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' ? 'too-large' : 'refused';
  }
};
