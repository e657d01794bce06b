/**
 * Per-day activity figures of the timeline (docs/metrics.md, "Timeline"), kept with the blocks for
 * every day, the open one included: chain_timeline_activity counts, per day, the addresses active
 * (any participation), those active other than by receiving payouts, and the active wallets whose
 * balance at the end of the day reaches 100 and 1,000 coins. address_payout_days keeps, per address
 * and day, the multi-recipient transfers it only received (the payouts).
 *
 * A batch changes an address's figures of a day only on the days it has deltas for: blocks arrive
 * in order, so an address's end-of-day balance of an earlier day never changes. Each (address, day)
 * of the batch is counted in the state after it (`apply`, or `repair` on a reorg) and in the state
 * before it, which is the state after less the batch's deltas, and the difference is added. The
 * end-of-day balance is the address's balance less what its later days (at most the batch's) moved.
 */
import sql, { join, raw, type Sql } from 'sql-template-tag';
import { CHAIN_INFO, SENTINELS, type ChainId } from '../../chain/chains.ts';
import type { Db } from '../../store/store.ts';
import { DAILY_AFTER, DAILY_DELTAS } from '../addresses/address-activity.ts';
import { SUMMARY_AFTER, SUMMARY_DELTAS } from '../addresses/address-summary.ts';
import type { Rollup, RollupStep } from '../engine/rollup.ts';

/** The balance thresholds of active-wallets-100 and -1000, in coins. */
const THRESHOLDS = [100n, 1000n] as const;

/**
 * Per day, the four counts over the (address, day) pairs of delta_daily after the batch less the
 * same counts before it. The state after is the rows of address_daily and address_summary as the
 * batch leaves them, in daily_after and summary_after (a row missing there is gone, or never
 * was). The state before is the state after less the batch's own deltas (`sign` +1 when the batch
 * was applied, -1 when it was reverted): delta_daily for the day's row, delta_summary for the
 * balance. So the rows are read once, after the batch, instead of once before and once after.
 * The payouts are the other way round: address_payout_days is read as it was before the batch's
 * payouts (the CTE batch_payouts) are merged into it, by the same statement.
 */
function pairCountChanges(chain: ChainId, sign: 1 | -1, deltas: { daily: Sql; summary: Sql; dailyAfter: Sql; summaryAfter: Sql }): Sql {
  const unit = CHAIN_INFO[chain].unitsPerCoin;
  const [low, high] = THRESHOLDS.map((coins) => (coins * unit).toString());
  const counts = (prefix: '' | 'old_') => {
    const col = (name: string) => raw(`${prefix}${name}`);
    return [
      sql`count(*) FILTER (WHERE ${col('tx_count')} > 0 OR ${col('received')} > 0 OR ${col('sent')} > 0)`,
      sql`count(*) FILTER (WHERE ${col('user_tx_count')} > ${col('payouts')} OR ${col('sent')} > 0)`,
      sql`count(*) FILTER (WHERE ${col('user_tx_count')} > 0 AND ${col('eod')} >= ${low}::numeric)`,
      sql`count(*) FILTER (WHERE ${col('user_tx_count')} > 0 AND ${col('eod')} >= ${high}::numeric)`,
    ];
  };
  const [after, before] = [counts(''), counts('old_')];
  return sql`SELECT day, ${join(after.map((a, i) => sql`${a} - ${before[i]!}`))}
        FROM (
          SELECT *,
                 -- The address's later days are all the batch's (blocks arrive in order): what they moved is summed over delta_daily's rows.
                 -- An unknown balance (NULL) reaches no threshold.
                 balance - coalesce(sum(received - sent - fees) OVER later, 0) AS eod,
                 old_balance - coalesce(sum(old_received - old_sent - old_fees) OVER later, 0) AS old_eod
          FROM (
            SELECT p.address, p.day,
                   coalesce(a.tx_count, 0) AS tx_count, coalesce(a.received, 0) AS received, coalesce(a.sent, 0) AS sent,
                   coalesce(a.fees, 0) AS fees, coalesce(a.user_tx_count, 0) AS user_tx_count,
                   coalesce(pd.payouts, 0) + ${sign} * coalesce(tp.payouts, 0) AS payouts,
                   coalesce(a.tx_count, 0) - ${sign} * p.tx_count AS old_tx_count, coalesce(a.received, 0) - ${sign} * p.received AS old_received,
                   coalesce(a.sent, 0) - ${sign} * p.sent AS old_sent, coalesce(a.fees, 0) - ${sign} * p.fees AS old_fees,
                   coalesce(a.user_tx_count, 0) - ${sign} * p.user_tx_count AS old_user_tx_count,
                   coalesce(pd.payouts, 0) AS old_payouts,
                   CASE WHEN s.address IS NULL THEN 0 ELSE s.balance END AS balance,
                   CASE WHEN s.address IS NULL THEN 0 ELSE s.balance END - ${sign} * CASE WHEN ds.address IS NULL THEN 0 ELSE ds.balance END AS old_balance
            FROM ${deltas.daily} p
            LEFT JOIN ${deltas.dailyAfter} a ON a.address = p.address AND a.day = p.day
            LEFT JOIN ${deltas.summaryAfter} s ON s.address = p.address
            -- Payouts are user transactions: a day without any before the merge has no payouts row to
            -- look up (most of a followed block's pairs are an address's first of the day). Nor does a
            -- day the address sent on both before and after the batch: it counts as non-payout either
            -- way. OFFSET 0 keeps those tests ahead of the lookup, per pair, instead of after it.
            LEFT JOIN LATERAL (
              SELECT pd.payouts FROM address_payout_days pd
              WHERE coalesce(a.user_tx_count, 0) - ${sign} * p.user_tx_count > 0
                AND NOT (coalesce(a.sent, 0) > 0 AND coalesce(a.sent, 0) - ${sign} * p.sent > 0)
                AND pd.chain = ${chain} AND pd.address = p.address AND pd.day = p.day
              OFFSET 0) pd ON true
            LEFT JOIN ${deltas.summary} ds ON ds.address = p.address
            LEFT JOIN batch_payouts tp ON tp.address = p.address AND tp.day = p.day
            WHERE p.address <> ALL(${[...SENTINELS[chain]]}::text[])
          ) rows
          WINDOW later AS (PARTITION BY address ORDER BY day ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING)
        ) pairs
        GROUP BY day`;
}

/**
 * Adds (or subtracts) the batch's payouts (`batchPayouts`: address, day, payouts) to
 * address_payout_days, and the batch's change of the counts to chain_timeline_activity, in one
 * statement; days the counts leave at zero lose their row (payout days a subtraction leaves at
 * zero: pruneReversedPayouts).
 */
async function mergeCounts(db: Db, step: RollupStep, sign: 1 | -1, batchPayouts: Sql): Promise<void> {
  const { chain } = step;
  const deltas = {
    daily: step.rowsOf(DAILY_DELTAS, ['address', 'day', 'tx_count', 'received', 'sent', 'fees', 'user_tx_count']),
    summary: step.rowsOf(SUMMARY_DELTAS, ['address', 'balance']),
    dailyAfter: step.rowsOf(DAILY_AFTER),
    summaryAfter: step.rowsOf(SUMMARY_AFTER),
  };
  const emptied = await db.query<{ day: string }>(
    'rollups.timeline.merge',
    sql`WITH batch_payouts AS MATERIALIZED (${batchPayouts}),
        payouts AS (
          INSERT INTO address_payout_days AS p (chain, address, day, payouts)
          SELECT ${chain}, address, day, ${sign} * payouts FROM batch_payouts
          ON CONFLICT (chain, address, day) DO UPDATE SET payouts = p.payouts + excluded.payouts),
        merged AS (
          INSERT INTO chain_timeline_activity AS t (chain, day, addresses, non_payout, wallets_100, wallets_1000)
          SELECT ${chain}, day, addresses, non_payout, wallets_100, wallets_1000
          FROM (${pairCountChanges(chain, sign, deltas)}) AS d(day, addresses, non_payout, wallets_100, wallets_1000)
          WHERE addresses <> 0 OR non_payout <> 0 OR wallets_100 <> 0 OR wallets_1000 <> 0
          ON CONFLICT (chain, day) DO UPDATE SET
            addresses = t.addresses + excluded.addresses, non_payout = t.non_payout + excluded.non_payout,
            wallets_100 = t.wallets_100 + excluded.wallets_100, wallets_1000 = t.wallets_1000 + excluded.wallets_1000
          RETURNING day, addresses = 0 AND non_payout = 0 AND wallets_100 = 0 AND wallets_1000 = 0 AS empty)
        SELECT day::text AS day FROM merged WHERE empty`,
  );
  if (emptied.length === 0) return;
  await db.query(
    'rollups.timeline.remove_empty',
    sql`DELETE FROM chain_timeline_activity t
        WHERE t.chain = ${chain} AND t.day = ANY(${emptied.map((e) => e.day)}::date[])
          AND t.addresses = 0 AND t.non_payout = 0 AND t.wallets_100 = 0 AND t.wallets_1000 = 0`,
  );
}

/** The payouts of the raw rows between two heights: per recipient and day, multi-recipient transfers it neither sent nor signed. */
function payoutsOf(chain: ChainId, where: Sql) {
  return sql`SELECT address, DATE '1970-01-01' + (ts / 86400)::int AS day, count(*)::int AS payouts
             FROM (
               SELECT DISTINCT t.height, t.tx_index, t.ts, r.to_addr AS address
               FROM transactions t
               JOIN tx_recipients r ON r.chain = t.chain AND r.height = t.height AND r.tx_index = t.tx_index
               WHERE t.chain = ${chain} AND ${where} AND t.tx_type = 'transfer' AND t.recipient_count >= 2
                 AND r.to_addr <> t.from_addr AND r.to_addr IS DISTINCT FROM t.signer_addr
             ) received
             GROUP BY 1, 2`;
}

/** After a subtraction: the batch's payout days left at zero lose their row. */
async function pruneReversedPayouts(db: Db, step: RollupStep): Promise<void> {
  if (step.carried.get('timeline_activity') === 0) return; // the batch has none
  // Only the batch's rows can be at zero: a key lookup each, not a scan of the table (which the
  // planner chose without statistics).
  await db.query('rollups.timeline.payouts_analyze', sql`ANALYZE timeline_payouts`);
  await db.query(
    'rollups.timeline.payouts_empty',
    sql`DELETE FROM address_payout_days p USING timeline_payouts t
        WHERE p.chain = ${step.chain} AND p.address = t.address AND p.day = t.day AND p.payouts = 0`,
  );
}

/**
 * A partial refresh rebuilds both tables afterwards; a first load counts its rows in one pass
 * instead (and the rollups it reads fill no daily_after or summary_after into empty tables).
 */
const countsAfterwards = (step: RollupStep) => step.partial || step.fresh.has('address_daily') || step.fresh.has('address_summary');

/** Before a revert: the reverted blocks' payouts, read while their raw rows exist (an apply reads its own inline). */
async function before(db: Db, step: RollupStep): Promise<void> {
  if (countsAfterwards(step) || step.ancestor < 0) return;
  const { chain } = step;
  const [payouts] = await db.query<{ n: number }>(
    'rollups.timeline.batch_payouts',
    sql`WITH batch AS (
          INSERT INTO timeline_payouts (address, day, payouts) ${payoutsOf(chain, sql`t.height BETWEEN ${step.fromHeight} AND ${step.toHeight}`)}
          RETURNING 1)
        SELECT count(*)::int AS n FROM batch`,
  );
  step.carried.set('timeline_activity', payouts!.n);
}

export const timelineActivity: Rollup = {
  name: 'timeline_activity',
  part: 'network',
  tables: ['chain_timeline_activity', 'address_payout_days'],
  scratchTables: [
    { name: 'timeline_payouts', columns: 'address text, day date, payouts int' },
  ],
  // Reads address_daily and address_summary as the batch leaves them (daily_after and
  // summary_after, which their rollups fill on apply and on revert), and the step's deltas.
  after: ['address_daily', 'address_summary'],
  reads: [DAILY_DELTAS, SUMMARY_DELTAS, DAILY_AFTER, SUMMARY_AFTER],
  keepsPlans: ['rollups.timeline.merge'],
  before,
  async apply(db, step) {
    if (step.partial) return;
    if (countsAfterwards(step)) {
      await rebuildTimelineActivity(db, step.chain);
      return;
    }
    await mergeCounts(db, step, 1, payoutsOf(step.chain, step.inBlocks('t')));
  },
  async repair(db, step) {
    await mergeCounts(db, step, -1, sql`SELECT address, day, payouts FROM timeline_payouts`);
    await pruneReversedPayouts(db, step);
  },
  async afterRefresh(db, chain, partial) {
    if (partial) await rebuildTimelineActivity(db, chain);
  },
};

/** Both tables of `chain` counted afresh from the raw rows and address_daily. */
async function rebuildTimelineActivity(db: Db, chain: ChainId): Promise<void> {
  const unit = CHAIN_INFO[chain].unitsPerCoin;
  const [low, high] = THRESHOLDS.map((coins) => (coins * unit).toString());
  await db.query('rollups.timeline.clear_payouts', sql`DELETE FROM address_payout_days WHERE chain = ${chain}`);
  await db.query('rollups.timeline.clear_activity', sql`DELETE FROM chain_timeline_activity WHERE chain = ${chain}`);
  await db.query(
    'rollups.timeline.rebuild_payouts',
    sql`INSERT INTO address_payout_days (chain, address, day, payouts) SELECT ${chain}, address, day, payouts FROM (${payoutsOf(chain, sql`true`)}) p`,
  );
  await db.query(
    'rollups.timeline.rebuild_activity',
    sql`INSERT INTO chain_timeline_activity (chain, day, addresses, non_payout, wallets_100, wallets_1000)
        SELECT ${chain}, day,
               count(*) FILTER (WHERE tx_count > 0 OR received > 0 OR sent > 0),
               count(*) FILTER (WHERE user_tx_count > payouts OR sent > 0),
               count(*) FILTER (WHERE user_tx_count > 0 AND eod >= ${low}::numeric),
               count(*) FILTER (WHERE user_tx_count > 0 AND eod >= ${high}::numeric)
        FROM (
          SELECT a.day, a.tx_count, a.received, a.sent, a.user_tx_count, coalesce(pd.payouts, 0) AS payouts,
                 -- An address with an unknown opening balance has no end-of-day balance (as incrementally).
                 CASE WHEN u.address IS NULL THEN sum(a.received - a.sent - a.fees) OVER (PARTITION BY a.address ORDER BY a.day) END AS eod
          FROM address_daily a
          LEFT JOIN address_payout_days pd ON pd.chain = a.chain AND pd.address = a.address AND pd.day = a.day
          LEFT JOIN (SELECT address FROM opening_balances WHERE chain = ${chain} AND amount IS NULL) u ON u.address = a.address
          WHERE a.chain = ${chain} AND a.address <> ALL(${[...SENTINELS[chain]]}::text[])
        ) pairs
        GROUP BY day
        HAVING count(*) FILTER (WHERE tx_count > 0 OR received > 0 OR sent > 0) > 0`,
  );
}
