/** A chain's coins minted per day and in all (docs/metrics.md, "Supply"), from chain_daily and the supply totals. */
import { chartSeries, type KeptChart } from '../../engine/rollup.ts';
import { CHAIN_DAILY } from '../chain-days.ts';
import { ONE_ITEM_PER_DAY } from '../days.ts';
import { chainEnds, mintedDays, supplyTotals, type MintedDay } from './minted-days.ts';

export const supplyCurve: KeptChart<MintedDay> = {
  name: 'supply_curve',
  part: 'supply',
  keptBy: CHAIN_DAILY,
  // Every day: mintedDays zero-fills.
  async read(db, chain, range) {
    const ends = await chainEnds(db, chain);
    const days = ends ? await mintedDays(db, chain, ends, await supplyTotals(db, chain), range.from, range.to) : [];
    return new Map(days.map((d) => [d.day, d]));
  },
  series: [
    chartSeries<MintedDay, { day: string; minted_today: string; block_count_today: number; cumulative_minted: string }>({
      path: '/analytics/supply/curve',
      operationId: 'getSupplyCurve',
      summary: 'Coins minted per day and cumulative supply of a chain',
      window: '365d',
      fields: {
        minted_today: { kind: 'amount', description: 'Minted that day (block rewards; pos withdrawals and migration mints; the genesis allocations on the genesis block’s day), in the chain’s smallest unit.' },
        block_count_today: { kind: 'integer' },
        cumulative_minted: { kind: 'amount', description: 'Genesis allocations plus everything minted up to the day’s end (the timeline’s supply).' },
      },
      itemsDescription: `${ONE_ITEM_PER_DAY}.`,
      envelope: { count: true, chain: true, days: { kind: 'integer', description: 'The window’s length in days.' } },
      missingDay: 'omit',
      items: (rows) =>
        rows.map((d) => ({ day: d.day, minted_today: d.minted.toString(), block_count_today: d.blockCount, cumulative_minted: d.cumulative.toString() })),
    }),
  ],
};
