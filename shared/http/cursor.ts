import { createHmac, timingSafeEqual } from 'node:crypto';
import { invalidParameter } from './errors';

/**
 * The opaque `cursor` of a `next` link: where the next page starts (the store's position of the
 * last item shown, and that item's offset), for which list (operation, path, filters, order), and
 * an HMAC over both. A cursor that is malformed, altered, or from another list is refused.
 */

interface CursorBody {
  /** The list: operation path, filters and order. */
  readonly l: string;
  /** The store's position to resume after. */
  readonly p: string;
  /** The offset of the first item of the page it starts. */
  readonly o: number;
}

const MAC_LENGTH = 16;

const mac = (key: string, payload: string) =>
  createHmac('sha256', key).update(payload).digest('base64url').slice(0, MAC_LENGTH);

export const encodeCursor = (key: string, list: string, position: string, offset: number): string => {
  const payload = Buffer.from(JSON.stringify({ l: list, p: position, o: offset } satisfies CursorBody)).toString(
    'base64url',
  );
  return `${payload}.${mac(key, payload)}`;
};

const refused = (why: string) =>
  invalidParameter(
    `Query parameter \`cursor\` ${why}. Use the \`cursor\` of a \`next\` link of this same list unchanged, or \`offset\` instead.`,
  );

const equal = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export const decodeCursor = (
  key: string,
  list: string,
  cursor: string,
): { readonly after: string; readonly offset: number } => {
  const [payload = '', signature = '', ...rest] = cursor.split('.');
  if (rest.length > 0 || !payload || !equal(signature, mac(key, payload)))
    throw refused('is not a cursor this API gave out, or was altered');
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw refused('is not a cursor this API gave out');
  }
  const { l, p, o } = (body ?? {}) as Partial<CursorBody>;
  if (typeof l !== 'string' || typeof p !== 'string' || typeof o !== 'number' || !Number.isSafeInteger(o) || o < 0) {
    throw refused('is not a cursor this API gave out');
  }
  if (l !== list) throw refused('belongs to another list, filter or order');
  return { after: p, offset: o };
};
