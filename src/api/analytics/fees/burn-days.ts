/**
 * The pos fee burn of a day (EIP-1559: base fee × gas used, summed exactly per block), as the burn
 * endpoints answer it, and the daily burn series they mount (docs/metrics.md, "Fee burn").
 */
import { Type, type TProperties } from 'typebox';
import { CHAIN_INFO } from '../../../chain/chains.ts';
import { formatUnits } from '../../amounts.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Amount, Day, WindowQuery } from '../../schemas/common.ts';
import { chainDayRows, noBlocks, type ChainDay } from '../chain-days.ts';
import { dailySeries } from '../route.ts';

export const BurnDayFields = {
  day: Day,
  fee_burned_planck: { ...Amount, description: 'Base fee × gas used of the day’s blocks, planck.' },
  fee_burned_pos: Type.String({ description: 'The same in coins, as an exact decimal string.', examples: ['0.000441'] }),
  block_count: Type.Integer(),
  avg_base_fee_planck: { ...Amount, description: 'Mean base fee per gas of the day’s blocks, planck, rounded down; 0 without blocks.' },
};

/** Planck as coins, exactly. */
export const planckToCoins = (planck: string | bigint): string => formatUnits(String(planck), CHAIN_INFO.pos.decimals);

export function burnDay(d: ChainDay) {
  return {
    day: d.day,
    fee_burned_planck: d.burned,
    fee_burned_pos: planckToCoins(d.burned),
    block_count: d.block_count,
    avg_base_fee_planck: d.block_count > 0 ? (BigInt(d.base_fee_sum) / BigInt(d.block_count)).toString() : '0',
  };
}

/** A daily series of the pos burn: no chain parameter, one item per day of the pos chain, `withGas` adding the day's gas. */
export function burnSeries<E extends TProperties>(
  app: RouteApp,
  ctx: ApiContext,
  series: { path: string; operationId: string; summary: string; envelope: E; withGas: boolean },
): void {
  const gas = { gas_used_total: { ...Amount, description: 'Gas used by the day’s blocks, as a decimal string.' } };
  dailySeries(app, ctx, {
    path: series.path,
    operationId: series.operationId,
    summary: series.summary,
    window: '30d',
    query: Type.Object({ window: WindowQuery('30d', 'Window: whole UTC days ending with the latest block’s day') }),
    item: Type.Object(series.withGas ? { ...BurnDayFields, ...gas } : BurnDayFields),
    itemsDescription: series.withGas ? 'One item per UTC day, oldest first, to the latest block’s day.' : 'One item per UTC day of the pos chain, oldest first, to the latest block’s day.',
    envelope: series.envelope,
    read: (range) => chainDayRows(ctx.store, 'pos', range),
    missingDay: { zero: noBlocks },
    items: (rows) => rows.map((d) => (series.withGas ? { ...burnDay(d), gas_used_total: d.gas_used } : burnDay(d))),
  });
}
