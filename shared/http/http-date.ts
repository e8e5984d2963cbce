/**
 * HTTP-date (RFC 9110 §5.6.7), read strictly: a recipient must take all three forms, and a date
 * in none of them is not a date (an `If-Modified-Since` holding one is ignored). `Date.parse`
 * would take time zones other than GMT, and did not take the two obsolete forms.
 */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAY = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTH = `(${MONTHS.join('|')})`;
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';

/** `Sun, 06 Nov 1994 08:49:37 GMT` */
const IMF_FIXDATE = new RegExp(`^${DAY}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
/** `Sunday, 06-Nov-94 08:49:37 GMT` */
const RFC_850 = new RegExp(`^${LONG_DAY}, (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`);
/** `Sun Nov  6 08:49:37 1994` */
const ASCTIME = new RegExp(`^${DAY} ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`);

/** RFC 9110: a two-digit year more than 50 years ahead is the latest past year with those digits. */
const fullYear = (twoDigits: number, nowMs: number) => {
  const thisYear = new Date(nowMs).getUTCFullYear();
  let year = thisYear - (thisYear % 100) + twoDigits;
  if (year > thisYear + 50) year -= 100;
  return year;
};

/** Seconds since the epoch, or undefined when the fields are not a real day and time. */
const secondsOf = (year: number, monthName: string, day: number, hour: number, minute: number, second: number) => {
  const month = MONTHS.indexOf(monthName);
  // A leap second (`:60`) is allowed by the grammar; it is read as the second after.
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC, which reads the years 0 to 99 as 1900 to 1999.
  date.setUTCFullYear(year, month, day);
  if (date.getUTCMonth() !== month || date.getUTCDate() !== day) return undefined;
  return date.getTime() / 1000 + hour * 3600 + minute * 60 + second;
};

/** The time an HTTP-date names, in seconds since the epoch; undefined if the text is not an HTTP-date. */
export const parseHttpDate = (text: string, nowMs = Date.now()): number | undefined => {
  const value = text.trim();
  const fixdate = IMF_FIXDATE.exec(value);
  if (fixdate) {
    const [, day, month = '', year, hour, minute, second] = fixdate;
    return secondsOf(Number(year), month, Number(day), Number(hour), Number(minute), Number(second));
  }
  const rfc850 = RFC_850.exec(value);
  if (rfc850) {
    const [, day, month = '', year, hour, minute, second] = rfc850;
    return secondsOf(fullYear(Number(year), nowMs), month, Number(day), Number(hour), Number(minute), Number(second));
  }
  const asctime = ASCTIME.exec(value);
  if (asctime) {
    const [, month = '', day, hour, minute, second, year] = asctime;
    return secondsOf(Number(year), month, Number(day), Number(hour), Number(minute), Number(second));
  }
  return undefined;
};
