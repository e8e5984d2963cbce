import { randomUUID } from 'node:crypto';
import * as v from 'valibot';

/** Building blocks for request schemas whose messages name what a field accepts. */

/** The message of a field that is missing (`input` undefined) or of the wrong type. */
export const requiredOr =
  (expected: string) =>
  (issue: { readonly input: unknown }): string =>
    issue.input === undefined ? `is required: ${expected}` : `must be ${expected}`;

/** Characters as JSON Schema's `minLength`/`maxLength` count them: code points, not UTF-16 units (an emoji is one). */
const characters = (value: string) => {
  let count = 0;
  for (const _ of value) count++;
  return count;
};

/** At least `min` characters; the document states it as `minLength`. Counting is skipped where the UTF-16 length decides. */
export const minChars = (min: number, message: string) => [
  v.check((value: string) => Math.ceil(value.length / 2) >= min || characters(value) >= min, message),
  v.metadata<string, { minLength: number }>({ minLength: min }),
];

/** At most `max` characters; the document states it as `maxLength`. */
export const maxChars = (max: number, message: string) => [
  v.check((value: string) => value.length <= max || characters(value) <= max, message),
  v.metadata<string, { maxLength: number }>({ maxLength: max }),
];

/**
 * Text that shows nothing: white space, control characters (the XML form cannot carry most of
 * them, and leaves them out), the characters Unicode lets a renderer ignore (U+200B, U+FEFF, …),
 * the blank braille pattern and the interlinear annotation marks.
 */
const BLANK = /^[\s\p{Cc}\p{Default_Ignorable_Code_Point}\u2800\ufff9-\ufffb]*$/u;
export const isBlank = (value: string) => BLANK.test(value);

/** A string of `min`..`max` characters that is not only white space. */
export const text = (min: number, max: number) => {
  const expected = `a string of ${min} to ${max} characters`;
  return v.pipe(
    v.string(requiredOr(expected)),
    ...minChars(min, `must be ${expected}`),
    ...maxChars(max, `must be ${expected}`),
    v.check((value: string) => !isBlank(value), 'must not be only white space, control or invisible characters'),
  );
};

export const IDENTIFIER_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const identifierRule = '1 to 64 letters, digits, `_` or `-`, starting with a letter or digit';

export const identifier = () =>
  v.pipe(
    v.string(requiredOr(`a string of ${identifierRule}`)),
    v.regex(IDENTIFIER_PATTERN, `must be ${identifierRule}`),
  );

export const isIdentifier = (value: string) => IDENTIFIER_PATTERN.test(value);

/** Unix seconds: a string of digits or a non-negative integer, at most a day ahead of `now`. */
const UNIX_SECONDS = 'must be seconds since the Unix epoch, as a string of up to 12 digits or a non-negative integer';

export const unixSeconds = (now: () => number) =>
  v.pipe(
    // Each branch says it too: a union whose value has one branch's type reports that branch's issue.
    v.union(
      [
        v.pipe(v.string(UNIX_SECONDS), v.regex(/^\d{1,12}$/, UNIX_SECONDS)),
        v.pipe(
          v.number(UNIX_SECONDS),
          v.integer(UNIX_SECONDS),
          v.minValue(0, UNIX_SECONDS),
          v.maxValue(Number.MAX_SAFE_INTEGER, UNIX_SECONDS),
        ),
      ],
      UNIX_SECONDS,
    ),
    v.transform(Number),
    v.check((seconds: number) => seconds <= now() + 86_400, 'must not be more than a day in the future'),
  );

export const nowInSeconds = () => Math.floor(Date.now() / 1000);

/** A server-made identifier (magazines created without `id`, articles). */
export const newId = () => randomUUID();
