/**
 * Raw rows back to canonical blocks: the inverse of rows.ts. A reorg reads the blocks it reverts
 * this way, so their rollup deltas are computed by the same code that applied them.
 */
import sql from 'sql-template-tag';
import type { ChainId } from '../chain/chains.ts';
import { emptyBlock, emptyTx, type CanonicalBlock, type CanonicalTx, type TxType } from '../chain/model.ts';
import type { Db } from '../store/store.ts';

const big = (value: string): bigint => BigInt(value);
const bigOrNull = (value: string | null): bigint | null => (value == null ? null : BigInt(value));

// Row shapes as the store returns them: int8 as number, NUMERIC as string.
interface DbBlock {
  height: number; hash: string; parent_hash: string; ts: number; size: number; miner: string | null; reward: string;
  gas_used: number | null; gas_limit: number | null; base_fee_per_gas: string | null;
}
interface DbTransaction {
  height: number; tx_index: number; tx_hash: string; tx_type: string; tx_type_evm: number | null; from_addr: string; to_addr: string | null;
  value: string; fee: string; nonce: number | null; gas: number | null; gas_used: number | null; gas_price: string | null;
  effective_gas_price: string | null; max_fee_per_gas: string | null; max_priority_fee_per_gas: string | null; burned: string;
  status: 0 | 1 | null; contract_address: string | null; master_addr: string | null; signer_addr: string | null;
  ots_index: number | null; input_data: string | null;
}
interface DbRecipient { height: number; tx_index: number; to_addr: string; amount: string }
interface DbInternal { height: number; tx_index: number; trace_address: string; call_type: string; from_addr: string; to_addr: string; value: string }
interface DbCreation { height: number; tx_index: number; trace_address: string; creator: string; address: string }
interface DbTokenTransfer { height: number; tx_index: number; log_index: number; contract: string; from_addr: string; to_addr: string; amount: string }
interface DbSlave { height: number; tx_index: number; slave_address: string; access_type: number }
interface DbWithdrawal { height: number; withdrawal_index: number; validator_index: number; address: string; amount: string }
interface DbMigrationLeg { height: number; tx_index: number; account_id: string; role: 'burn' | 'mint' }

export async function loadBlocks(db: Db, chain: ChainId, fromHeight: number, toHeight: number): Promise<CanonicalBlock[]> {
  const range = sql`chain = ${chain} AND height BETWEEN ${fromHeight} AND ${toHeight}`;
  // One statement after another: `db` may be a transaction's single connection, which runs one at a time.
  const blockRows = await db.query<DbBlock>('ingest.load.blocks', sql`SELECT * FROM blocks WHERE ${range} ORDER BY height`);
  const txRows = await db.query<DbTransaction>('ingest.load.transactions', sql`SELECT * FROM transactions WHERE ${range} ORDER BY height, tx_index`);
  const recipientRows = await db.query<DbRecipient>('ingest.load.recipients', sql`SELECT * FROM tx_recipients WHERE ${range} ORDER BY height, tx_index, recipient_index`);
  const internalRows = await db.query<DbInternal>('ingest.load.internal', sql`SELECT * FROM internal_txs WHERE ${range} ORDER BY height, tx_index, trace_address`);
  const creationRows = await db.query<DbCreation>('ingest.load.creations', sql`SELECT * FROM contract_creations WHERE ${range} ORDER BY height, tx_index, trace_address`);
  const tokenRows = await db.query<DbTokenTransfer>('ingest.load.tokens', sql`SELECT * FROM token_transfers WHERE ${range} ORDER BY height, tx_index, log_index`);
  const slaveRows = await db.query<DbSlave>('ingest.load.slaves', sql`SELECT * FROM slaves WHERE ${range} ORDER BY height, tx_index`);
  const withdrawalRows = await db.query<DbWithdrawal>('ingest.load.withdrawals', sql`SELECT * FROM withdrawals WHERE ${range} ORDER BY height, position`);
  const migrationRows = await db.query<DbMigrationLeg>('ingest.load.migrations', sql`SELECT * FROM migration_legs WHERE ${range}`);
  const openingRows = await db.query<{ height: number; address: string; amount: string | null }>(
    'ingest.load.openings',
    sql`SELECT height, address, amount FROM opening_balances WHERE ${range} ORDER BY height, address`,
  );
  const allocations = fromHeight === 0
    ? await db.query<{ address: string; amount: string }>('ingest.load.genesis', sql`SELECT address, amount FROM genesis_allocations WHERE chain = ${chain} ORDER BY address`)
    : [];

  const txKey = (height: number, index: number) => `${height}:${index}`;
  const txs = new Map<string, CanonicalTx>();
  const blocks = new Map<number, CanonicalBlock>();
  for (const b of blockRows) {
    blocks.set(
      b.height,
      emptyBlock({
        chain,
        height: b.height,
        hash: b.hash,
        parentHash: b.parent_hash,
        timestamp: b.ts,
        size: b.size,
        miner: b.miner,
        reward: big(b.reward),
        gasUsed: b.gas_used,
        gasLimit: b.gas_limit,
        baseFeePerGas: bigOrNull(b.base_fee_per_gas),
        allocations: b.height === 0 ? allocations.map((a) => ({ address: a.address, amount: big(a.amount) })) : [],
      }),
    );
  }
  for (const t of txRows) {
    const tx = emptyTx({
      hash: t.tx_hash,
      index: t.tx_index,
      type: t.tx_type as TxType,
      from: t.from_addr,
      typeEvm: t.tx_type_evm,
      to: t.to_addr,
      value: big(t.value),
      fee: big(t.fee),
      nonce: t.nonce,
      gas: t.gas,
      gasUsed: t.gas_used,
      gasPrice: bigOrNull(t.gas_price),
      effectiveGasPrice: bigOrNull(t.effective_gas_price),
      maxFeePerGas: bigOrNull(t.max_fee_per_gas),
      maxPriorityFeePerGas: bigOrNull(t.max_priority_fee_per_gas),
      burned: big(t.burned),
      status: t.status,
      contractAddress: t.contract_address,
      masterAddr: t.master_addr,
      signer: t.signer_addr,
      otsIndex: t.ots_index,
      input: t.input_data,
    });
    txs.set(txKey(t.height, t.tx_index), tx);
    blocks.get(t.height)?.transactions.push(tx);
  }
  for (const r of recipientRows) {
    const tx = txs.get(txKey(r.height, r.tx_index))!;
    (tx.recipients ??= []).push({ to: r.to_addr, amount: big(r.amount) });
  }
  for (const i of internalRows) {
    txs.get(txKey(i.height, i.tx_index))!.internal.push({ traceAddress: i.trace_address, callType: i.call_type, from: i.from_addr, to: i.to_addr, value: big(i.value) });
  }
  for (const c of creationRows) {
    txs.get(txKey(c.height, c.tx_index))!.creations.push({ traceAddress: c.trace_address, creator: c.creator, address: c.address });
  }
  for (const t of tokenRows) {
    txs.get(txKey(t.height, t.tx_index))!.tokenTransfers.push({ logIndex: t.log_index, contract: t.contract, from: t.from_addr, to: t.to_addr, amount: big(t.amount) });
  }
  for (const s of slaveRows) txs.get(txKey(s.height, s.tx_index))!.slaves.push({ slave: s.slave_address, accessType: s.access_type });
  for (const m of migrationRows) txs.get(txKey(m.height, m.tx_index))!.migration = { accountId: m.account_id, role: m.role };
  for (const w of withdrawalRows) {
    blocks.get(w.height)!.withdrawals.push({ index: w.withdrawal_index, validatorIndex: w.validator_index, address: w.address, amount: big(w.amount) });
  }
  for (const o of openingRows) (blocks.get(o.height)?.openings ?? []).push({ address: o.address, amount: bigOrNull(o.amount) });
  return [...blocks.values()];
}
