/**
 * A window in hours or minutes ending at the latest block (docs/metrics.md, "Windows ending at the
 * latest block"): with T the time of the chain's latest indexed block and L the length in seconds,
 * the blocks whose time t has T − L < t ≤ T. `24h` is the 86,400 seconds before T, whichever UTC
 * days they fall on; a block exactly L seconds before T is out, the latest block is in. Every
 * figure named for such a window (`active_24h`, `planck_24h`, `fee_burned_24h_planck`, `top/burners`
 * with a window in `h` or `m`) reads the blocks this module names.
 *
 * Figures kept per UTC day read the window as whole days plus one partial day read from the raw
 * blocks (`dayCover`), so that an exact answer never reads more than half a day of blocks.
 */
import { DAY_SECONDS, formatDay } from '../time.ts';

/** The blocks with a time in (after, upTo]. */
export interface TipWindow {
  /** T − L: blocks at this time or earlier are out. */
  after: number;
  /** T: the latest block's time. */
  upTo: number;
}

/** The window of `seconds` ending at the latest block's time `tipTs`. */
export function windowEndingAt(tipTs: number, seconds: number): TipWindow {
  return { after: tipTs - seconds, upTo: tipTs };
}

/** Whether a block time is inside the window. */
export function inWindow(w: TipWindow, ts: number): boolean {
  return ts > w.after && ts <= w.upTo;
}

/**
 * A window as per-day rows and one signed stretch of raw blocks: the figure is the sum of the
 * rows of the UTC days firstDay..lastDay (none when firstDay > lastDay), plus `edge.sign` × the
 * figure of the blocks with a time in [edge.from, edge.to] (inclusive; no edge when null).
 */
export interface DayCover {
  firstDay: string;
  lastDay: string;
  edge: { from: number; to: number; sign: 1 | -1 } | null;
}

/**
 * How a window ending at the latest block is read from rows kept per UTC day. The latest block's
 * day is whole (no block is later than T), and so is every day after the one holding T − L + 1.
 * That first day, P, is split at T − L: its part inside the window, [T − L + 1, end of P], is read
 * from the blocks and added, or, when the part outside, [start of P, T − L], spans less time, P's
 * row is taken whole and the blocks of the part outside are subtracted. So the raw blocks read
 * span at most half a day, whatever the window's length.
 */
export function dayCover(w: TipWindow): DayCover {
  const lastDay = formatDay(w.upTo);
  const first = w.after + 1; // the earliest time inside the window
  const dayStart = Math.floor(first / DAY_SECONDS) * DAY_SECONDS;
  if (first === dayStart) return { firstDay: formatDay(first), lastDay, edge: null };
  const dayEnd = dayStart + DAY_SECONDS - 1;
  const inside = Math.min(dayEnd, w.upTo) - first + 1;
  const outside = first - dayStart;
  if (inside <= outside) {
    return { firstDay: formatDay(dayEnd + 1), lastDay, edge: { from: first, to: Math.min(dayEnd, w.upTo), sign: 1 } };
  }
  return { firstDay: formatDay(dayStart), lastDay, edge: { from: dayStart, to: w.after, sign: -1 } };
}
