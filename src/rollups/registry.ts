/**
 * Every rollup and chart, in the one place the engine reads them from. Rollups run after those they
 * declare they follow (`after`; engine/order.ts), otherwise in this order.
 */
import type { AnyRollup, Chart } from './engine/rollup.ts';
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

export const ROLLUPS: readonly AnyRollup[] = [
  addressSummary, addressRanks, addressDaily, activeDays, addressHeatmap, counterparties, tokenBalances, chainDaily, feeWindows,
  dayBreakdowns, dayLargest,
  supply, holderState, timelineActivity, dayTopTxs, exchangeVenues,
];

export const CHARTS: readonly Chart[] = [activeAddresses, newAddresses, holders, feePercentiles,
  timelineTotals, supplyDistribution];
