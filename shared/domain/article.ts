import * as v from 'valibot';
import { maxChars, requiredOr, text } from './fields';

/** A day of the (proleptic) Gregorian calendar, as RFC 3339's full-date has it: years 0000 to 9999. */
const isCalendarDay = (value: string) => {
  const [year, month, day] = value.split('-').map(Number);
  if (year === undefined || month === undefined || day === undefined) return false;
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC, which reads the years 0 to 99 as 1900 to 1999.
  date.setUTCFullYear(year, month - 1, day);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
};

// A pragmatic address check (WHATWG's form for input type=email): one @, a dotted domain.
const EMAIL =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/** The body of POST /magazines/{id}/articles. */
export const articleInput = v.strictObject(
  {
    title: text(1, 256),
    author_first_name: text(1, 128),
    author_last_name: text(1, 128),
    author_email: v.pipe(
      v.string(requiredOr('an e-mail address')),
      ...maxChars(254, 'must be an e-mail address of at most 254 characters'),
      v.regex(EMAIL, 'must be an e-mail address such as `ada@example.com`'),
    ),
    date: v.pipe(
      v.string(requiredOr('a date as `YYYY-MM-DD`')),
      v.isoDate('must be a date as `YYYY-MM-DD`'),
      v.check(isCalendarDay, 'must be a real calendar day as `YYYY-MM-DD`'),
    ),
    text: text(1, 100_000),
  },
  'must be a JSON object describing an article',
);

export type ArticleInput = v.InferOutput<typeof articleInput>;

/** An article as the store holds it. */
export interface Article extends ArticleInput {
  readonly id: string;
  readonly magazineId: string;
  /** Unix seconds. */
  readonly created: number;
}
