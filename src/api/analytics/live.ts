/**
 * What the API process hands a chart series' read (rollups/engine/rollup.ts, `SeriesLive`): the
 * holder population as it stands, kept for the spec's cache time and shared with the population
 * routes, and the whale set of a threshold (a percent of the current total supply).
 */
import type { ChainId } from '../../chain/chains.ts';
import type { SeriesLive } from '../../rollups/engine/rollup.ts';
import type { ApiContext } from '../context.ts';
import { holderBalances, holdersByLastDay } from './supply/population.ts';
import { whaleSet, whaleThreshold } from './whales/whales.ts';

export function seriesLive(ctx: ApiContext): (chain: ChainId) => SeriesLive {
  return (chain) => ({
    holderBalances: async () => (await holderBalances(ctx, chain)).sorted,
    holdersByLastDay: () => holdersByLastDay(ctx, chain),
    whaleThreshold: (pct) => whaleThreshold(ctx.store, chain, pct),
    whales: async (threshold) => (await whaleSet(ctx.store, chain, threshold, { withoutExchanges: true })).map((w) => w.address),
  });
}
