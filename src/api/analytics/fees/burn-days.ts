/** The pos fee burn of a day (EIP-1559: base fee × gas used, summed exactly per block), as the burn endpoints answer it. */
import { Type } from 'typebox';
import { CHAIN_INFO } from '../../../chain/chains.ts';
import { formatUnits } from '../../amounts.ts';
import { Amount, Day } from '../../schemas/common.ts';
import type { ChainDay } from '../chain-days.ts';

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
