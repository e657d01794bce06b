/** The three timestamp formats of the API, and days. All UTC. */

/** `YYYY-MM-DDTHH:MM:SS`, the default timestamp form. */
export function formatTimestamp(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().slice(0, 19);
}

export function formatTimestampOrNull(unixSeconds: number | null | undefined): string | null {
  return unixSeconds == null ? null : formatTimestamp(unixSeconds);
}

/** `YYYY-MM-DD HH:MM:SS.mmm`, used by the whale endpoints. */
export function formatWhaleTimestamp(unixMillis: number): string {
  const iso = new Date(unixMillis).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)}`;
}

/** `YYYY-MM-DDTHH:MM:SS.ffffffZ`, used by `generated_at` and `checked_at`. */
export function formatGeneratedAt(unixMicros: bigint = nowMicros()): string {
  const millis = Number(unixMicros / 1000n);
  const micros = String(unixMicros % 1000n).padStart(3, '0');
  return `${new Date(millis).toISOString().slice(0, 23)}${micros}Z`;
}

/** Wall-clock time with microseconds (Date alone has milliseconds). */
export function nowMicros(): bigint {
  return BigInt(Math.floor((performance.timeOrigin + performance.now()) * 1000));
}

/** `YYYY-MM-DD` of a Unix time. */
export function formatDay(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().slice(0, 10);
}

/** The Unix time of 00:00 UTC of a `YYYY-MM-DD` day. */
export function dayStart(day: string): number {
  return Date.parse(`${day}T00:00:00Z`) / 1000;
}
