/**
 * Everything the detail and insights of one address are computed from, read in one statement:
 * its address_summary row (absent for an address never seen), its primary label, its curated
 * exchange wallet entry, whether it received value in the genesis block, and the chain's latest block
 * time (the "now" of every relative figure).
 */
import sql from 'sql-template-tag';
import type { ChainId } from '../../../../chain/chains.ts';
import type { ApiContext } from '../../../context.ts';
import type { AddressFacts } from '../../../../domain/address-facts.ts';
import { tipTimeSql } from '../../../../rollups/shared/tip.ts';

interface FactsRow {
  present: boolean;
  balance: string | null;
  total_received: string | null;
  total_sent: string | null;
  total_fees_paid: string | null;
  tx_count: number | null;
  tx_received_count: number | null;
  tx_sent_count: number | null;
  first_seen: number | null;
  last_seen: number | null;
  appeared: number | null;
  funded_by: string | null;
  withdrawal_count: number | null;
  withdrawal_total: string | null;
  internal_tx_count: number | null;
  deployed_count: number | null;
  is_contract: boolean | null;
  master_address: string | null;
  slave_count: number | null;
  ots_used: number | null;
  ots_max_index: number | null;
  label: string | null;
  label_category: string | null;
  exchange: string | null;
  exchange_role: 'hot' | 'cold' | 'deposit_relay' | null;
  exchange_confirmed: boolean | null;
  genesis: boolean;
  tip_ts: number | null;
}

export async function loadAddressFacts(ctx: ApiContext, chain: ChainId, address: string): Promise<AddressFacts> {
  const [row] = await ctx.store.query<FactsRow>(
    'addresses.profile.facts',
    sql`SELECT s.address IS NOT NULL AS present, s.balance, s.total_received, s.total_sent, s.total_fees_paid,
               s.tx_count, s.tx_received_count, s.tx_sent_count, s.first_seen, s.last_seen, s.appeared, s.funded_by,
               s.withdrawal_count, s.withdrawal_total, s.internal_tx_count, s.deployed_count, s.is_contract,
               s.master_address, s.slave_count, s.ots_used, s.ots_max_index,
               l.label, l.category AS label_category,
               e.exchange, e.role AS exchange_role, e.confirmed AS exchange_confirmed,
               -- Value received in the genesis block: an allocation, or a genesis transaction's
               -- coinbase or transfer (the real pow genesis pays its premine that way).
               (EXISTS (SELECT 1 FROM genesis_allocations g WHERE g.chain = ${chain} AND g.address = ${address})
                OR EXISTS (SELECT 1 FROM transactions t WHERE t.chain = ${chain} AND t.height = 0 AND t.to_addr = ${address} AND t.value > 0)
                OR EXISTS (SELECT 1 FROM tx_recipients r WHERE r.chain = ${chain} AND r.height = 0 AND r.to_addr = ${address} AND r.amount > 0)) AS genesis,
               ${tipTimeSql(chain)} AS tip_ts
        FROM (SELECT 1) AS one
        LEFT JOIN address_summary s ON s.chain = ${chain} AND s.address = ${address}
        LEFT JOIN labels l ON l.chain = ${chain} AND l.address = ${address} AND l.is_primary
        LEFT JOIN exchange_wallets e ON e.chain = ${chain} AND e.address = ${address}`,
    { reusePlan: true }, // key lookups
  );
  const r = row!;
  return {
    chain,
    address,
    exists: r.present,
    balance: BigInt(r.balance ?? 0),
    // NULL in a present row: indexed from above genesis on a node without history (docs/indexing-pow.md).
    balanceKnown: !r.present || r.balance !== null,
    totalReceived: BigInt(r.total_received ?? 0),
    totalSent: BigInt(r.total_sent ?? 0),
    totalFeesPaid: BigInt(r.total_fees_paid ?? 0),
    txCount: r.tx_count ?? 0,
    txReceivedCount: r.tx_received_count ?? 0,
    txSentCount: r.tx_sent_count ?? 0,
    firstSeen: r.first_seen,
    lastSeen: r.last_seen,
    appeared: r.appeared,
    fundedBy: r.funded_by,
    withdrawalCount: r.withdrawal_count ?? 0,
    withdrawalTotal: BigInt(r.withdrawal_total ?? 0),
    internalTxCount: r.internal_tx_count ?? 0,
    deployedCount: r.deployed_count ?? 0,
    isContract: r.is_contract ?? false,
    masterAddress: r.master_address,
    slaveCount: r.slave_count ?? 0,
    otsUsed: r.ots_used ?? 0,
    otsMaxIndex: r.ots_max_index,
    label: r.label,
    labelCategory: r.label_category,
    exchange: r.exchange && r.exchange_role ? { name: r.exchange, role: r.exchange_role, confirmed: r.exchange_confirmed ?? false } : null,
    genesisHolder: r.genesis,
    tipTs: r.tip_ts,
  };
}
