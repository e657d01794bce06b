/**
 * Holders and balances per last-activity day at the latest block: the chart's state plus the moves
 * since (a day's moves), kept until the next block. The engine's contract (engine/rollup.ts,
 * SeriesLive) names it, the supply charts and the API compute with it.
 */
export interface LastDayCell {
  day: string;
  /** `day` in days since 1970-01-01, read once with the cell: there is a cell per day of history, and requests are many. */
  dayNumber: number;
  holders: number;
  balance: bigint;
}
