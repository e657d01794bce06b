/**
 * The stall step, and the outcomes by which the other steps ask for it. A step that finds the
 * chain cannot go on returns a `StallAt` (or `Stopped` when the run's signal ended it) instead of
 * acting on it; the run's loop hands a `StallAt` to `stall`.
 */
import { ChainStalledError, recordStall, type Stall } from '../stalls.ts';
import type { RunContext } from './context.ts';
import { dropBlocksFrom } from './queue.ts';
import type { RunState } from './state.ts';
import { write } from './write.ts';

/** Nothing at or above `height` can be written, for `reason`; `payload`: the offending data, if any. */
export interface StallAt {
  kind: 'stall';
  height: number;
  reason: string;
  payload: unknown;
}

/** The run's signal was aborted while a step waited. */
export interface Stopped {
  kind: 'stopped';
}

export const STOPPED: Stopped = { kind: 'stopped' };

export function stallAt(height: number, reason: string, payload: unknown = null): StallAt {
  return { kind: 'stall', height, reason, payload };
}

/**
 * Writes what is queued below the height, records the stall (`ingest_stalls`, shown by /readyz and
 * the network health), logs it as an error with what to do, and ends the run with ChainStalledError.
 */
export async function stall(ctx: RunContext, state: RunState, at: StallAt): Promise<never> {
  const { chain } = ctx;
  dropBlocksFrom(state.queue, at.height);
  await write(ctx, state, true);
  const stall: Stall = { chain, source: ctx.source.name, height: at.height, reason: at.reason, sinceTs: ctx.now() };
  await recordStall(ctx.store, stall);
  const error = new ChainStalledError(stall);
  ctx.log?.error({ chain, height: at.height, reason: at.reason, payload: at.payload === null ? undefined : at.payload, hint: error.hint }, `${chain} stalled at height ${at.height}`);
  throw error;
}
