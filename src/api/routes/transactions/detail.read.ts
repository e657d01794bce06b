/**
 * The reads of GET /{chain}/transactions/{hash}: the transaction with everything its page shows, in
 * one statement of key lookups (its hash, then its position in each table beside it), and where a
 * reorg left a hash that is no longer stored.
 */
import sql, { raw } from 'sql-template-tag';
import type { ChainId } from '../../../chain/chains.ts';
import type { Db } from '../../../store/store.ts';
import { TX_COLUMNS, type ChainTxRow } from './list.read.ts';

export interface RecipientEntry {
  recipient_index: number;
  to_addr: string;
  amount: string;
}

export interface TokenTransferEntry {
  log_index: number;
  contract: string;
  from_addr: string;
  to_addr: string;
  amount: string;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
}

export interface InternalEntry {
  trace_address: string;
  call_type: string;
  from_addr: string;
  to_addr: string;
  value: string;
}

export interface SlaveEntry {
  slave_address: string;
  access_type: number;
}

export interface TokenEntry {
  address: string;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  creator: string | null;
  /** pow: the sum of the initial balances (a QRL token's whole supply); null on pos. */
  total_supply: string | null;
}

export interface LegEntry {
  chain: string;
  role: string;
  account_id: string;
  tx_hash: string;
  height: number;
  ts: number;
  from_addr: string;
  to_addr: string;
  amount: string;
}

export interface LatticeEntry {
  kyber_pk: string;
  dilithium_pk: string;
  ecdsa_pk: string;
}

/** The body of a pow multi-signature transaction, as its rows hold it (fields of the other kinds null). */
export interface MultiSigEntry {
  kind: 'create' | 'spend' | 'vote';
  /** create: the address it made; spend: the address it spends from; vote: that of the spend voted on (null until the spend is stored). */
  multisig_address: string | null;
  threshold: number | null;
  signatories: { address: string; weight: number }[] | null;
  recipients: RecipientEntry[] | null;
  total: string | null;
  expiry_height: number | null;
  spend_tx_hash: string | null;
  unvote: boolean | null;
}

export interface TxPageRow extends ChainTxRow {
  burned: string;
  max_fee_per_gas: string | null;
  max_priority_fee_per_gas: string | null;
  ots_index: number | null;
  tip_height: number;
  recipients: RecipientEntry[];
  token_transfers: TokenTransferEntry[];
  internal_transfers: InternalEntry[];
  slaves: SlaveEntry[];
  token: TokenEntry | null;
  migration: (LegEntry & { counterpart: LegEntry | null }) | null;
  lattice_keys: LatticeEntry | null;
  multi_sig: MultiSigEntry | null;
}

type Stored = Omit<TxPageRow, 'recipients' | 'token_transfers' | 'internal_transfers' | 'slaves' | 'token' | 'migration' | 'lattice_keys' | 'multi_sig'> & {
  recipients: string | null;
  token_transfers: string | null;
  internal_transfers: string | null;
  slaves: string | null;
  token: string | null;
  migration: string | null;
  lattice_keys: string | null;
  multi_sig: string | null;
};

/** A migration leg of alias `a` as JSON (amounts as text: a JSON number would not hold them). */
const leg = (a: 'm' | 'o') =>
  raw(`json_build_object('chain', ${a}.chain, 'role', ${a}.role, 'account_id', ${a}.account_id, 'tx_hash', ${a}.tx_hash,
    'height', ${a}.height, 'ts', ${a}.ts, 'from_addr', ${a}.from_addr, 'to_addr', ${a}.to_addr, 'amount', ${a}.amount::text)`);

/**
 * The body of a pow multi-signature transaction from the table of its kind, by the transaction's
 * position (a create's signatories by the address it made, a vote's spend by its hash).
 */
const MULTI_SIG = raw(`CASE t.tx_type
  WHEN 'multi_sig_create' THEN (
    SELECT json_build_object('kind', 'create', 'multisig_address', a.address, 'threshold', a.threshold,
             'signatories', coalesce((SELECT json_agg(json_build_object('address', s.signatory, 'weight', s.weight) ORDER BY s.position)
                                      FROM multisig_signatories s WHERE s.chain = a.chain AND s.address = a.address), '[]'::json))
    FROM multisig_addresses a WHERE a.chain = t.chain AND a.height = t.height AND a.tx_index = t.tx_index)
  WHEN 'multi_sig_spend' THEN (
    SELECT json_build_object('kind', 'spend', 'multisig_address', p.multisig_address, 'total', p.total::text, 'expiry_height', p.expiry_height,
             'recipients', coalesce((SELECT json_agg(json_build_object('recipient_index', r.recipient_index, 'to_addr', r.to_addr, 'amount', r.amount::text)
                                                     ORDER BY r.recipient_index)
                                     FROM multisig_spend_recipients r WHERE r.chain = p.chain AND r.height = p.height AND r.tx_index = p.tx_index), '[]'::json))
    FROM multisig_spends p WHERE p.chain = t.chain AND p.height = t.height AND p.tx_index = t.tx_index)
  WHEN 'multi_sig_vote' THEN (
    SELECT json_build_object('kind', 'vote', 'spend_tx_hash', v.shared_key, 'unvote', v.unvote,
             'multisig_address', (SELECT p.multisig_address FROM multisig_spends p WHERE p.chain = v.chain AND p.tx_hash = v.shared_key LIMIT 1))
    FROM multisig_votes v WHERE v.chain = t.chain AND v.height = t.height AND v.tx_index = t.tx_index)
END`);

/**
 * The stored transaction `hash` of `chain`, or null. The lists beside it are read by its position
 * (each table's primary key, or slaves_height), whole: their length is bounded by the chain's rules
 * (docs/bounds.md). Amounts travel as text inside the JSON.
 */
export async function readTransactionPage(db: Db, chain: ChainId, hash: string): Promise<TxPageRow | null> {
  const [row] = await db.query<Stored>(
    'transactions.detail',
    sql`SELECT ${TX_COLUMNS}, t.burned, t.max_fee_per_gas, t.max_priority_fee_per_gas, t.ots_index,
          (SELECT tip.height FROM blocks tip WHERE tip.chain = t.chain ORDER BY tip.height DESC LIMIT 1) AS tip_height,
          (SELECT json_agg(json_build_object('recipient_index', r.recipient_index, 'to_addr', r.to_addr, 'amount', r.amount::text)
                           ORDER BY r.recipient_index)::text
             FROM tx_recipients r WHERE r.chain = t.chain AND r.height = t.height AND r.tx_index = t.tx_index) AS recipients,
          (SELECT json_agg(json_build_object('log_index', x.log_index, 'contract', x.contract, 'from_addr', x.from_addr, 'to_addr', x.to_addr,
                                             'amount', x.amount::text, 'name', c.name, 'symbol', c.symbol, 'decimals', c.decimals)
                           ORDER BY x.log_index)::text
             FROM token_transfers x LEFT JOIN token_contracts c ON c.chain = x.chain AND c.address = x.contract
             WHERE x.chain = t.chain AND x.height = t.height AND x.tx_index = t.tx_index) AS token_transfers,
          (SELECT json_agg(json_build_object('trace_address', i.trace_address, 'call_type', i.call_type, 'from_addr', i.from_addr,
                                             'to_addr', i.to_addr, 'value', i.value::text)
                           ORDER BY string_to_array(i.trace_address, '.')::int[])::text
             FROM internal_txs i WHERE i.chain = t.chain AND i.height = t.height AND i.tx_index = t.tx_index) AS internal_transfers,
          (SELECT json_agg(json_build_object('slave_address', s.slave_address, 'access_type', s.access_type) ORDER BY s.slave_address)::text
             FROM slaves s WHERE s.chain = t.chain AND s.height = t.height AND s.tx_index = t.tx_index) AS slaves,
          -- The token the transaction created: a pow token is named by its creating transaction's
          -- hash, a pos token by the contract the transaction deployed.
          (SELECT json_build_object('address', c.address, 'name', c.name, 'symbol', c.symbol, 'decimals', c.decimals, 'creator', c.creator,
                                    'total_supply', CASE WHEN t.chain = 'pow' THEN (
                                      SELECT coalesce(sum(x.amount), 0)::text FROM token_transfers x
                                      WHERE x.chain = t.chain AND x.height = t.height AND x.tx_index = t.tx_index) END)::text
             FROM token_contracts c
             WHERE c.chain = t.chain AND c.address = CASE WHEN t.tx_type = 'token' THEN t.tx_hash ELSE t.contract_address END) AS token,
          (SELECT json_build_object('leg', ${leg('m')}, 'counterpart', (
                    SELECT ${leg('o')} FROM migration_legs o
                    WHERE o.account_id = m.account_id AND o.chain <> m.chain ORDER BY o.height, o.tx_index LIMIT 1))::text
             FROM migration_legs m WHERE m.chain = t.chain AND m.height = t.height AND m.tx_index = t.tx_index) AS migration,
          (SELECT json_build_object('kyber_pk', k.kyber_pk, 'dilithium_pk', k.dilithium_pk, 'ecdsa_pk', k.ecdsa_pk)::text
             FROM lattice_keys k WHERE k.chain = t.chain AND k.height = t.height AND k.tx_index = t.tx_index) AS lattice_keys,
          (${MULTI_SIG})::text AS multi_sig
        FROM transactions t
        WHERE t.chain = ${chain} AND t.tx_hash = ${hash}`,
    { reusePlan: true }, // key lookups only
  );
  if (!row) return null;
  const list = <T>(text: string | null): T[] => (text === null ? [] : (JSON.parse(text) as T[]));
  const migration = row.migration === null ? null : (JSON.parse(row.migration) as { leg: LegEntry; counterpart: LegEntry | null });
  return {
    ...row,
    recipients: list<RecipientEntry>(row.recipients),
    token_transfers: list<TokenTransferEntry>(row.token_transfers),
    internal_transfers: list<InternalEntry>(row.internal_transfers),
    slaves: list<SlaveEntry>(row.slaves),
    token: row.token === null ? null : (JSON.parse(row.token) as TokenEntry),
    migration: migration && { ...migration.leg, counterpart: migration.counterpart },
    lattice_keys: row.lattice_keys === null ? null : (JSON.parse(row.lattice_keys) as LatticeEntry),
    multi_sig: row.multi_sig === null ? null : { ...NO_MULTI_SIG_FIELDS, ...(JSON.parse(row.multi_sig) as Partial<MultiSigEntry> & Pick<MultiSigEntry, 'kind'>) },
  };
}

/** A multi-signature body's fields that its kind does not have. */
const NO_MULTI_SIG_FIELDS = { multisig_address: null, threshold: null, signatories: null, recipients: null, total: null, expiry_height: null, spend_tx_hash: null, unvote: null };

export interface OrphanRow {
  height: number;
  block_hash: string;
  reorg_height: number;
  removed_ts: number;
}

/** Where a reorg removed `hash` from, if one did and it has not come back. */
export async function readOrphan(db: Db, chain: ChainId, hash: string): Promise<OrphanRow | null> {
  const [row] = await db.query<OrphanRow>(
    'transactions.orphan',
    sql`SELECT height, block_hash, reorg_height, removed_ts FROM orphaned_txs WHERE chain = ${chain} AND tx_hash = ${hash}`,
    { reusePlan: true },
  );
  return row ?? null;
}
