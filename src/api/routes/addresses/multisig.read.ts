/**
 * The reads of the multisig routes: a multi-signature address as its create made it, and its whole
 * history (what it received, its spends, the votes on them), which multisig-state.ts replays by
 * QRL's rules. Each read is one address's index ranges (migration 0096, tx_recipients_to).
 */
import sql from 'sql-template-tag';
import type { Db } from '../../../store/store.ts';

export interface MultiSigRow {
  tx_hash: string;
  height: number;
  tx_index: number;
  ts: number;
  creator: string;
  threshold: number;
  signatories: { address: string; weight: number }[];
  /** The chain's stored tip: spends expire against it. */
  tip: number;
}

/** The address's create and signatories (in the create's order), or null when no stored create made it. */
export async function readMultiSig(db: Db, address: string): Promise<MultiSigRow | null> {
  const [row] = await db.query<MultiSigRow>(
    'addresses.multisig.address',
    sql`SELECT m.tx_hash, m.height, m.tx_index, m.ts, m.creator, m.threshold,
               (SELECT json_agg(json_build_object('address', s.signatory, 'weight', s.weight) ORDER BY s.position)
                FROM multisig_signatories s WHERE s.chain = m.chain AND s.address = m.address) AS signatories,
               (SELECT max(height) FROM blocks WHERE chain = m.chain) AS tip
        FROM multisig_addresses m WHERE m.chain = 'pow' AND m.address = ${address}`,
  );
  return row ? { ...row, threshold: Number(row.threshold), tip: Number(row.tip), signatories: (row.signatories ?? []).map((s) => ({ address: s.address, weight: Number(s.weight) })) } : null;
}

export interface SpendRow {
  tx_hash: string;
  height: number;
  tx_index: number;
  ts: number;
  proposer: string;
  expiry_height: number;
  total: string;
  recipients: { to_addr: string; amount: string }[];
}

export interface VoteRow {
  tx_hash: string;
  height: number;
  tx_index: number;
  ts: number;
  voter: string;
  shared_key: string;
  unvote: boolean;
}

export interface CreditRow {
  height: number;
  tx_index: number;
  amount: string;
}

export interface MultiSigHistory {
  spends: SpendRow[];
  votes: VoteRow[];
  credits: CreditRow[];
}

/** Every spend of the address with its recipients, every vote on them, and every native amount it received, each in chain order. */
export async function readMultiSigHistory(db: Db, address: string): Promise<MultiSigHistory> {
  const spends = await db.query<SpendRow>(
    'addresses.multisig.spends',
    sql`SELECT s.tx_hash, s.height, s.tx_index, s.ts, s.proposer, s.expiry_height, s.total::text AS total,
               (SELECT json_agg(json_build_object('to_addr', r.to_addr, 'amount', r.amount::text) ORDER BY r.recipient_index)
                FROM multisig_spend_recipients r WHERE r.chain = s.chain AND r.height = s.height AND r.tx_index = s.tx_index) AS recipients
        FROM multisig_spends s WHERE s.chain = 'pow' AND s.multisig_address = ${address}
        ORDER BY s.height, s.tx_index`,
  );
  const votes = spends.length === 0
    ? []
    : await db.query<VoteRow>(
        'addresses.multisig.votes',
        sql`SELECT v.tx_hash, v.height, v.tx_index, v.ts, v.voter, v.shared_key, v.unvote
            FROM multisig_votes v WHERE v.chain = 'pow' AND v.shared_key = ANY(${spends.map((s) => s.tx_hash)}::text[])
            ORDER BY v.height, v.tx_index`,
      );
  const credits = await db.query<CreditRow>(
    'addresses.multisig.credits',
    sql`SELECT r.height, r.tx_index, sum(r.amount)::text AS amount
        FROM tx_recipients r JOIN transactions t ON t.chain = r.chain AND t.height = r.height AND t.tx_index = r.tx_index
        WHERE r.chain = 'pow' AND r.to_addr = ${address} AND t.tx_type = 'transfer'
        GROUP BY r.height, r.tx_index ORDER BY r.height, r.tx_index`,
  );
  return { spends: spends.map((s) => ({ ...s, expiry_height: Number(s.expiry_height), recipients: s.recipients ?? [] })), votes, credits };
}
