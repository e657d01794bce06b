/**
 * address_summary: one row per address with its balance, totals, counts, first and last activity,
 * provenance, and the pow/pos specifics (slaves, OTS keys, contracts), merged from delta_summary.
 *
 * Blocks are applied in ascending order, so an existing first/funded value always precedes the
 * delta's and the delta's last value always follows the existing one. Revert subtracts the same
 * figures, then repairs what cannot be subtracted (last activity, first activity that fell inside
 * the reverted range) from the remaining raw rows.
 */
import sql, { empty, type Sql } from 'sql-template-tag';
import type { ChainId } from '../../chain/chains.ts';
import type { Db } from '../../store/store.ts';
import { DAILY_DELTAS } from './address-activity.ts';
import { rowsOf } from '../engine/delta-tables.ts';
import { comparePositions, type DeltaReducer, type Position, type StepScope } from '../engine/reducer.ts';
import type { DeltaTable, Rollup, ScratchTable } from '../engine/rollup.ts';

/** What a step adds to an address's summary. */
export interface SummaryDelta {
  received: bigint;
  sent: bigint;
  debit: bigint;
  fees: bigint;
  feesBurned: bigint;
  gasUsed: number;
  txCount: number;
  txIn: number;
  txOut: number;
  first: { ts: number; height: number; tx: string; txIndex: number } | null;
  last: { ts: number; height: number; tx: string; txIndex: number } | null;
  funded: { by: string | null; tx: string | null; at: number; height: number; pos: Position } | null;
  withdrawalCount: number;
  withdrawalTotal: bigint;
  internalCount: number;
  internalReceived: bigint;
  internalSent: bigint;
  deployedCount: number;
  isContract: boolean;
  masterAddress: string | null;
  slaveCount: number;
  otsUsed: number;
  otsMaxIndex: number | null;
  /** An opening balance the node could not tell: the balance is unknown. */
  openingUnknown: boolean;
}

function emptySummary(): SummaryDelta {
  return {
    received: 0n, sent: 0n, debit: 0n, fees: 0n, feesBurned: 0n, gasUsed: 0, txCount: 0, txIn: 0, txOut: 0,
    first: null, last: null, funded: null, withdrawalCount: 0, withdrawalTotal: 0n, internalCount: 0,
    internalReceived: 0n, internalSent: 0n, deployedCount: 0, isContract: false, masterAddress: null,
    slaveCount: 0, otsUsed: 0, otsMaxIndex: null, openingUnknown: false,
  };
}

/** The step's summaries by address (of the kept addresses only: StepScope.keeps). */
interface Summaries {
  scope: StepScope;
  byAddress: Map<string, SummaryDelta>;
}

function summaryOf(acc: Summaries, address: string): SummaryDelta {
  let s = acc.byAddress.get(address);
  if (!s) {
    s = emptySummary();
    if (acc.scope.keeps(address)) {
      acc.byAddress.set(address, s);
      acc.scope.seen(address);
    }
  }
  return s;
}

/** Per address: what it received, sent, paid and took part in, its first and last activity and what funded it. */
export const summaryReducer: DeltaReducer<Summaries> = {
  start: (scope) => ({ scope, byAddress: new Map() }),
  receipt(acc, { address, amount, ts, pos, from, txHash }) {
    const s = summaryOf(acc, address);
    s.received += amount;
    if (amount > 0n && (!s.funded || comparePositions(pos, s.funded.pos) < 0)) {
      s.funded = { by: from, tx: txHash, at: ts, height: pos[0], pos };
    }
  },
  tx(acc, { tx, height, ts, sent, debit, ok, participants, ins, outs }) {
    const sender = summaryOf(acc, tx.from);
    sender.sent += sent;
    sender.debit += debit;
    sender.fees += tx.fee;
    sender.feesBurned += tx.burned;
    sender.gasUsed += tx.gasUsed ?? 0;
    for (const frame of tx.internal) {
      const from = summaryOf(acc, frame.from);
      from.sent += frame.value;
      from.debit += frame.value;
      from.internalSent += frame.value;
      from.internalCount++;
      const to = summaryOf(acc, frame.to);
      to.internalReceived += frame.value;
      if (frame.to !== frame.from) to.internalCount++;
    }
    if (tx.contractAddress) {
      sender.deployedCount++;
      summaryOf(acc, tx.contractAddress).isContract = true;
    }
    // Contracts a factory created (with or without value); a reverted transaction created none.
    if (ok) {
      for (const creation of tx.creations) {
        summaryOf(acc, creation.creator).deployedCount++;
        summaryOf(acc, creation.address).isContract = true;
      }
    }
    for (const slave of tx.slaves) {
      summaryOf(acc, slave.slave).masterAddress = tx.from;
      sender.slaveCount++;
    }
    if (tx.otsIndex !== null) {
      const signer = summaryOf(acc, tx.signer ?? tx.from);
      signer.otsUsed++;
      signer.otsMaxIndex = Math.max(signer.otsMaxIndex ?? -1, tx.otsIndex);
    }
    const at = { ts, height, tx: tx.hash, txIndex: tx.index };
    for (const address of participants) {
      const s = summaryOf(acc, address);
      s.txCount++;
      if (ins.has(address)) s.txIn++;
      if (outs.includes(address)) s.txOut++;
      if (!s.first || height < s.first.height || (height === s.first.height && tx.index < s.first.txIndex)) s.first = at;
      if (!s.last || height > s.last.height || (height === s.last.height && tx.index > s.last.txIndex)) s.last = at;
    }
  },
  block(acc, { block }) {
    for (const w of block.withdrawals) {
      const s = summaryOf(acc, w.address);
      s.withdrawalCount++;
      s.withdrawalTotal += w.amount;
    }
  },
  opening(acc, opening) {
    const s = summaryOf(acc, opening.address);
    if (opening.amount === null) s.openingUnknown = true;
    else s.received += opening.amount;
  },
  size: (acc) => acc.byAddress.size,
};

/**
 * Holder transitions per day: addresses whose balance went from zero to positive, less those that
 * went to zero, from each address's running balance through the delta's days. `sign` +1 before
 * applying (balances are those below the delta), -1 before reverting (balances include it, so the
 * starting point is the balance less the delta). `daily`: the step's per-address-and-day deltas
 * (address_daily's, through step.rowsOf).
 */
function holderTransitions(chain: ChainId, sign: 1 | -1, daily: Sql): Sql {
  return sql`INSERT INTO chain_daily AS c (chain, day, holders_delta)
        SELECT ${chain}, day,
               (${sign} * (count(*) FILTER (WHERE before <= 0 AND after > 0) - count(*) FILTER (WHERE before > 0 AND after <= 0)))::int
        FROM (
          SELECT day, start + running - net AS before, start + running AS after
          FROM (
            SELECT n.day, n.received - n.sent - n.fees AS net,
                   sum(n.received - n.sent - n.fees) OVER (PARTITION BY n.address ORDER BY n.day) AS running,
                   -- An unknown balance (NULL) is neither a holder nor not one: it counts in no transition.
                   CASE WHEN s.address IS NULL THEN 0 ELSE s.balance END + 0 * d.balance
                     - CASE WHEN ${sign} = -1 THEN d.balance ELSE 0 END AS start
            FROM ${daily} n
            JOIN delta_summary d ON d.address = n.address
            LEFT JOIN address_summary s ON s.chain = ${chain} AND s.address = n.address
          ) r
        ) t
        GROUP BY day
        ON CONFLICT (chain, day) DO UPDATE SET holders_delta = c.holders_delta + excluded.holders_delta`;
}

/**
 * Merges delta_summary. Into a table that holds no row of the chain (`fresh`) the deltas are
 * inserted as they are, without looking for conflicts, in the order of its key.
 */
async function applyAddressSummary(db: Db, chain: ChainId, options: { holders: Sql | null; fresh: boolean }): Promise<{ newAddresses: number }> {
  // One statement: the holder transitions and the count of new addresses read address_summary as
  // it was before the merge (the statement's snapshot).
  const [counted] = await db.query<{ n: number }>(
    'rollups.summary.apply',
    sql`WITH ${options.holders ? sql`holders AS (${holderTransitions(chain, 1, options.holders)}),` : sql``}
        counted AS (
          SELECT count(*)::int AS n FROM delta_summary d
          WHERE NOT EXISTS (SELECT 1 FROM address_summary s WHERE s.chain = ${chain} AND s.address = d.address)),
        merged AS (
        INSERT INTO address_summary AS s (
          chain, address, balance, total_received, total_sent, total_fees_paid, fees_burned, gas_used,
          tx_count, tx_received_count, tx_sent_count, first_seen, first_height, first_tx, last_seen, last_height, last_tx,
          funded_by, funded_tx, funded_at, funded_height, withdrawal_count, withdrawal_total,
          internal_tx_count, internal_received, internal_sent, deployed_count, is_contract,
          master_address, slave_count, ots_used, ots_max_index)
        SELECT ${chain}, address, balance, total_received, total_sent, total_fees_paid, fees_burned, gas_used,
          tx_count, tx_received_count, tx_sent_count, first_seen, first_height, first_tx, last_seen, last_height, last_tx,
          funded_by, funded_tx, funded_at, funded_height, withdrawal_count, withdrawal_total,
          internal_tx_count, internal_received, internal_sent, deployed_count, is_contract,
          master_address, slave_count, ots_used, ots_max_index
        FROM delta_summary
        ${options.fresh ? sql`ORDER BY address` : sql`${mergeSummary} RETURNING address, balance`})
        ${options.fresh ? empty : sql`, after AS (INSERT INTO summary_after (address, balance) SELECT address, balance FROM merged)`}
        SELECT n FROM counted`,
  );
  return { newAddresses: counted?.n ?? 0 };
}

/**
 * summary_after: the batch's addresses' balances as the batch leaves them (what the rollups after
 * this one read per address of delta_summary), so that they need not look each address up again:
 * returned by `apply`'s merge (not into an empty table: the rollups after it rebuild), and written
 * by `repair` for the addresses a revert leaves.
 */
export const SUMMARY_AFTER: ScratchTable = { name: 'summary_after', columns: 'address text, balance numeric' };

// The merge into rows already there: sums add, first and funded keep the earlier, last takes the later.
const mergeSummary = sql`ORDER BY address
        ON CONFLICT (chain, address) DO UPDATE SET
          balance = s.balance + excluded.balance,
          total_received = s.total_received + excluded.total_received,
          total_sent = s.total_sent + excluded.total_sent,
          total_fees_paid = s.total_fees_paid + excluded.total_fees_paid,
          fees_burned = s.fees_burned + excluded.fees_burned,
          gas_used = s.gas_used + excluded.gas_used,
          tx_count = s.tx_count + excluded.tx_count,
          tx_received_count = s.tx_received_count + excluded.tx_received_count,
          tx_sent_count = s.tx_sent_count + excluded.tx_sent_count,
          first_seen = coalesce(s.first_seen, excluded.first_seen),
          first_height = coalesce(s.first_height, excluded.first_height),
          first_tx = coalesce(s.first_tx, excluded.first_tx),
          last_seen = coalesce(excluded.last_seen, s.last_seen),
          last_height = coalesce(excluded.last_height, s.last_height),
          last_tx = coalesce(excluded.last_tx, s.last_tx),
          funded_by = CASE WHEN s.funded_height IS NULL THEN excluded.funded_by ELSE s.funded_by END,
          funded_tx = CASE WHEN s.funded_height IS NULL THEN excluded.funded_tx ELSE s.funded_tx END,
          funded_at = coalesce(s.funded_at, excluded.funded_at),
          funded_height = coalesce(s.funded_height, excluded.funded_height),
          withdrawal_count = s.withdrawal_count + excluded.withdrawal_count,
          withdrawal_total = s.withdrawal_total + excluded.withdrawal_total,
          internal_tx_count = s.internal_tx_count + excluded.internal_tx_count,
          internal_received = s.internal_received + excluded.internal_received,
          internal_sent = s.internal_sent + excluded.internal_sent,
          deployed_count = s.deployed_count + excluded.deployed_count,
          is_contract = s.is_contract OR excluded.is_contract,
          master_address = coalesce(excluded.master_address, s.master_address),
          slave_count = s.slave_count + excluded.slave_count,
          ots_used = s.ots_used + excluded.ots_used,
          ots_max_index = greatest(s.ots_max_index, excluded.ots_max_index)`;

/** Subtracts delta_summary. Call `repairAddressSummary` once the reverted raw rows are gone. */
async function revertAddressSummary(db: Db, chain: ChainId, daily: Sql): Promise<void> {
  await db.query('rollups.summary.holders', holderTransitions(chain, -1, daily));
  await db.query(
    'rollups.summary.revert',
    sql`UPDATE address_summary s SET
          balance = s.balance - d.balance,
          total_received = s.total_received - d.total_received,
          total_sent = s.total_sent - d.total_sent,
          total_fees_paid = s.total_fees_paid - d.total_fees_paid,
          fees_burned = s.fees_burned - d.fees_burned,
          gas_used = s.gas_used - d.gas_used,
          tx_count = s.tx_count - d.tx_count,
          tx_received_count = s.tx_received_count - d.tx_received_count,
          tx_sent_count = s.tx_sent_count - d.tx_sent_count,
          withdrawal_count = s.withdrawal_count - d.withdrawal_count,
          withdrawal_total = s.withdrawal_total - d.withdrawal_total,
          internal_tx_count = s.internal_tx_count - d.internal_tx_count,
          internal_received = s.internal_received - d.internal_received,
          internal_sent = s.internal_sent - d.internal_sent,
          deployed_count = s.deployed_count - d.deployed_count,
          slave_count = s.slave_count - d.slave_count,
          ots_used = s.ots_used - d.ots_used
        FROM delta_summary d
        WHERE s.chain = ${chain} AND s.address = d.address`,
  );
}

/**
 * Recomputes every day's holder transitions of `chain` from address_daily (a partial refresh
 * rebuilds daily rows without replaying balances in order).
 */
async function recomputeHolderTransitions(db: Db, chain: ChainId): Promise<void> {
  await db.query('rollups.summary.holders_reset', sql`UPDATE chain_daily SET holders_delta = 0 WHERE chain = ${chain}`);
  await db.query(
    'rollups.summary.holders_recompute',
    sql`INSERT INTO chain_daily AS c (chain, day, holders_delta)
        SELECT ${chain}, day, (count(*) FILTER (WHERE before <= 0 AND after > 0) - count(*) FILTER (WHERE before > 0 AND after <= 0))::int
        FROM (
          SELECT day, running - net AS before, running AS after
          FROM (
            SELECT day, received - sent - fees AS net,
                   -- An unknown balance counts in no transition (as in holderTransitions).
                   CASE WHEN u.address IS NULL THEN sum(received - sent - fees) OVER (PARTITION BY a.address ORDER BY day) END AS running
            FROM address_daily a
            LEFT JOIN (SELECT address FROM opening_balances WHERE chain = ${chain} AND amount IS NULL) u ON u.address = a.address
            WHERE a.chain = ${chain}
          ) r
        ) t
        GROUP BY day
        ON CONFLICT (chain, day) DO UPDATE SET holders_delta = excluded.holders_delta`,
  );
}

/**
 * After a revert's raw rows are deleted: recompute, for the addresses the delta touched, what a
 * subtraction cannot restore. Everything at or below `ancestor` is intact, so a first/funded
 * value above it means there is no earlier one. Returns how many summaries were removed because
 * nothing is left of them.
 */
async function repairAddressSummary(db: Db, chain: ChainId, ancestor: number): Promise<{ removedAddresses: number }> {
  await db.query(
    'rollups.summary.repair_first',
    sql`UPDATE address_summary s SET
          first_seen = CASE WHEN s.first_height > ${ancestor} THEN NULL ELSE s.first_seen END,
          first_tx = CASE WHEN s.first_height > ${ancestor} THEN NULL ELSE s.first_tx END,
          first_height = CASE WHEN s.first_height > ${ancestor} THEN NULL ELSE s.first_height END,
          funded_by = CASE WHEN s.funded_height > ${ancestor} THEN NULL ELSE s.funded_by END,
          funded_tx = CASE WHEN s.funded_height > ${ancestor} THEN NULL ELSE s.funded_tx END,
          funded_at = CASE WHEN s.funded_height > ${ancestor} THEN NULL ELSE s.funded_at END,
          funded_height = CASE WHEN s.funded_height > ${ancestor} THEN NULL ELSE s.funded_height END
        FROM delta_summary d
        WHERE s.chain = ${chain} AND s.address = d.address`,
  );
  // The last transaction at or below the ancestor, through the per-address indexes.
  await db.query(
    'rollups.summary.repair_last',
    sql`UPDATE address_summary s SET last_height = l.height, last_seen = l.ts, last_tx = l.tx_hash
        FROM delta_summary d
        LEFT JOIN LATERAL (
          SELECT height, tx_index, ts, tx_hash FROM (
            (SELECT height, tx_index, ts, tx_hash FROM transactions
              WHERE chain = ${chain} AND from_addr = d.address AND height <= ${ancestor} ORDER BY height DESC, tx_index DESC LIMIT 1)
            UNION ALL
            (SELECT height, tx_index, ts, tx_hash FROM transactions
              WHERE chain = ${chain} AND to_addr = d.address AND height <= ${ancestor} ORDER BY height DESC, tx_index DESC LIMIT 1)
            UNION ALL
            (SELECT height, tx_index, ts, tx_hash FROM transactions
              WHERE chain = ${chain} AND contract_address = d.address AND height <= ${ancestor} ORDER BY height DESC, tx_index DESC LIMIT 1)
            UNION ALL
            (SELECT height, tx_index, ts, tx_hash FROM transactions
              WHERE chain = ${chain} AND signer_addr = d.address AND height <= ${ancestor} ORDER BY height DESC, tx_index DESC LIMIT 1)
            UNION ALL
            (SELECT r.height, r.tx_index, t.ts, t.tx_hash FROM tx_recipients r
               JOIN transactions t ON t.chain = r.chain AND t.height = r.height AND t.tx_index = r.tx_index
              WHERE r.chain = ${chain} AND r.to_addr = d.address AND r.height <= ${ancestor}
              ORDER BY r.height DESC, r.tx_index DESC LIMIT 1)
          ) candidates ORDER BY height DESC, tx_index DESC LIMIT 1
        ) l ON true
        WHERE s.chain = ${chain} AND s.address = d.address AND s.last_height > ${ancestor}`,
  );
  await db.query(
    'rollups.summary.repair_details',
    sql`UPDATE address_summary s SET
          is_contract = EXISTS (SELECT 1 FROM transactions t WHERE t.chain = ${chain} AND t.contract_address = s.address)
                        OR EXISTS (SELECT 1 FROM contract_creations c WHERE c.chain = ${chain} AND c.address = s.address),
          master_address = (SELECT master_address FROM slaves sl WHERE sl.chain = ${chain} AND sl.slave_address = s.address
                            ORDER BY height DESC, tx_index DESC LIMIT 1),
          ots_max_index = (SELECT max(ots_index) FROM (
                             SELECT ots_index FROM transactions t WHERE t.chain = ${chain} AND t.signer_addr = s.address
                             UNION ALL
                             SELECT ots_index FROM transactions t WHERE t.chain = ${chain} AND t.from_addr = s.address AND t.signer_addr IS NULL
                           ) signed)
        FROM delta_summary d
        WHERE s.chain = ${chain} AND s.address = d.address
          AND (d.is_contract OR d.master_address IS NOT NULL OR d.ots_used > 0)`,
  );
  // The addresses left empty go; the others' balances go to summary_after (the statement reads the
  // table as it was before its delete: the deleted ones are left out by name).
  const [removed] = await db.query<{ n: number }>(
    'rollups.summary.remove_empty',
    sql`WITH removed AS (
          DELETE FROM address_summary s USING delta_summary d
          WHERE s.chain = ${chain} AND s.address = d.address
            AND s.tx_count = 0 AND s.internal_tx_count = 0 AND s.withdrawal_count = 0 AND s.total_received = 0
            AND s.slave_count = 0 AND s.master_address IS NULL AND NOT s.is_contract AND s.deployed_count = 0
          RETURNING s.address),
        after AS (
          INSERT INTO summary_after (address, balance)
          SELECT s.address, s.balance FROM delta_summary d JOIN address_summary s ON s.chain = ${chain} AND s.address = d.address
          WHERE s.address NOT IN (SELECT address FROM removed))
        SELECT count(*)::int AS n FROM removed`,
  );
  return { removedAddresses: removed!.n };
}

/** The step's per-address deltas (the balance change among them), merged into address_summary. */
export const SUMMARY_DELTAS: DeltaTable<Summaries> = {
  name: 'delta_summary',
  columns: `address text, balance numeric, total_received numeric, total_sent numeric, total_fees_paid numeric,
    fees_burned numeric, gas_used bigint, tx_count int, tx_received_count int, tx_sent_count int,
    first_seen bigint, first_height bigint, first_tx text, last_seen bigint, last_height bigint, last_tx text,
    funded_by text, funded_tx text, funded_at bigint, funded_height bigint, withdrawal_count int, withdrawal_total numeric,
    internal_tx_count int, internal_received numeric, internal_sent numeric, deployed_count int, is_contract boolean,
    master_address text, slave_count int, ots_used int, ots_max_index int`,
  rows: (acc) => rowsOf(acc.byAddress, (address, s) => [
    address, s.openingUnknown ? null : s.received - s.debit - s.fees, s.received, s.sent, s.fees, s.feesBurned, s.gasUsed, s.txCount, s.txIn, s.txOut,
    s.first?.ts, s.first?.height, s.first?.tx, s.last?.ts, s.last?.height, s.last?.tx,
    s.funded?.by, s.funded?.tx, s.funded?.at, s.funded?.height, s.withdrawalCount, s.withdrawalTotal,
    s.internalCount, s.internalReceived, s.internalSent, s.deployedCount, s.isContract, s.masterAddress, s.slaveCount, s.otsUsed, s.otsMaxIndex,
  ]),
  analyze: true,
};

export const addressSummary: Rollup<Summaries> = {
  name: 'address_summary',
  part: 'addresses',
  tables: ['address_summary'],
  deltas: summaryReducer,
  scratchTables: [SUMMARY_AFTER],
  deltaTables: [SUMMARY_DELTAS],
  // The holder transitions run through each address's days.
  reads: [DAILY_DELTAS],
  async apply(db, step) {
    const holders = step.partial ? null : step.rowsOf(DAILY_DELTAS);
    const { newAddresses } = await applyAddressSummary(db, step.chain, { holders, fresh: step.fresh.has('address_summary') });
    step.newAddresses = newAddresses;
  },
  revert: (db, step) => revertAddressSummary(db, step.chain, step.rowsOf(DAILY_DELTAS)),
  async repair(db, step) {
    const { removedAddresses } = await repairAddressSummary(db, step.chain, step.ancestor);
    step.removedAddresses = removedAddresses;
  },
  async clearTouched(db, chain, { addresses }) {
    await db.query('refresh.clear_summary', sql`DELETE FROM address_summary WHERE chain = ${chain} AND address = ANY(${addresses}::text[])`);
  },
  async afterRefresh(db, chain, partial) {
    // A partial replay rebuilds daily rows without replaying balances in order.
    if (partial) await recomputeHolderTransitions(db, chain);
  },
};
