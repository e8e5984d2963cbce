import { randomUUID } from 'node:crypto';
import * as z from 'zod/mini';

/** Building blocks for request schemas whose messages name what a field accepts. */

const requiredOr = (expected: string) => (issue: { input?: unknown }) =>
  issue.input === undefined ? `is required: ${expected}` : `must be ${expected}`;

/** A string of `min`..`max` characters that is not only white space. */
export const text = (min: number, max: number) => {
  const expected = `a string of ${min} to ${max} characters`;
  return z.string({ error: requiredOr(expected) }).check(
    z.minLength(min, { error: `must be ${expected}` }),
    z.maxLength(max, { error: `must be ${expected}` }),
    z.refine((value: string) => value.trim().length > 0, { error: 'must not be only white space' }),
  );
};

export const IDENTIFIER_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const identifierRule = '1 to 64 letters, digits, `_` or `-`, starting with a letter or digit';

export const identifier = () =>
  z
    .string({ error: requiredOr(`a string of ${identifierRule}`) })
    .check(z.regex(IDENTIFIER_PATTERN, { error: `must be ${identifierRule}` }));

export const isIdentifier = (value: string) => IDENTIFIER_PATTERN.test(value);

/** Unix seconds: a string of digits or a non-negative integer, at most a day ahead of `now`. */
const UNIX_SECONDS = 'must be seconds since the Unix epoch, as a string of up to 12 digits or a non-negative integer';

export const unixSeconds = (now: () => number) =>
  z
    .pipe(
      // Each branch says it too: a union whose value has one branch's type reports that branch's issue.
      z.union(
        [
          z.string().check(z.regex(/^\d{1,12}$/, { error: UNIX_SECONDS })),
          z.int().check(z.gte(0, { error: UNIX_SECONDS })),
        ],
        { error: UNIX_SECONDS },
      ),
      z.transform(Number),
    )
    .check(
      z.refine((seconds: number) => seconds <= now() + 86_400, { error: 'must not be more than a day in the future' }),
    );

export const nowInSeconds = () => Math.floor(Date.now() / 1000);

/** A server-made identifier (magazines created without `id`, articles). */
export const newId = () => randomUUID();
