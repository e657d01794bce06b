/**
 * `YYYY-MM-DD` of a Unix time for the oracles, written here so that expectations do not share the
 * code under test (src/time.ts). Each day's name is built once per process: the oracles name the
 * day of every block of a world.
 */
const names = new Map<number, string>();

export function utcDay(ts: number): string {
  const day = Math.floor(ts / 86_400);
  let name = names.get(day);
  if (name === undefined) {
    name = new Date(day * 86_400_000).toISOString().slice(0, 10);
    names.set(day, name);
  }
  return name;
}
