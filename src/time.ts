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

/** The day `days` after (or, negative, before) `day`. */
export function addDays(day: string, days: number): string {
  return formatDay(dayStart(day) + days * DAY_SECONDS);
}

/** Days since 1970-01-01: a small integer key where a date string would be built and hashed. */
export function dayNumber(unixSeconds: number): number {
  return Math.floor(unixSeconds / DAY_SECONDS);
}

const dayNames = new Map<number, string>();
/** `YYYY-MM-DD` of a day number, cached: bulk loads name the same few hundred days millions of times. */
export function dayName(day: number): string {
  let name = dayNames.get(day);
  if (name === undefined) dayNames.set(day, (name = formatDay(day * DAY_SECONDS)));
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
