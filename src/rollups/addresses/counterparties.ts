/**
 * address_counterparties: per address and counterparty, the logical transactions between them and
 * the value each way. Revert subtracts, drops pairs with nothing left, and recomputes the last
 * interaction of the pairs whose last one was reverted, looking through the indexes of the side
 * with fewer transactions.
 */
import sql from 'sql-template-tag';
import { isSentinel, type ChainId } from '../../chain/chains.ts';
import type { Db } from '../../store/store.ts';
import { nestedRowsOf } from '../engine/delta-tables.ts';
import { entryOf, type DeltaReducer, type StepScope } from '../engine/reducer.ts';
import type { Rollup } from '../engine/rollup.ts';

interface PairDelta {
  txCount: number;
  sentCount: number;
  receivedCount: number;
  totalSent: bigint;
  totalReceived: bigint;
  lastTs: number;
}

// lastTs starts below any block time: pairOf raises it to the transaction's.
const emptyPair = (): PairDelta => ({ txCount: 0, sentCount: 0, receivedCount: 0, totalSent: 0n, totalReceived: 0n, lastTs: 0 });

/** address → counterparty → figures, of the pairs with a kept address (StepScope.keeps). */
interface Pairs {
  scope: StepScope;
  byAddress: Map<string, Map<string, PairDelta>>;
  entries: number;
}

/** The pair's delta, counting the transaction once per pair (a pair sees one tx per call site). */
function pairOf(acc: Pairs, address: string, counterparty: string, ts: number): PairDelta {
  const keep = acc.scope.keeps(address) || acc.scope.keeps(counterparty);
  const p = entryOf(acc.byAddress, address, counterparty, emptyPair, keep, () => acc.entries++);
  p.txCount++;
  p.lastTs = Math.max(p.lastTs, ts);
  return p;
}

/**
 * Top-level transfers between two real addresses (not a mint sentinel), once per transaction and
 * pair, both ways.
 */
const pairsReducer: DeltaReducer<Pairs> = {
  start: (scope) => ({ scope, byAddress: new Map(), entries: 0 }),
  tx(acc, { tx, ts, ok, legs }) {
    const { chain } = acc.scope;
    const sentTo = new Map<string, bigint>();
    for (const r of legs) sentTo.set(r.to, (sentTo.get(r.to) ?? 0n) + (ok ? r.amount : 0n));
    if (isSentinel(chain, tx.from)) return;
    for (const [to, amount] of sentTo) {
      if (isSentinel(chain, to)) continue;
      const out = pairOf(acc, tx.from, to, ts);
      out.sentCount++;
      out.totalSent += amount;
      if (to === tx.from) {
        out.receivedCount++;
        out.totalReceived += amount;
      } else {
        const back = pairOf(acc, to, tx.from, ts);
        back.receivedCount++;
        back.totalReceived += amount;
      }
    }
  },
  size: (acc) => acc.entries,
};

async function applyCounterparties(db: Db, chain: ChainId): Promise<void> {
  await db.query(
    'rollups.counterparties.apply',
    sql`INSERT INTO address_counterparties AS c (chain, address, counterparty, tx_count, sent_count, received_count, total_sent, total_received, last_ts)
        SELECT ${chain}, address, counterparty, tx_count, sent_count, received_count, total_sent, total_received, last_ts FROM delta_pairs
        ORDER BY address, counterparty
        ON CONFLICT (chain, address, counterparty) DO UPDATE SET
          tx_count = c.tx_count + excluded.tx_count, sent_count = c.sent_count + excluded.sent_count,
          received_count = c.received_count + excluded.received_count,
          total_sent = c.total_sent + excluded.total_sent, total_received = c.total_received + excluded.total_received,
          last_ts = greatest(c.last_ts, excluded.last_ts)`,
  );
}

async function revertCounterparties(db: Db, chain: ChainId): Promise<void> {
  await db.query(
    'rollups.counterparties.revert',
    sql`UPDATE address_counterparties c SET
          tx_count = c.tx_count - d.tx_count, sent_count = c.sent_count - d.sent_count,
          received_count = c.received_count - d.received_count,
          total_sent = c.total_sent - d.total_sent, total_received = c.total_received - d.total_received
        FROM delta_pairs d
        WHERE c.chain = ${chain} AND c.address = d.address AND c.counterparty = d.counterparty`,
  );
  await db.query(
    'rollups.counterparties.remove_empty',
    sql`DELETE FROM address_counterparties c USING delta_pairs d
        WHERE c.chain = ${chain} AND c.address = d.address AND c.counterparty = d.counterparty AND c.tx_count = 0`,
  );
}

/**
 * After the raw rows are deleted: the last interaction of each touched pair that is left, from what
 * remains. Each way two addresses meet is probed newest first through the indexes of the pair's
 * quieter address and stops at the first match, so a pair costs the rows since its previous
 * interaction, not its whole history. The raw row's other side is read by primary key in a scalar
 * subquery, never flattened into a join: joined, the planner walked the busier address's whole
 * history for every pair. A transaction with one recipient also has it as `to_addr` (the model's
 * rule), so only multi-recipient sends need their recipients probed.
 */
async function repairCounterparties(db: Db, chain: ChainId): Promise<void> {
  await db.query(
    'rollups.counterparties.repair_last',
    sql`UPDATE address_counterparties c SET last_ts = greatest(
          (SELECT ts FROM transactions WHERE chain = ${chain} AND from_addr = q.quiet AND coalesce(to_addr, contract_address) = q.other
           ORDER BY height DESC, tx_index DESC LIMIT 1),
          (SELECT ts FROM transactions WHERE chain = ${chain} AND to_addr = q.quiet AND from_addr = q.other
           ORDER BY height DESC, tx_index DESC LIMIT 1),
          (SELECT ts FROM transactions WHERE chain = ${chain} AND contract_address = q.quiet AND from_addr = q.other
           ORDER BY height DESC, tx_index DESC LIMIT 1),
          (SELECT (SELECT ts FROM transactions t WHERE t.chain = r.chain AND t.height = r.height AND t.tx_index = r.tx_index)
           FROM tx_recipients r
           WHERE r.chain = ${chain} AND r.to_addr = q.quiet
             AND (SELECT from_addr FROM transactions t WHERE t.chain = r.chain AND t.height = r.height AND t.tx_index = r.tx_index) = q.other
           ORDER BY r.height DESC, r.tx_index DESC LIMIT 1),
          (SELECT t.ts FROM transactions t
           WHERE t.chain = ${chain} AND t.from_addr = q.quiet AND t.recipient_count > 1
             AND (SELECT true FROM tx_recipients r
                  WHERE r.chain = t.chain AND r.height = t.height AND r.tx_index = t.tx_index AND r.to_addr = q.other LIMIT 1)
           ORDER BY t.height DESC, t.tx_index DESC LIMIT 1))
        FROM delta_pairs d
        CROSS JOIN LATERAL (
          SELECT CASE WHEN coalesce((SELECT tx_count FROM address_summary WHERE chain = ${chain} AND address = d.address), 0)
                         <= coalesce((SELECT tx_count FROM address_summary WHERE chain = ${chain} AND address = d.counterparty), 0)
                      THEN d.address ELSE d.counterparty END AS quiet,
                 CASE WHEN coalesce((SELECT tx_count FROM address_summary WHERE chain = ${chain} AND address = d.address), 0)
                         <= coalesce((SELECT tx_count FROM address_summary WHERE chain = ${chain} AND address = d.counterparty), 0)
                      THEN d.counterparty ELSE d.address END AS other
        ) q
        WHERE c.chain = ${chain} AND c.address = d.address AND c.counterparty = d.counterparty`,
  );
}

export const counterparties: Rollup<Pairs> = {
  name: 'address_counterparties',
  part: 'addresses',
  tables: ['address_counterparties'],
  deltas: pairsReducer,
  deltaTables: [
    {
      name: 'delta_pairs',
      columns: `address text, counterparty text, tx_count int, sent_count int, received_count int, total_sent numeric,
        total_received numeric, last_ts bigint`,
      rows: (acc) => nestedRowsOf(acc.byAddress, (address, counterparty, p) => [
        address, counterparty, p.txCount, p.sentCount, p.receivedCount, p.totalSent, p.totalReceived, p.lastTs,
      ]),
      direct: 'address_counterparties',
      analyze: true,
    },
  ],
  apply: (db, step) => (step.fresh.has('address_counterparties') ? Promise.resolve() : applyCounterparties(db, step.chain)),
  revert: (db, step) => revertCounterparties(db, step.chain),
  repair: (db, step) => repairCounterparties(db, step.chain),
  async clearTouched(db, chain, { addresses }) {
    await db.query(
      'refresh.clear_pairs',
      sql`DELETE FROM address_counterparties WHERE chain = ${chain} AND (address = ANY(${addresses}::text[]) OR counterparty = ANY(${addresses}::text[]))`,
    );
  },
};
