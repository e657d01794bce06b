/**
 * How busy each day and hour is: a growth trend, a weekly rhythm (quieter weekends), day-to-day
 * noise, rare busy days, and a daily cycle peaking in the European afternoon. Factors average 1
 * over the history, so `scale` stays the mean number of transactions per day.
 */
import { DAY_SECONDS } from '../../time.ts';
import { Rng } from './rng.ts';

export class ActivityCurve {
  private readonly dayFactors: Float64Array;

  constructor(
    seed: number,
    chain: string,
    private readonly start: number,
    end: number,
  ) {
    const rng = new Rng(seed, chain, 'activity');
    const days = Math.floor((end - start) / DAY_SECONDS) + 1;
    const factors = new Float64Array(days);
    let sum = 0;
    for (let d = 0; d < days; d++) {
      const trend = 0.7 + (0.6 * d) / Math.max(1, days - 1);
      const weekday = new Date((start + d * DAY_SECONDS) * 1000).getUTCDay();
      const weekly = weekday === 0 || weekday === 6 ? 0.82 : 1.05;
      const noise = Math.exp(0.12 * rng.normal());
      const spike = rng.chance(0.03) ? 1.5 + rng.float() : 1;
      factors[d] = trend * weekly * noise * spike;
      sum += factors[d]!;
    }
    for (let d = 0; d < days; d++) factors[d] = (factors[d]! * days) / sum;
    this.dayFactors = factors;
  }

  /** Index of the day of `ts` since the start of the history. */
  day(ts: number): number {
    return Math.floor((ts - this.start) / DAY_SECONDS);
  }

  /** Relative activity at `ts` (mean 1). */
  factor(ts: number): number {
    const day = this.dayFactors[Math.min(this.dayFactors.length - 1, Math.max(0, this.day(ts)))]!;
    const hour = (ts % DAY_SECONDS) / 3600;
    return day * (1 + 0.35 * Math.sin((2 * Math.PI * (hour - 9)) / 24));
  }
}
