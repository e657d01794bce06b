/**
 * When rare events happen (reorgs, undecodable items): heights drawn with exponential gaps of a
 * given mean from a stream of their own, so switching an event kind on or off changes nothing
 * else about the chain.
 */
import { Rng } from './rng.ts';

export class EventSchedule {
  private readonly rng: Rng;
  private nextHeight: number;

  constructor(
    seed: number,
    labels: (string | number)[],
    private readonly meanEvery: number,
    firstHeight: number,
  ) {
    this.rng = new Rng(seed, 'schedule', ...labels);
    this.nextHeight = meanEvery > 0 ? firstHeight + this.gap() : Number.POSITIVE_INFINITY;
  }

  /** Whether an event falls on `height`. Call with every height in ascending order. */
  at(height: number): boolean {
    if (height < this.nextHeight) return false;
    this.nextHeight = height + 1 + this.gap();
    return true;
  }

  /** A number drawn from the schedule's own stream (e.g. an event's depth). */
  draw(min: number, max: number): number {
    return this.rng.range(min, max);
  }

  private gap(): number {
    return Math.floor(this.rng.exponential(this.meanEvery));
  }
}
