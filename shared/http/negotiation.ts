import { notAcceptable } from './errors';

export type Format = 'json' | 'xml';

export interface Negotiated {
  readonly format: Format;
  readonly contentType: string;
}

const JSON_TYPES = ['application/json', 'text/javascript'];
const XML_TYPES = ['application/xml', 'text/xml'];

interface MediaRange {
  readonly type: string;
  readonly subtype: string;
  readonly q: number;
}

/**
 * The `Accept` header last parsed, and its ranges: a client sends the same header request after
 * request, and negotiation reads it twice per request (the format, and JSON's flavour for errors).
 */
let lastAccept: { readonly header: string; readonly ranges: readonly MediaRange[] } | undefined;

const parseAccept = (accept: string): readonly MediaRange[] => {
  if (lastAccept?.header !== accept) lastAccept = { header: accept, ranges: parseRanges(accept) };
  return lastAccept.ranges;
};

const parseRanges = (accept: string): MediaRange[] =>
  accept
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const [range = '', ...params] = part.split(';').map((p) => p.trim());
      const [type = '', subtype = ''] = range.toLowerCase().split('/');
      const qParam = params.find((p) => p.toLowerCase().startsWith('q='));
      const q = qParam ? Number(qParam.slice(2)) : 1;
      return { type, subtype, q: Number.isFinite(q) ? q : 0 };
    });

/** The q-value the Accept header gives a concrete media type (RFC 9110 §12.5.1: most specific range wins). */
const qualityOf = (ranges: readonly MediaRange[], mediaType: string): number => {
  const [type, subtype] = mediaType.split('/');
  const exact = ranges.find((r) => r.type === type && r.subtype === subtype);
  if (exact) return exact.q;
  const typeWide = ranges.find((r) => r.type === type && r.subtype === '*');
  if (typeWide) return typeWide.q;
  const any = ranges.find((r) => r.type === '*' && r.subtype === '*');
  return any ? any.q : 0;
};

const bestQuality = (ranges: readonly MediaRange[], types: readonly string[]) =>
  Math.max(...types.map((t) => qualityOf(ranges, t)));

/** JSON goes out as `text/javascript` (the API's JSON type) unless the client admits only `application/json`. */
const jsonContentType = (ranges: readonly MediaRange[] | undefined) =>
  !ranges || qualityOf(ranges, 'text/javascript') > 0 || qualityOf(ranges, 'application/json') === 0
    ? 'text/javascript; charset=utf-8'
    : 'application/json; charset=utf-8';

const XML_CONTENT_TYPE = 'application/xml; charset=utf-8';

const describe = (format: Format, ranges: readonly MediaRange[] | undefined): Negotiated =>
  format === 'xml' ? { format, contentType: XML_CONTENT_TYPE } : { format, contentType: jsonContentType(ranges) };

export const isFormat = (value: string): value is Format => value === 'json' || value === 'xml';

/** Labels are lower case, as the paths are: `.XML` is no label of this API, on every path alike. */
export const unknownLabel = (label: string) =>
  notAcceptable(`The path label \`.${label}\` is not a format of this API; use \`.json\` or \`.xml\`, in lower case.`);

interface FormatRequest {
  /** The `.json`/`.xml` (or other) label at the end of the path, without the dot. */
  readonly label?: string;
  /** The `format` query parameter. */
  readonly formatParameter?: string;
  readonly accept?: string;
}

/**
 * The path label decides; else `format=`; else the `Accept` header; else JSON.
 * An unknown label or `format`, or an `Accept` that admits neither format, is a 406.
 */
export const negotiate = ({ label, formatParameter, accept }: FormatRequest): Negotiated => {
  const ranges = accept?.trim() ? parseAccept(accept) : undefined;
  if (label !== undefined) {
    if (!isFormat(label)) throw unknownLabel(label);
    return describe(label, ranges);
  }
  if (formatParameter !== undefined) {
    const lower = formatParameter.toLowerCase();
    if (!isFormat(lower))
      throw notAcceptable(`The query parameter \`format\` accepts \`json\` or \`xml\`; got \`${formatParameter}\`.`);
    return describe(lower, ranges);
  }
  if (!ranges) return describe('json', undefined);
  const json = bestQuality(ranges, JSON_TYPES);
  const xml = bestQuality(ranges, XML_TYPES);
  if (json <= 0 && xml <= 0) {
    throw notAcceptable(
      `The \`Accept\` header (\`${accept}\`) admits no format of this API; accept \`application/json\`, \`text/javascript\` or \`application/xml\`.`,
    );
  }
  return describe(xml > json ? 'xml' : 'json', ranges);
};

/** JSON as this `Accept` header wants it: what errors use until (or when) negotiation succeeds. */
export const jsonFor = (accept: string | undefined): Negotiated =>
  describe('json', accept?.trim() ? parseAccept(accept) : undefined);

/** Only when not even the request's headers could be read. */
export const defaultJson: Negotiated = { format: 'json', contentType: 'application/json; charset=utf-8' };
