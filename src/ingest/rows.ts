/**
 * Canonical blocks to rows of the raw tables, column lists and all. The only place that knows how
 * the model maps onto the schema; the writer COPYs what this produces.
 */
import type { CanonicalBlock, CanonicalTx } from '../chain/model.ts';
import type { CopyValue } from '../store/copy.ts';

type Row = CopyValue[];

export const RAW_COLUMNS = {
  blocks: ['chain', 'height', 'hash', 'parent_hash', 'ts', 'size', 'tx_count', 'miner', 'reward', 'fees', 'gas_used', 'gas_limit', 'base_fee_per_gas', 'burned', 'priority_fees', 'withdrawals_total'],
  transactions: [
    'chain', 'height', 'tx_index', 'tx_hash', 'ts', 'tx_type', 'tx_type_evm', 'from_addr', 'to_addr', 'value', 'fee', 'recipient_count',
    'nonce', 'gas', 'gas_used', 'gas_price', 'effective_gas_price', 'max_fee_per_gas', 'max_priority_fee_per_gas', 'burned',
    'contract_address', 'status', 'master_addr', 'signer_addr', 'ots_index', 'input_data', 'mints',
  ],
  tx_recipients: ['chain', 'height', 'tx_index', 'recipient_index', 'to_addr', 'amount'],
  internal_txs: ['chain', 'height', 'tx_index', 'trace_address', 'tx_hash', 'ts', 'call_type', 'from_addr', 'to_addr', 'value'],
  contract_creations: ['chain', 'height', 'tx_index', 'trace_address', 'creator', 'address'],
  token_transfers: ['chain', 'height', 'tx_index', 'log_index', 'tx_hash', 'ts', 'contract', 'from_addr', 'to_addr', 'amount'],
  token_contracts: ['chain', 'address', 'name', 'symbol', 'decimals', 'creator', 'created_height', 'created_tx'],
  slaves: ['chain', 'slave_address', 'master_address', 'access_type', 'height', 'tx_index', 'ts'],
  withdrawals: ['chain', 'height', 'position', 'withdrawal_index', 'validator_index', 'address', 'amount', 'ts'],
  genesis_allocations: ['chain', 'address', 'amount'],
  opening_balances: ['chain', 'address', 'height', 'amount'],
  migration_legs: ['chain', 'height', 'tx_index', 'account_id', 'role', 'tx_hash', 'ts', 'from_addr', 'to_addr', 'amount'],
  multisig_addresses: ['chain', 'address', 'height', 'tx_index', 'tx_hash', 'ts', 'creator', 'threshold'],
  multisig_signatories: ['chain', 'address', 'position', 'signatory', 'weight', 'height'],
  multisig_spends: ['chain', 'height', 'tx_index', 'tx_hash', 'ts', 'multisig_address', 'proposer', 'expiry_height', 'total'],
  multisig_spend_recipients: ['chain', 'height', 'tx_index', 'recipient_index', 'to_addr', 'amount'],
  multisig_votes: ['chain', 'height', 'tx_index', 'tx_hash', 'ts', 'voter', 'shared_key', 'unvote'],
  lattice_keys: ['chain', 'height', 'tx_index', 'address', 'kyber_pk', 'dilithium_pk', 'ecdsa_pk'],
} as const;

export type RawTable = keyof typeof RAW_COLUMNS;

/** Tables whose rows belong to a height (deleted from above a reorg's common ancestor). */
export const HEIGHT_TABLES = [
  'blocks', 'transactions', 'tx_recipients', 'internal_txs', 'contract_creations', 'token_transfers', 'slaves', 'withdrawals', 'migration_legs', 'opening_balances',
  'multisig_addresses', 'multisig_signatories', 'multisig_spends', 'multisig_spend_recipients', 'multisig_votes', 'lattice_keys',
] as const;

export type RawRows = Record<RawTable, Row[]>;

export function emptyRows(): RawRows {
  return Object.fromEntries(Object.keys(RAW_COLUMNS).map((table) => [table, []])) as unknown as RawRows;
}

export function rowCount(rows: RawRows): number {
  let n = 0;
  for (const table of Object.keys(rows) as RawTable[]) n += rows[table].length;
  return n;
}

/** The rows of a multisig transaction's body (the transaction's own row is written as any other). */
function addMultiSigRows(rows: RawRows, chain: CanonicalBlock['chain'], height: number, ts: number, tx: CanonicalTx): void {
  const body = tx.multiSig!;
  switch (body.kind) {
    case 'create':
      rows.multisig_addresses.push([chain, body.address, height, tx.index, tx.hash, ts, tx.from, body.threshold]);
      body.signatories.forEach((s, i) => rows.multisig_signatories.push([chain, body.address, i, s.address, s.weight, height]));
      break;
    case 'spend': {
      const total = body.recipients.reduce((sum, r) => sum + r.amount, 0n);
      rows.multisig_spends.push([chain, height, tx.index, tx.hash, ts, body.multiSigAddress, tx.from, body.expiryHeight, total]);
      body.recipients.forEach((r, i) => rows.multisig_spend_recipients.push([chain, height, tx.index, i, r.to, r.amount]));
      break;
    }
    case 'vote':
      rows.multisig_votes.push([chain, height, tx.index, tx.hash, ts, tx.from, body.sharedKey, body.unvote]);
      break;
  }
}

/** Appends the rows of `block` to `rows`. */
export function addBlockRows(rows: RawRows, block: CanonicalBlock): void {
  const { chain, height, timestamp: ts } = block;
  let fees = 0n;
  let priorityFees = 0n;
  let burned = 0n;
  for (const tx of block.transactions) {
    fees += tx.fee;
    burned += tx.burned;
    priorityFees += tx.fee - tx.burned;
    const mints = tx.type === 'coinbase' || tx.migration?.role === 'mint';
    rows.transactions.push([
      chain, height, tx.index, tx.hash, ts, tx.type, tx.typeEvm, tx.from, tx.to, tx.value, tx.fee, tx.recipients?.length ?? 1,
      tx.nonce, tx.gas, tx.gasUsed, tx.gasPrice, tx.effectiveGasPrice, tx.maxFeePerGas, tx.maxPriorityFeePerGas, tx.burned,
      tx.contractAddress, tx.status, tx.masterAddr, tx.signer, tx.otsIndex, tx.input, mints,
    ]);
    if (tx.recipients) {
      tx.recipients.forEach((recipient, i) => rows.tx_recipients.push([chain, height, tx.index, i, recipient.to, recipient.amount]));
    }
    for (const frame of tx.internal) {
      rows.internal_txs.push([chain, height, tx.index, frame.traceAddress, tx.hash, ts, frame.callType, frame.from, frame.to, frame.value]);
    }
    for (const c of tx.creations) rows.contract_creations.push([chain, height, tx.index, c.traceAddress, c.creator, c.address]);
    for (const transfer of tx.tokenTransfers) {
      rows.token_transfers.push([chain, height, tx.index, transfer.logIndex, tx.hash, ts, transfer.contract, transfer.from, transfer.to, transfer.amount]);
    }
    for (const slave of tx.slaves) {
      rows.slaves.push([chain, slave.slave, tx.from, slave.accessType, height, tx.index, ts]);
    }
    if (tx.multiSig) addMultiSigRows(rows, chain, height, ts, tx);
    if (tx.lattice) rows.lattice_keys.push([chain, height, tx.index, tx.from, tx.lattice.kyberPk, tx.lattice.dilithiumPk, tx.lattice.ecdsaPk]);
    if (tx.migration) {
      const to = tx.to ?? tx.recipients?.[0]?.to ?? '';
      rows.migration_legs.push([chain, height, tx.index, tx.migration.accountId, tx.migration.role, tx.hash, ts, tx.from, to, tx.value]);
    }
  }
  let withdrawalsTotal = 0n;
  block.withdrawals.forEach((w, position) => {
    withdrawalsTotal += w.amount;
    rows.withdrawals.push([chain, height, position, w.index, w.validatorIndex, w.address, w.amount, ts]);
  });
  for (const allocation of block.allocations) rows.genesis_allocations.push([chain, allocation.address, allocation.amount]);
  for (const opening of block.openings ?? []) rows.opening_balances.push([chain, opening.address, height, opening.amount]);
  for (const token of block.tokens) {
    rows.token_contracts.push([chain, token.contract, token.name, token.symbol, token.decimals, token.creator, height, token.createdTx]);
  }
  // On pow the miner is paid through the coinbase transaction; only pos pays tips at block level.
  const tips = chain === 'pos' ? priorityFees : 0n;
  rows.blocks.push([
    chain, height, block.hash, block.parentHash, ts, block.size, block.transactions.length, block.miner, block.reward, fees,
    block.gasUsed, block.gasLimit, block.baseFeePerGas, burned, tips, withdrawalsTotal,
  ]);
}
