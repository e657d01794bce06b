/**
 * Every rollup and chart, listed in one place and built into the set the engine is handed
 * (REGISTERED; index.ts binds the engine's entry points to it). Rollups run after those they
 * declare they follow (`after`; engine/order.ts), otherwise in this order; charts close in theirs
 * (one that reads another's table comes after it), and the API mounts their series in it.
 */
import type { AnyRollup, Chart } from './engine/rollup.ts';
import { rollupSet } from './engine/set.ts';
import { addressSummary } from './addresses/address-summary.ts';
import { addressRanks } from './addresses/address-ranks.ts';
import { addressDaily, addressHeatmap } from './addresses/address-activity.ts';
import { counterparties } from './addresses/counterparties.ts';
import { tokenBalances } from './addresses/token-balances.ts';
import { tokenStats } from './tokens/token-stats.ts';
import { chainDaily } from './network/chain-daily.ts';
import { feeWindows } from './addresses/fee-windows.ts';
import { activeDays } from './network/active-days.ts';
import { dayBreakdowns } from './network/day-breakdowns.ts';
import { dayLargest } from './network/day-largest.ts';
import { dayTopTxs } from './whales/day-top-txs.ts';
import { activeAddresses } from './charts/network/active-addresses.ts';
import { newAddresses } from './charts/network/new-addresses.ts';
import { holders } from './charts/supply/holders.ts';
import { feePercentiles } from './charts/fees/fee-percentiles.ts';
import { timelineActivity } from './network/timeline-activity.ts';
import { timelineTotals } from './charts/timeline/totals.ts';
import { supply } from './supply/supply.ts';
import { exchangeVenues } from './exchange/venues.ts';
import { holderState, supplyDistribution } from './charts/supply/distribution.ts';
import { blockSize } from './charts/blocks/block-size.ts';
import { blockTimes } from './charts/blocks/block-times.ts';
import { feeBurn } from './charts/fees/burn.ts';
import { gasDistribution } from './charts/fees/gas-distribution.ts';
import { stakingFigures } from './charts/staking/staking-days.ts';
import { supplyCurve } from './charts/supply/curve.ts';
import { transactionsByType } from './charts/transactions/by-type.ts';
import { userTransactions } from './charts/transactions/user-daily.ts';
import { whaleMovers } from './charts/whales/heatmap.ts';

export const ROLLUPS: readonly AnyRollup[] = [
  addressSummary, addressRanks, addressDaily, activeDays, addressHeatmap, counterparties, tokenBalances, tokenStats, chainDaily, feeWindows,
  dayBreakdowns, dayLargest,
  supply, holderState, timelineActivity, dayTopTxs, exchangeVenues,
];

export const CHARTS: readonly Chart[] = [activeAddresses, newAddresses, holders, feePercentiles,
  timelineTotals, supplyDistribution,
  blockSize, blockTimes, transactionsByType, gasDistribution, feeBurn, userTransactions, stakingFigures, supplyCurve, whaleMovers];

/** The registered rollups and charts, as the engine takes them. */
export const REGISTERED = rollupSet(ROLLUPS, CHARTS);

/** The charts whose days close into a table of their own (the others read a rollup's per-day rows). */
export const CLOSED_CHARTS = REGISTERED.closedCharts;
