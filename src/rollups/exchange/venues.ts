/**
 * The exchange rollups (docs/metrics.md, "Exchanges"): relay evidence and the confirmation it
 * decides (exchange_wallets.confirmed of deposit relays), per-venue and per-address daily flows, the largest
 * deposits and withdrawals of each day, and per-venue relay totals.
 *
 * Invariant: every table holds the figures of all indexed moves classified by the present
 * confirmed addresses. A batch adds its moves; when a relay's confirmation flips, the moves it took
 * part in before the batch are taken out under the old state and put back under the new one (a day
 * of largest transfers that was full is recomputed from the raw rows, as one that could have held
 * back a transfer). A revert subtracts under the present state, then does the same for the flips
 * it causes. An import rebuilds everything.
 * Follows address_summary (reads its delta table and balances).
 */
import sql, { raw, type Sql } from 'sql-template-tag';
import type { ChainId } from '../../chain/chains.ts';
import type { Db } from '../../store/store.ts';
import { SUMMARY_DELTAS } from '../addresses/address-summary.ts';
import type { Rollup, RollupStep } from '../engine/rollup.ts';
import { classifiedMoves, flowOutcome, flowWrites, movesInRange, movesOfStep, movesTouching, settleFlowOutcome, settleLargest, type FlowOutcome, type MovesPart } from './moves.ts';

const TABLES = ['exchange_relay_evidence', 'exchange_flow_daily', 'exchange_address_flow_daily', 'exchange_largest', 'exchange_venue_relays'] as const;

/**
 * Whether `chain` has curated venues (any exchange wallet), through the key's index. Not `EXISTS`:
 * for it the planner scans the table, expecting a match at once, and reads past every pow row
 * (most of the table, loaded first) on each pos block.
 */
async function hasVenues(db: Db, chain: ChainId): Promise<boolean> {
  const [row] = await db.query<{ any: boolean }>(
    'rollups.exchange.any',
    sql`SELECT coalesce((SELECT true FROM exchange_wallets WHERE chain = ${chain} ORDER BY address LIMIT 1), false) AS any`,
  );
  return row!.any;
}

/** No relay of `chain` confirmed (its evidence is about to be counted from nothing). */
async function unconfirmRelays(db: Db, chain: ChainId): Promise<void> {
  await db.query('rollups.exchange.unconfirm', sql`UPDATE exchange_wallets SET confirmed = false WHERE chain = ${chain} AND role = 'deposit_relay' AND confirmed`);
}

/** The rule: a relay is confirmed when it has forwarded to its own venue's wallets and sent nothing anywhere else. */
const RULE = sql`coalesce(e.forwards > 0 AND e.strays = 0, false)`;

/**
 * The CTE `evidence`, which adds (or subtracts) to the relay evidence what the relays among the
 * senders of `moves` sent, returning each relay's address and counts. With `flip`, also `judged`,
 * `turned` and `totals`: in the same statement (one snapshot: every part reads the flags as they
 * were) the confirmation of the relays whose flag now disagrees with the rule is turned (`judged`
 * says which `flips`), and the venues' relay totals (`totals`) gain the balance change of
 * the confirmed relays among `flip.balanceChanges` (a batch's delta_summary rows: step.rowsOf) and
 * the flipped relays and their balances.
 */
function evidenceWrites(chain: ChainId, moves: Sql, sign: 1 | -1, options: { flip?: { balanceChanges: Sql } } = {}): Sql {
  const evidence = sql`evidence AS (
          INSERT INTO exchange_relay_evidence AS e (chain, address, forwards, strays)
          SELECT ${chain}, m.from_addr,
                 ${sign} * count(*) FILTER (WHERE tw.role IN ('hot', 'cold') AND tw.exchange = fw.exchange),
                 ${sign} * count(*) FILTER (WHERE NOT coalesce(tw.role IN ('hot', 'cold') AND tw.exchange = fw.exchange, false))
          FROM (${moves}) m
          JOIN exchange_wallets fw ON fw.chain = ${chain} AND fw.address = m.from_addr AND fw.role = 'deposit_relay'
          LEFT JOIN exchange_wallets tw ON tw.chain = ${chain} AND tw.address = m.to_addr
          GROUP BY m.from_addr
          ON CONFLICT (chain, address) DO UPDATE SET forwards = e.forwards + excluded.forwards, strays = e.strays + excluded.strays
          RETURNING address, forwards, strays)`;
  if (!options.flip) return evidence;
  return sql`${evidence},
        judged AS (
          SELECT e.address, w.exchange, w.confirmed, w.confirmed <> ${RULE} AS flips FROM evidence e
          JOIN exchange_wallets w ON w.chain = ${chain} AND w.address = e.address),
        turned AS (
          UPDATE exchange_wallets w SET confirmed = NOT w.confirmed FROM judged j
          WHERE w.chain = ${chain} AND w.address = j.address AND j.flips),
        totals AS (
          INSERT INTO exchange_venue_relays AS v (chain, exchange, relays, relay_balance)
          SELECT ${chain}, exchange, sum(relays), sum(balance) FROM (
            SELECT w.exchange, 0 AS relays, ${sign} * d.balance AS balance
            FROM ${options.flip.balanceChanges} d
            JOIN exchange_wallets w ON w.chain = ${chain} AND w.address = d.address AND w.role = 'deposit_relay' AND w.confirmed
            UNION ALL
            SELECT j.exchange, CASE WHEN j.confirmed THEN -1 ELSE 1 END, CASE WHEN j.confirmed THEN -1 ELSE 1 END * coalesce(s.balance, 0)
            FROM judged j LEFT JOIN address_summary s ON s.chain = ${chain} AND s.address = j.address
            WHERE j.flips) x
          GROUP BY exchange
          ON CONFLICT (chain, exchange) DO UPDATE SET relays = v.relays + excluded.relays, relay_balance = v.relay_balance + excluded.relay_balance
          RETURNING relays)`;
}

/**
 * A step's moves (those of its blocks, counted with `sign` in the state `beforeFlips` asks for: true
 * when they leave in the state they were counted in) in one statement: the relays'
 * evidence and the flips it decides (evidenceWrites); the moves classified, and the flipped relays'
 * moves up to `earlierThan` out in the state before the flips and back in the present one; their
 * flows added. Moves taken out do not leave exchange_largest here: their days are returned `full`,
 * to be recomputed (settleLargest) with the days left overfull.
 */
async function addStep(
  db: Db,
  step: RollupStep,
  moves: { sign: 1 | -1; beforeFlips: boolean; earlierThan: number },
): Promise<{ full: string[]; overfull: string[] }> {
  const { chain } = step;
  const balanceChanges = step.rowsOf(SUMMARY_DELTAS, ['address', 'balance']);
  const flipped = sql`SELECT address FROM judged WHERE flips`;
  const stepMoves = sql`SELECT * FROM moves`;
  const parts: MovesPart[] = [
    { moves: stepMoves, sign: moves.sign, beforeFlips: moves.beforeFlips },
    { moves: movesTouching(chain, flipped, moves.earlierThan), reclassify: true },
  ];
  const rows = await db.query<FlowOutcome>(
    'rollups.exchange.step',
    sql`WITH moves AS MATERIALIZED (${movesOfStep(chain, step.inBlocks)}),
        ${evidenceWrites(chain, stepMoves, moves.sign, { flip: { balanceChanges } })},
        classified AS MATERIALIZED (${classifiedMoves(chain, parts, flipped)}),
        ${flowWrites(chain, raw('classified'))}
        ${flowOutcome(chain)}
        UNION ALL
        SELECT DISTINCT 'full', NULL, day::text FROM classified WHERE sign < 0
        UNION ALL
        SELECT 'evidence', address, NULL FROM evidence WHERE forwards = 0 AND strays = 0
        UNION ALL
        SELECT 'no_relays', NULL, NULL WHERE EXISTS (SELECT 1 FROM totals WHERE relays = 0)`,
  );
  const emptied = rows.filter((r) => r.kind === 'evidence').map((r) => r.address);
  if (emptied.length > 0) {
    await db.query(
      'rollups.exchange.evidence.prune',
      sql`DELETE FROM exchange_relay_evidence WHERE chain = ${chain} AND address = ANY(${emptied}::text[]) AND forwards = 0 AND strays = 0`,
    );
  }
  // Venues left without confirmed relays lose their totals row.
  if (rows.some((r) => r.kind === 'no_relays')) {
    await db.query('rollups.exchange.relays.prune', sql`DELETE FROM exchange_venue_relays WHERE chain = ${chain} AND relays = 0`);
  }
  return { full: rows.filter((r) => r.kind === 'full').map((r) => r.day!), overfull: await settleFlowOutcome(db, chain, rows) };
}

/**
 * A followed chain's steps go through without asking whether the chain has venues: without any,
 * their moves match no wallet, and asking would cost every block of a chain with venues a round
 * trip. A larger step asks first: a bulk load, before the labels are imported, would otherwise
 * classify millions of moves against nothing.
 */
async function mayHaveFlows(db: Db, step: RollupStep): Promise<boolean> {
  return step.followed || (await hasVenues(db, step.chain));
}

async function apply(db: Db, step: RollupStep): Promise<void> {
  const { chain } = step;
  // A refresh of a range rebuilds these tables whole afterwards (afterRefresh).
  if (step.partial || step.blocks === 0 || !(await mayHaveFlows(db, step))) return;
  await settleLargest(db, chain, await addStep(db, step, { sign: 1, beforeFlips: false, earlierThan: step.fromHeight - 1 }), step.toHeight);
}

async function revert(db: Db, step: RollupStep): Promise<void> {
  const { chain, ancestor } = step;
  if (step.blocks === 0 || !(await mayHaveFlows(db, step))) return;
  // The reverted blocks' raw rows are still there (the heights above the ancestor). Their moves
  // leave in the state they were counted in, before the flips their removal causes.
  await settleLargest(db, chain, await addStep(db, step, { sign: -1, beforeFlips: true, earlierThan: ancestor }), ancestor);
}

/**
 * Rebuilds every exchange table of `chain` from the raw rows and the curated venues: what an import
 * of curated data and a refresh of a range run. Relays are confirmed by the rule from scratch.
 */
export async function rebuildExchangeRollups(db: Db, chain: ChainId): Promise<void> {
  for (const table of TABLES) await db.query('rollups.exchange.rebuild.clear', sql`DELETE FROM ${raw(table)} WHERE chain = ${chain}`);
  await unconfirmRelays(db, chain);
  const [top] = await db.query<{ h: string | number | null }>('rollups.exchange.top', sql`SELECT max(height) AS h FROM blocks WHERE chain = ${chain}`);
  if (top?.h == null || !(await hasVenues(db, chain))) return;
  const tip = Number(top.h);
  // Every move of the chain, in one pass of the raw tables: the venues' addresses run to thousands
  // of relays, and reaching their moves through the per-address indexes cost several times a scan.
  const everything = movesInRange(chain, 0, tip);
  await db.query('rollups.exchange.rebuild.evidence', sql`WITH ${evidenceWrites(chain, everything, 1)} SELECT count(*) FROM evidence`);
  await db.query('rollups.exchange.rebuild.evidence_prune', sql`DELETE FROM exchange_relay_evidence WHERE chain = ${chain} AND forwards = 0 AND strays = 0`);
  await db.query(
    'rollups.exchange.rebuild.confirm',
    sql`UPDATE exchange_wallets w SET confirmed = true FROM exchange_relay_evidence e
        WHERE w.chain = ${chain} AND w.role = 'deposit_relay' AND e.chain = w.chain AND e.address = w.address AND ${RULE}`,
  );
  // Each day's largest go in ranked (largestInsert): the cleared table ends at most full, no trim.
  await db.query(
    'rollups.exchange.rebuild.flows',
    sql`WITH classified AS MATERIALIZED (${classifiedMoves(chain, [{ moves: everything, sign: 1 }])}),
        ${flowWrites(chain, raw('classified'), { rebuild: true })}
        SELECT count(*) FROM largest`,
  );
  await db.query(
    'rollups.exchange.rebuild.relays',
    sql`INSERT INTO exchange_venue_relays (chain, exchange, relays, relay_balance)
        SELECT ${chain}, w.exchange, count(*), coalesce(sum(s.balance), 0)
        FROM exchange_wallets w LEFT JOIN address_summary s ON s.chain = w.chain AND s.address = w.address
        WHERE w.chain = ${chain} AND w.role = 'deposit_relay' AND w.confirmed
        GROUP BY w.exchange`,
  );
}

/**
 * After the rebuilds of a labels import (the demo's first start included, after its bulk load's
 * ANALYZE) or of a partial refresh: the tables were rewritten whole, and without statistics the whales' exchange flow read
 * every venue flow of its window through the key's chain prefix instead of each whale's range.
 * Not between two chains' rebuilds: the first chain's statistics would tell the
 * second's statements that it has no rows.
 */
export async function analyzeExchangeTables(db: Db): Promise<void> {
  for (const table of [...TABLES, 'exchange_wallets']) await db.query('rollups.exchange.analyze', sql`ANALYZE ${raw(table)}`);
}

export const exchangeVenues: Rollup = {
  name: 'exchange_venues',
  part: 'whales-exchanges',
  tables: TABLES,
  // Reads the step's balance changes, and address_summary's balances as the step leaves them.
  after: ['address_summary'],
  reads: [SUMMARY_DELTAS],
  // The step's tens of joins take longer to plan than to run.
  keepsPlans: ['rollups.exchange.step'],
  apply,
  revert,
  // The evidence is gone: no relay is confirmed until the replay confirms it again.
  cleared: unconfirmRelays,
  async afterRefresh(db, chain, partial) {
    if (!partial) return;
    await rebuildExchangeRollups(db, chain);
    await analyzeExchangeTables(db);
  },
};
