import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseHttpDate } from '../../../shared/http/http-date';

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const two = (n: number) => String(n).padStart(2, '0');
const clock = (d: Date) => `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`;

/** The two obsolete forms of a date, written as RFC 9110 §5.6.7 draws them. */
const rfc850 = (d: Date) =>
  `${DAYS[d.getUTCDay()]}, ${two(d.getUTCDate())}-${MONTHS[d.getUTCMonth()]}-${two(d.getUTCFullYear() % 100)} ${clock(d)} GMT`;
const asctime = (d: Date) =>
  `${DAYS[d.getUTCDay()]?.slice(0, 3)} ${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')} ${clock(d)} ${String(d.getUTCFullYear()).padStart(4, '0')}`;

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);
const NOW = Date.parse('2026-11-29T01:44:55Z');

describe('HTTP-date', () => {
  it('reads any date written as a Last-Modified is written (IMF-fixdate), to the second', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('0000-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }),
        (d) => {
          expect(parseHttpDate(d.toUTCString())).toBe(seconds(d));
        },
      ),
    );
  });

  it('reads the asctime form of any date, and the RFC 850 form of any date within 50 years of now', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('0000-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }),
        (d) => {
          expect(parseHttpDate(asctime(d))).toBe(seconds(d));
        },
      ),
    );
    fc.assert(
      fc.property(
        fc.date({ min: new Date('1977-01-01T00:00:00Z'), max: new Date('2076-11-28T23:59:59Z'), noInvalidDate: true }),
        (d) => {
          expect(parseHttpDate(rfc850(d), NOW)).toBe(seconds(d));
        },
      ),
    );
  });

  it('reads the three forms RFC 9110 gives for one moment alike', () => {
    const moment = seconds(new Date('2026-11-29T01:44:55Z'));
    expect(parseHttpDate('Sun, 29 Nov 2026 01:44:55 GMT')).toBe(moment);
    expect(parseHttpDate('Sunday, 29-Nov-26 01:44:55 GMT', NOW)).toBe(moment);
    expect(parseHttpDate('Sun Nov 29 01:44:55 2026')).toBe(moment);
    expect(parseHttpDate('Fri Nov  6 08:49:37 1994')).toBe(seconds(new Date('1994-11-06T08:49:37Z')));
  });

  it('takes a two-digit year more than 50 years ahead as the latest past year with those digits', () => {
    expect(parseHttpDate('Sunday, 01-Jan-76 00:00:00 GMT', NOW)).toBe(seconds(new Date('2076-01-01T00:00:00Z')));
    expect(parseHttpDate('Sunday, 01-Jan-77 00:00:00 GMT', NOW)).toBe(seconds(new Date('1977-01-01T00:00:00Z')));
  });

  it.each([
    'Sun, 29 Nov 2026 01:44:55 PST',
    'Sun, 29 Nov 2026 01:44:55 +0000',
    'Sun, 29 Nov 2026 01:44:55 UTC',
    'sun, 29 nov 2026 01:44:55 gmt',
    'Sun, 29 Nov 2026 01:44:55',
    'Sun, 29 Nov 26 01:44:55 GMT',
    'Sun, 9 Nov 2026 01:44:55 GMT',
    'Sun, 31 Feb 2026 01:44:55 GMT',
    'Sun, 29 Nov 2026 24:00:00 GMT',
    'Sun, 29 Nov 2026 01:60:00 GMT',
    'Sun,  29 Nov 2026 01:44:55 GMT',
    'Sun, 29-Nov-26 01:44:55 GMT',
    'Sunday, 29-Nov-2026 01:44:55 GMT',
    'Sun Nov 29 01:44:55 2026 GMT',
    '2026-11-29T01:44:55Z',
    '1795232695',
    '',
  ])('is not an HTTP-date: %j', (text) => {
    expect(parseHttpDate(text, NOW)).toBeUndefined();
  });
});
