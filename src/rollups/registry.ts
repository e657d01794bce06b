/**
 * Every rollup and chart, in the one place the engine reads them from. Rollups run in this order;
 * it matters only where one reads another (each file says which it follows).
 */
import type { Chart, Rollup } from './engine/rollup.ts';
import { addressSummary } from './address-summary.ts';
import { addressRanks } from './address-ranks.ts';
import { addressDaily, addressHeatmap } from './address-activity.ts';
import { counterparties } from './counterparties.ts';
import { tokenBalances } from './token-balances.ts';
import { chainDaily } from './chain-daily.ts';
import { feeWindows } from './fee-windows.ts';
import { activeDays } from './active-days.ts';
import { dayBreakdowns } from './day-breakdowns.ts';
import { dayLargest } from './day-largest.ts';
import { dayTopTxs } from './day-top-txs.ts';
import { activeAddresses } from './charts/network/active-addresses.ts';
import { newAddresses } from './charts/network/new-addresses.ts';
import { holders } from './charts/supply/holders.ts';
import { feePercentiles } from './charts/fees/fee-percentiles.ts';
import { timelineActivity } from './timeline-activity.ts';
import { timelineTotals } from './charts/timeline/totals.ts';
import { supply } from './supply.ts';
import { exchangeVenues } from './exchange/venues.ts';
import { holderState, supplyDistribution } from './charts/supply/distribution.ts';

export const ROLLUPS: readonly Rollup[] = [
  addressSummary, addressRanks, addressDaily, activeDays, addressHeatmap, counterparties, tokenBalances, chainDaily, feeWindows,
  dayBreakdowns, dayLargest,
  supply, holderState,
  // Last, next to each other: a followed block's statements of these keep their plans, and the
  // driver switches the plan mode once for them all (store/postgres.ts).
  timelineActivity, dayTopTxs, exchangeVenues,
];

export const CHARTS: readonly Chart[] = [activeAddresses, newAddresses, holders, feePercentiles,
  timelineTotals, supplyDistribution];
