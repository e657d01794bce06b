/**
 * The block routes' answers computed from canonical blocks (the generator's or the chain
 * builder's), never from the store: what a block summary, a block page, a block's transaction rows
 * and its withdrawals must say.
 */
import type { ChainId } from '../../../src/chain/chains.ts';
import type { CanonicalBlock } from '../../../src/chain/model.ts';
import { expectedTransactionRow, isoSeconds as iso } from '../../support/expected-transaction.ts';

const text = (v: bigint | null) => (v === null ? null : v.toString());
const sum = (values: bigint[]) => values.reduce((a, b) => a + b, 0n);

export function expectedSummary(chain: ChainId, b: CanonicalBlock) {
  const pos = chain === 'pos';
  return {
    height: b.height,
    hash: b.hash,
    timestamp: iso(b.timestamp),
    tx_count: b.transactions.length,
    producer: b.miner,
    size: b.size,
    reward: b.reward.toString(),
    fees: sum(b.transactions.map((t) => t.fee)).toString(),
    gas_used: pos ? b.gasUsed : null,
    gas_limit: pos ? b.gasLimit : null,
    base_fee_per_gas: pos ? text(b.baseFeePerGas) : null,
    burned: pos ? sum(b.transactions.map((t) => t.burned)).toString() : null,
  };
}

/** `proposer`: the validator the beacon node names for the block's slot; null without one (no beacon node, pow). */
export function expectedDetail(chain: ChainId, network: string, b: CanonicalBlock, tipHeight: number, finalized: boolean | null, proposer: number | null = null) {
  const pos = chain === 'pos';
  return {
    chain,
    network,
    ...expectedSummary(chain, b),
    parent_hash: b.parentHash,
    priority_fees: pos ? sum(b.transactions.map((t) => t.fee - t.burned)).toString() : null,
    withdrawals_count: pos ? b.withdrawals.length : null,
    withdrawals_total: pos ? sum(b.withdrawals.map((w) => w.amount)).toString() : null,
    confirmations: tipHeight - b.height,
    finalized,
    proposer_index: proposer,
  };
}

/** The block's transactions as TransactionDetail rows: one per recipient of a recipient list, else one. */
export function expectedBlockRows(chain: ChainId, network: string, b: CanonicalBlock) {
  return b.transactions.flatMap((tx) => {
    const lines = tx.recipients && tx.recipients.length > 0
      ? tx.recipients.map((r, i) => ({ to: r.to as string | null, value: r.amount, index: i as number | null }))
      : [{ to: tx.to, value: tx.value, index: null }];
    return lines.map((line) => expectedTransactionRow(chain, network, b, tx, line));
  });
}

export function expectedWithdrawals(b: CanonicalBlock) {
  return b.withdrawals.map((w) => ({ index: w.index, validator_index: w.validatorIndex, address: w.address, amount: w.amount.toString() }));
}
