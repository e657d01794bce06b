/**
 * chain_day_largest: per UTC day, the user transaction that moved the most native value (coinbase,
 * admin transactions, mints and reverted transactions excluded; the first in chain order on a
 * tie). Blocks arrive in order, so a later transaction replaces the kept one only when strictly
 * larger; a revert recomputes its days from the raw rows that remain.
 */
import sql from 'sql-template-tag';
import { NON_USER_TX_TYPES } from '../../chain/model.ts';
import { dayName } from '../../time.ts';
import type { DeltaReducer, StepScope } from '../engine/reducer.ts';
import type { Rollup } from '../engine/rollup.ts';

/** The largest value a transaction of a day moved, and which one (the first in chain order on a tie). */
interface LargestTx {
  value: bigint;
  hash: string;
  from: string;
  to: string | null;
  ts: number;
  height: number;
  txIndex: number;
}

/** Per day ('YYYY-MM-DD', of the kept days): the step's largest candidate. */
const largestReducer: DeltaReducer<{ scope: StepScope; days: Map<string, LargestTx> }> = {
  start: (scope) => ({ scope, days: new Map() }),
  tx(acc, { tx, user, mints, sent, ts, height, day }) {
    if (!user || mints || sent <= 0n) return;
    const name = dayName(day);
    const kept = acc.days.get(name);
    if ((kept && sent <= kept.value) || !acc.scope.keepsDay(name)) return;
    acc.days.set(name, { value: sent, hash: tx.hash, from: tx.from, to: tx.to ?? tx.contractAddress, ts, height, txIndex: tx.index });
  },
};

export const dayLargest: Rollup<{ scope: StepScope; days: Map<string, LargestTx> }> = {
  name: 'chain_day_largest',
  part: 'network',
  tables: ['chain_day_largest'],
  deltas: largestReducer,
  deltaTables: [
    {
      name: 'delta_day_largest',
      columns: 'day date, value numeric, tx_hash text, from_addr text, to_addr text, ts bigint, height bigint, tx_index int',
      rows: function* (acc) {
        for (const [day, t] of acc.days) yield [day, t.value, t.hash, t.from, t.to, t.ts, t.height, t.txIndex];
      },
    },
  ],
  async apply(db, { chain }) {
    await db.query(
      'rollups.day_largest.apply',
      sql`INSERT INTO chain_day_largest AS l (chain, day, value, tx_hash, from_addr, to_addr, ts, height, tx_index)
          SELECT ${chain}, day, value, tx_hash, from_addr, to_addr, ts, height, tx_index FROM delta_day_largest
          ON CONFLICT (chain, day) DO UPDATE SET value = excluded.value, tx_hash = excluded.tx_hash, from_addr = excluded.from_addr,
            to_addr = excluded.to_addr, ts = excluded.ts, height = excluded.height, tx_index = excluded.tx_index
          WHERE excluded.value > l.value`,
    );
  },
  async repair(db, { chain, days }) {
    // The reverted blocks' days, from what remains of them.
    await db.query('rollups.day_largest.clear', sql`DELETE FROM chain_day_largest l WHERE l.chain = ${chain} AND l.day = ANY(${days}::date[])`);
    await db.query(
      'rollups.day_largest.repair',
      sql`INSERT INTO chain_day_largest (chain, day, value, tx_hash, from_addr, to_addr, ts, height, tx_index)
          SELECT DISTINCT ON (d.day) ${chain}, d.day, t.value, t.tx_hash, t.from_addr, coalesce(t.to_addr, t.contract_address), t.ts, t.height, t.tx_index
          FROM unnest(${days}::date[]) AS d(day)
          JOIN blocks b ON b.chain = ${chain} AND b.ts >= (d.day - DATE '1970-01-01')::bigint * 86400 AND b.ts < (d.day - DATE '1970-01-01' + 1)::bigint * 86400
          JOIN transactions t ON t.chain = ${chain} AND t.height = b.height
          WHERE t.value > 0 AND t.status IS DISTINCT FROM 0 AND NOT (t.tx_type = ANY(${[...NON_USER_TX_TYPES]}::text[]))
            AND NOT EXISTS (SELECT 1 FROM migration_legs m WHERE m.chain = ${chain} AND m.height = t.height AND m.tx_index = t.tx_index AND m.role = 'mint')
          ORDER BY d.day, t.value DESC, t.height, t.tx_index`,
    );
  },
  async clearTouched(db, chain, { days }) {
    await db.query('refresh.clear_day_largest', sql`DELETE FROM chain_day_largest WHERE chain = ${chain} AND day = ANY(${days}::date[])`);
  },
};
