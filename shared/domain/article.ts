import * as z from 'zod/mini';
import { text } from './fields';

const isCalendarDay = (value: string) => {
  const [year, month, day] = value.split('-').map(Number);
  if (year === undefined || month === undefined || day === undefined) return false;
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
};

// A pragmatic address check (WHATWG's form for input type=email): one @, a dotted domain.
const EMAIL =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/** The body of POST /magazines/{id}/articles. */
export const articleInput = z.strictObject(
  {
    title: text(1, 256),
    author_first_name: text(1, 128),
    author_last_name: text(1, 128),
    author_email: z
      .string({
        error: (issue) => (issue.input === undefined ? 'is required: an e-mail address' : 'must be an e-mail address'),
      })
      .check(
        z.maxLength(254, { error: 'must be an e-mail address of at most 254 characters' }),
        z.regex(EMAIL, { error: 'must be an e-mail address such as `ada@example.com`' }),
      ),
    date: z
      .string({
        error: (issue) =>
          issue.input === undefined ? 'is required: a date as `YYYY-MM-DD`' : 'must be a date as `YYYY-MM-DD`',
      })
      .check(
        z.regex(/^\d{4}-\d{2}-\d{2}$/, { error: 'must be a date as `YYYY-MM-DD`' }),
        z.refine(isCalendarDay, { error: 'must be a real calendar day as `YYYY-MM-DD`' }),
      ),
    text: text(1, 100_000),
  },
  { error: 'must be a JSON object describing an article' },
);

export type ArticleInput = z.output<typeof articleInput>;

/** An article as the store holds it. */
export interface Article extends ArticleInput {
  readonly id: string;
  readonly magazineId: string;
  /** Unix seconds. */
  readonly created: number;
}
