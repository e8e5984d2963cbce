import type { ElementNames } from './xml';

/**
 * What an operation returns; the middleware stack turns it into the HTTP response in the
 * negotiated format, with caching headers. Operations never build raw responses themselves.
 */
export interface RepresentationReply {
  readonly kind: 'representation';
  readonly status: 200 | 201;
  readonly body: object;
  /** Root element and plural → singular element names for XML. */
  readonly xml: { readonly root: string; readonly names?: ElementNames };
  readonly location?: string;
  /** Unix seconds of the last change, for `Last-Modified`. */
  readonly lastModified?: number;
  /** The stored revision of a single resource: its `ETag` is derived from it (see conditional.ts). */
  readonly revision?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** The first outcome of an idempotent request, given again: nothing was written this time. */
  readonly replayed?: boolean;
}

/** A fixed document (HTML page, OpenAPI JSON) that is not subject to format negotiation. */
interface DocumentReply {
  readonly kind: 'document';
  readonly contentType: string;
  readonly body: string;
}

export type Reply = RepresentationReply | DocumentReply;

const idRoot = { root: 'response' } as const;

/** 200 with a representation. */
export const ok = (
  body: object,
  xml: RepresentationReply['xml'],
  extra: Partial<RepresentationReply> = {},
): RepresentationReply => ({
  kind: 'representation',
  status: 200,
  body,
  xml,
  ...extra,
});

/** 200 `{id}`: the answer to a replace or delete. */
export const done = (id: string): RepresentationReply => ok({ id }, idRoot);

/** 201 `{id}` with the `Location` of the new resource (or of the one the first request with the same idempotency key made). */
export const created = (id: string, location: string, { replayed = false } = {}): RepresentationReply => ({
  kind: 'representation',
  status: 201,
  body: { id },
  xml: idRoot,
  location,
  ...(replayed && { replayed }),
});

export const document = (contentType: string, body: string): DocumentReply => ({ kind: 'document', contentType, body });
