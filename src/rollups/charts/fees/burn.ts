/**
 * The pos fee burn of a day (EIP-1559: base fee × gas used, summed exactly per block), from
 * chain_daily, and the two daily series the spec serves it in (docs/metrics.md, "Fee burn"): the
 * burn endpoints take no chain parameter, pos being the only chain with a base fee.
 */
import { CHAIN_INFO } from '../../../chain/chains.ts';
import { formatUnits } from '../../../chain/amounts.ts';
import { chartSeries, type KeptChart, type SeriesValue } from '../../engine/rollup.ts';
import { CHAIN_DAILY, chainDayRows, noBlocks, type ChainDay } from '../chain-days.ts';

/** Planck as coins, exactly. */
export const planckToCoins = (planck: string | bigint): string => formatUnits(String(planck), CHAIN_INFO.pos.decimals);

const BURN_FIELDS: Record<string, SeriesValue> = {
  fee_burned_planck: { kind: 'amount', description: 'Base fee × gas used of the day’s blocks, planck.' },
  fee_burned_pos: { kind: 'string', description: 'The same in coins, as an exact decimal string.', examples: ['0.000441'] },
  block_count: { kind: 'integer' },
  avg_base_fee_planck: { kind: 'amount', description: 'Mean base fee per gas of the day’s blocks, planck, rounded down; 0 without blocks.' },
};

function burnDay(d: ChainDay) {
  return {
    day: d.day,
    fee_burned_planck: d.burned,
    fee_burned_pos: planckToCoins(d.burned),
    block_count: d.block_count,
    avg_base_fee_planck: d.block_count > 0 ? (BigInt(d.base_fee_sum) / BigInt(d.block_count)).toString() : '0',
  };
}

const burnSeries = { window: '30d', chain: 'pos', missingDay: { zero: noBlocks } } as const;

export const feeBurn: KeptChart<ChainDay> = {
  name: 'fee_burn',
  part: 'network',
  keptBy: CHAIN_DAILY,
  read: chainDayRows,
  series: [
    chartSeries<ChainDay, ReturnType<typeof burnDay> & { gas_used_total: string }>({
      ...burnSeries,
      path: '/pos/fees/burned/daily',
      operationId: 'getBurnedDaily',
      summary: 'Fees burned per day on pos (base fee × gas used)',
      fields: { ...BURN_FIELDS, gas_used_total: { kind: 'amount', description: 'Gas used by the day’s blocks, as a decimal string.' } },
      itemsDescription: 'One item per UTC day, oldest first, to the latest block’s day.',
      envelope: { days: { kind: 'integer', nullable: true, description: 'Days in the window.' }, network: { kind: 'string', nullable: true } },
      items: (rows) => rows.map((d) => ({ ...burnDay(d), gas_used_total: d.gas_used })),
    }),
    chartSeries<ChainDay, ReturnType<typeof burnDay>>({
      ...burnSeries,
      path: '/analytics/network/gas-trends',
      operationId: 'getGasTrends',
      summary: 'Daily fee burn and mean base fee of the pos chain',
      fields: BURN_FIELDS,
      itemsDescription: 'One item per UTC day of the pos chain, oldest first, to the latest block’s day.',
      envelope: { days: { kind: 'integer', description: 'Days in the window.' }, chain: { kind: 'string', description: 'Always pos: pow has no base fee.' } },
      items: (rows) => rows.map(burnDay),
    }),
  ],
};
