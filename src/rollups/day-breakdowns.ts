/**
 * Per-day breakdowns of a chain's transactions, each a sum keyed by (day, key): transactions per
 * type, per gas bucket, per fee paid (the day's exact fee multiset) and per UTC hour. Revert
 * subtracts and drops rows that fall to zero; nothing needs repair.
 */
import sql, { raw } from 'sql-template-tag';
import type { CopyValue } from '../store/copy.ts';
import type { ChainDayDelta, RollupDeltas } from './engine/deltas.ts';
import type { Rollup } from './engine/rollup.ts';

/** A sum rollup: `table` (chain, `keys`…, `counts`…) with `counts` added per key. */
function keyedSums(spec: {
  name: string;
  table: string;
  keys: Record<string, string>;
  counts: readonly string[];
  rows: (deltas: RollupDeltas) => Iterable<CopyValue[]>;
  /** The column holding the day, for a partial refresh. */
  dayKey?: string;
}): Rollup {
  const keys = Object.keys(spec.keys);
  const columns = [...keys, ...spec.counts];
  const delta = `delta_${spec.name}`;
  // Identifiers below come from this file, never from input.
  const list = raw(columns.join(', '));
  const onKeys = raw(keys.map((k) => `r.${k} = d.${k}`).join(' AND '));
  return {
    name: spec.name,
    part: 'network',
    tables: [spec.table],
    deltaTables: [
      {
        name: delta,
        columns: [...keys.map((k) => `${k} ${spec.keys[k]}`), ...spec.counts.map((c) => `${c} int`)].join(', '),
        rows: spec.rows,
        direct: true,
      },
    ],
    async apply(db, { chain, fresh }) {
      if (fresh.has(spec.name)) return; // copied straight in
      await db.query(
        `rollups.${spec.name}.apply`,
        sql`INSERT INTO ${raw(spec.table)} AS r (chain, ${list}) SELECT ${chain}, ${list} FROM ${raw(delta)}
            ON CONFLICT (chain, ${raw(keys.join(', '))}) DO UPDATE SET
            ${raw(spec.counts.map((c) => `${c} = r.${c} + excluded.${c}`).join(', '))}`,
      );
    },
    async revert(db, { chain }) {
      await db.query(
        `rollups.${spec.name}.revert`,
        sql`UPDATE ${raw(spec.table)} r SET ${raw(spec.counts.map((c) => `${c} = r.${c} - d.${c}`).join(', '))}
            FROM ${raw(delta)} d WHERE r.chain = ${chain} AND ${onKeys}`,
      );
      await db.query(
        `rollups.${spec.name}.remove_empty`,
        sql`DELETE FROM ${raw(spec.table)} r USING ${raw(delta)} d
            WHERE r.chain = ${chain} AND ${onKeys} AND ${raw(spec.counts.map((c) => `r.${c} = 0`).join(' AND '))}`,
      );
    },
    async clearTouched(db, chain, { days }) {
      const dayKey = spec.dayKey ?? 'day';
      const inDays = dayKey === 'day' ? sql`day = ANY(${days}::date[])` : sql`(DATE '1970-01-01' + (${raw(dayKey)} / 24)::int) = ANY(${days}::date[])`;
      await db.query(`refresh.clear_${spec.name}`, sql`DELETE FROM ${raw(spec.table)} WHERE chain = ${chain} AND ${inDays}`);
    },
  };
}

function* perDay<K, V>(deltas: RollupDeltas, pick: (figures: ChainDayDelta) => Map<K, V>, row: (day: string, key: K, value: V) => CopyValue[]) {
  for (const [day, figures] of deltas.chainDaily) for (const [key, value] of pick(figures)) yield row(day, key, value);
}

export const txTypes = keyedSums({
  name: 'chain_tx_types',
  table: 'chain_tx_types',
  keys: { day: 'date', tx_type: 'text' },
  counts: ['tx_count'],
  rows: (deltas) => perDay(deltas, (c) => c.txTypes, (day, type, n) => [day, type, n]),
});

export const gasBuckets = keyedSums({
  name: 'chain_gas_buckets',
  table: 'chain_gas_buckets',
  keys: { day: 'date', bucket: 'smallint' },
  counts: ['tx_count'],
  rows: (deltas) => perDay(deltas, (c) => c.gasBuckets, (day, bucket, n) => [day, bucket, n]),
});

export const feeValues = keyedSums({
  name: 'chain_fee_values',
  table: 'chain_fee_values',
  keys: { day: 'date', fee: 'numeric' },
  counts: ['tx_count'],
  rows: (deltas) => perDay(deltas, (c) => c.fees, (day, fee, n) => [day, fee, n]),
});

export const hourly = keyedSums({
  name: 'chain_hourly',
  table: 'chain_hourly',
  keys: { hour: 'bigint' },
  counts: ['block_count', 'tx_count'],
  rows: function* (deltas) {
    for (const [hour, h] of deltas.chainHourly) yield [hour, h.blockCount, h.txCount];
  },
  dayKey: 'hour',
});

