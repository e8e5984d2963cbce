import { createHmac, timingSafeEqual } from 'node:crypto';
import { invalidParameter } from './errors';

/**
 * The opaque `cursor` of a `next` link: where the next page starts (the store's position of the
 * last item shown, and the offset of the page it starts), and an HMAC over both and the list it
 * belongs to (operation, path, filters, order). The list is not carried, only signed, so the
 * cursor stays short; a cursor that is malformed, altered, or from another list fails the check.
 */

const MAC_LENGTH = 16;

const mac = (key: string, list: string, offset: number, position: string) =>
  createHmac('sha256', key).update(`${list}\n${offset}\n${position}`).digest('base64url').slice(0, MAC_LENGTH);

/**
 * The cursor last made: a warm function that serves the same page again (a list's first page,
 * most often) signs the same `next` cursor again, and an HMAC is a tenth of such a request.
 */
let lastMade: { key: string; list: string; position: string; offset: number; cursor: string } | undefined;

export const encodeCursor = (key: string, list: string, position: string, offset: number): string => {
  const last = lastMade;
  if (last && last.key === key && last.list === list && last.position === position && last.offset === offset)
    return last.cursor;
  const cursor = `${offset}.${Buffer.from(position).toString('base64url')}.${mac(key, list, offset, position)}`;
  lastMade = { key, list, position, offset, cursor };
  return cursor;
};

const equal = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export const decodeCursor = (
  key: string,
  list: string,
  cursor: string,
): { readonly after: string; readonly offset: number } => {
  const match = /^(0|[1-9]\d{0,14})\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(cursor);
  const offset = Number(match?.[1]);
  const position = Buffer.from(match?.[2] ?? '', 'base64url').toString('utf8');
  if (!match || !equal(match[3] ?? '', mac(key, list, offset, position))) {
    throw invalidParameter(
      'Query parameter `cursor` is not a cursor of this list: it was altered, or comes from another list, filter or order. Use the `cursor` of a `next` link of this same list unchanged, or `offset` instead.',
    );
  }
  return { after: position, offset };
};
