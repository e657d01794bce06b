/**
 * A transaction as the spec's TransactionDetail row, computed from the canonical block that holds it
 * (never from the store): the block routes' rows and the chain's transaction list both answer it.
 */
import type { ChainId } from '../../src/chain/chains.ts';
import type { CanonicalBlock, CanonicalTx } from '../../src/chain/model.ts';

export const isoSeconds = (ts: number) => new Date(ts * 1000).toISOString().slice(0, 19);
const text = (v: bigint | null) => (v === null ? null : v.toString());

/** The row of `tx` for one of its recipients (`line`): the recipient list's entry, or the transaction's own recipient. */
export function expectedTransactionRow(chain: ChainId, network: string, block: CanonicalBlock, tx: CanonicalTx, line: { to: string | null; value: bigint; index: number | null }) {
  return {
    chain,
    network,
    tx_hash: tx.hash,
    height: block.height,
    timestamp: isoSeconds(block.timestamp),
    from_addr: tx.from,
    to_addr: line.to,
    block_hash: block.hash,
    tx_index: tx.index,
    recipient_index: line.index,
    value: line.value.toString(),
    fee: tx.fee.toString(),
    nonce: tx.nonce,
    tx_type: tx.type,
    tx_type_evm: tx.typeEvm,
    gas: tx.gas,
    gas_used: tx.gasUsed,
    gas_price: text(tx.gasPrice),
    effective_gas_price: text(tx.effectiveGasPrice),
    contract_address: tx.contractAddress,
    status: tx.status,
    master_addr: tx.masterAddr,
    signer_addr: tx.signer,
    input_data: tx.input,
  };
}
