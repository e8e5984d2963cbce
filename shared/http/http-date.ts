/**
 * HTTP-date (RFC 9110 §5.6.7), read strictly: a recipient must take all three forms, and a date
 * in none of them is not a date (an `If-Modified-Since` holding one is ignored). `Date.parse`
 * would take time zones other than GMT, and did not take the two obsolete forms.
 */

const MONTHS = 'JanFebMarAprMayJunJulAugSepOctNovDec';
const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const MONTH = '(?<m>Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = '(?<h>\\d\\d):(?<i>\\d\\d):(?<s>\\d\\d)';

/** `Sun, 06 Nov 1994 08:49:37 GMT`, `Sunday, 06-Nov-94 08:49:37 GMT` and `Sun Nov  6 08:49:37 1994`, by named groups. */
const FORMS = [
  `${DAY}, (?<d>\\d\\d) ${MONTH} (?<y>\\d{4}) ${TIME} GMT`,
  `(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day, (?<d>\\d\\d)-${MONTH}-(?<yy>\\d\\d) ${TIME} GMT`,
  `${DAY} ${MONTH} (?<d>[ \\d]\\d) ${TIME} (?<y>\\d{4})`,
].map((form) => new RegExp(`^${form}$`));

/** The time an HTTP-date names, in seconds since the epoch; undefined if the text is not an HTTP-date. */
export const parseHttpDate = (text: string, nowMs = Date.now()): number | undefined => {
  const value = text.trim();
  const groups = FORMS.map((form) => form.exec(value)?.groups).find(Boolean);
  if (!groups) return undefined;
  const month = MONTHS.indexOf(groups.m ?? '') / 3;
  const [day, hour, minute, second] = [groups.d, groups.h, groups.i, groups.s].map(Number) as [
    number,
    number,
    number,
    number,
  ];
  let year = Number(groups.y);
  if (groups.yy !== undefined) {
    // RFC 9110: a two-digit year more than 50 years ahead is the latest past year with those digits.
    const thisYear = new Date(nowMs).getUTCFullYear();
    year = thisYear - (thisYear % 100) + Number(groups.yy);
    if (year > thisYear + 50) year -= 100;
  }
  // A leap second (`:60`) is allowed by the grammar; it is read as the second after.
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC, which reads the years 0 to 99 as 1900 to 1999.
  date.setUTCFullYear(year, month, day);
  if (date.getUTCMonth() !== month || date.getUTCDate() !== day) return undefined;
  return date.getTime() / 1000 + hour * 3600 + minute * 60 + second;
};
