// HTTP-date (RFC 9110 §5.6.7), strictly: IMF-fixdate and the two obsolete forms
// a recipient MUST accept (RFC 850, asctime), nothing else. Date.parse is not
// used: it takes far too much ('2026', 'Tomorrow 1', '0'), and RFC 9111 §5.3
// says an invalid date in Expires means "already expired", so what counts as
// valid decides what is cached.

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

// Case-sensitive (the ABNF's %s"..."): day and month names, "GMT".
const IMF_FIXDATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d\d) ([A-Z][a-z]{2}) (\d{4}) (\d\d):(\d\d):(\d\d) GMT$/;
const RFC850_DATE = /^(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\d\d)-([A-Z][a-z]{2})-(\d\d) (\d\d):(\d\d):(\d\d) GMT$/;
const ASCTIME_DATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) ([A-Z][a-z]{2}) ( \d|\d\d) (\d\d):(\d\d):(\d\d) (\d{4})$/;

/** Longer values are never an HTTP-date (the longest form, RFC 850's, has 37 characters). */
const MAX_LENGTH = 40;

function daysIn(month: number, year: number): number {
  return new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
}

// Every field in range (a second of 60 is a leap second), else NaN.
function timestamp(year: number, monthName: string, day: number, hour: number, minute: number, second: number): number {
  const month = MONTHS.indexOf(monthName);
  if (month === -1 || day < 1 || day > daysIn(month, year) || hour > 23 || minute > 59 || second > 60) return NaN;
  return Date.UTC(year, month, day, hour, minute, Math.min(second, 59));
}

// RFC 9110 §5.6.7: a two-digit year more than 50 years in the future is the most recent past year with those digits.
function fullYear(twoDigits: number, now: number): number {
  const current = new Date(now).getUTCFullYear();
  let year = current - (current % 100) + twoDigits;
  if (year > current + 50) year -= 100;
  return year;
}

/**
 * The time an HTTP-date stands for, in ms since the epoch; NaN for anything
 * that is not exactly one of the three forms with every field in range
 * (`now` places an RFC 850 two-digit year). The day name is not checked
 * against the date (RFC 9110 does not ask it).
 */
export function parseHttpDate(value: string, now = Date.now()): number {
  if (value.length > MAX_LENGTH) return NaN;
  let parts = IMF_FIXDATE.exec(value);
  if (parts) return timestamp(Number(parts[4]), parts[3], Number(parts[2]), Number(parts[5]), Number(parts[6]), Number(parts[7]));
  parts = RFC850_DATE.exec(value);
  if (parts) return timestamp(fullYear(Number(parts[4]), now), parts[3], Number(parts[2]), Number(parts[5]), Number(parts[6]), Number(parts[7]));
  parts = ASCTIME_DATE.exec(value);
  if (parts) return timestamp(Number(parts[7]), parts[2], Number(parts[3].trim()), Number(parts[4]), Number(parts[5]), Number(parts[6]));
  return NaN;
}
