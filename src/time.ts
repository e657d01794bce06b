/** Days and timestamps, once for every layer. All UTC; Unix times in seconds unless named otherwise. */

export const DAY_SECONDS = 86_400;

/** `YYYY-MM-DD` of a Unix time. */
export function formatDay(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().slice(0, 10);
}

/** The Unix time of 00:00 UTC of a `YYYY-MM-DD` day. */
export function dayStart(day: string): number {
  return Date.parse(`${day}T00:00:00Z`) / 1000;
}

const DAY_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * Days since 1970-01-01 of a `YYYY-MM-DD` day, or NaN if it is not a calendar day. Arithmetic
 * (days from the civil date, as in H. Hinnant's date algorithms): Date.parse and toISOString cost
 * a microsecond a day, which a ten-year window's loops pay thousands of times per request.
 */
export function dayIndex(day: string): number {
  const match = DAY_PATTERN.exec(day);
  if (!match) return NaN;
  const [year, month, date] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (month < 1 || month > 12 || date < 1 || date > daysInMonth(year, month)) return NaN;
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + date - 1;
  return era * 146_097 + yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear - 719_468;
}

function daysInMonth(year: number, month: number): number {
  if (month !== 2) return [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
}

/** The day `days` after (or, negative, before) `day`. */
export function addDays(day: string, days: number): string {
  const index = dayIndex(day);
  return Number.isNaN(index) ? formatDay(dayStart(day) + days * DAY_SECONDS) : dayName(index + days);
}

/** Every day from `from` to `to` (inclusive), oldest first. */
export function eachDay(from: string, to: string): string[] {
  const out: string[] = [];
  for (let day = dayIndex(from), last = dayIndex(to); day <= last; day++) out.push(dayName(day));
  return out;
}

/** Days since 1970-01-01: a small integer key where a date string would be built and hashed. */
export function dayNumber(unixSeconds: number): number {
  return Math.floor(unixSeconds / DAY_SECONDS);
}

const dayNames = new Map<number, string>();
/** Days named from the cache: 1970 to 2109, whatever days a request names. */
const CACHED_DAYS = 51_134;
/** `YYYY-MM-DD` of a day number, cached: bulk loads name the same few hundred days millions of times. */
export function dayName(day: number): string {
  let name = dayNames.get(day);
  if (name === undefined) {
    name = formatDay(day * DAY_SECONDS);
    if (day >= 0 && day < CACHED_DAYS) dayNames.set(day, name);
  }
  return name;
}

/**
 * The last closed day of a chain whose newest block is at `tipTs`: the day before the tip's. A day
 * closes once a block of a later day is indexed; the tip's own day is still open.
 */
export function lastClosedDay(tipTs: number): string {
  return formatDay(tipTs - DAY_SECONDS);
}

/** `YYYY-MM-DDTHH:MM:SS`, the API's default timestamp form. */
export function formatTimestamp(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().slice(0, 19);
}

export function formatTimestampOrNull(unixSeconds: number | null | undefined): string | null {
  return unixSeconds == null ? null : formatTimestamp(unixSeconds);
}

/** The wall clock in Unix microseconds (sub-millisecond from the monotonic clock's origin). */
export function nowMicros(): number {
  return Math.floor((performance.timeOrigin + performance.now()) * 1000);
}

/** `YYYY-MM-DDTHH:MM:SS.ffffffZ` of Unix microseconds: the form of `generated_at` and `checked_at`. */
export function formatGeneratedAt(micros: number): string {
  const ms = Math.floor(micros / 1000);
  const fraction = String(micros - ms * 1000).padStart(3, '0');
  return `${new Date(ms).toISOString().slice(0, 23)}${fraction}Z`;
}
