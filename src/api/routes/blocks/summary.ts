/** A stored block as the block routes answer it (schemas/block.ts). */
import type { ChainId } from '../../../chain/chains.ts';
import { formatTimestamp } from '../../../time.ts';
import type { AnswerAmount } from '../../amounts.ts';
import type { BlockSummaryType } from '../../schemas/block.ts';
import type { BlockSummaryRow } from './list.read.ts';

/** The summary of `row`; the pos-only fields are null on pow. Amounts are logged under the producer and the block's hash. */
export function blockSummary(row: BlockSummaryRow, chain: ChainId, amount: AnswerAmount): BlockSummaryType {
  const pos = chain === 'pos';
  const where = { block_hash: row.hash };
  const producer = row.miner ?? '';
  return {
    height: row.height,
    hash: row.hash,
    timestamp: formatTimestamp(row.ts),
    tx_count: row.tx_count,
    producer: row.miner,
    size: row.size,
    reward: amount(row.reward, producer, 'reward', where),
    fees: amount(row.fees, producer, 'fees', where),
    gas_used: pos ? row.gas_used : null,
    gas_limit: pos ? row.gas_limit : null,
    base_fee_per_gas: pos ? amount(row.base_fee_per_gas, producer, 'base_fee_per_gas', where) : null,
    burned: pos ? amount(row.burned, producer, 'burned', where) : null,
  };
}
