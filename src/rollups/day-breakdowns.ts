/**
 * Per-day breakdowns of a chain's transactions, each a sum keyed by (day, key): transactions per
 * type, per gas bucket, per fee paid (the day's exact fee multiset) and per UTC hour. Revert
 * subtracts and drops rows that fall to zero; nothing needs repair.
 */
import sql, { join, raw } from 'sql-template-tag';
import type { CopyValue } from '../store/copy.ts';
import type { ChainDayDelta, RollupDeltas } from './engine/deltas.ts';
import type { Rollup } from './engine/rollup.ts';

/** A sum table: `table` (chain, `keys`…, `counts`…) with `counts` added per key, from its delta table. */
interface KeyedSum {
  name: string;
  table: string;
  keys: Record<string, string>;
  counts: readonly string[];
  rows: (deltas: RollupDeltas) => Iterable<CopyValue[]>;
  /** The column holding the day, for a partial refresh. */
  dayKey?: string;
}

/**
 * One rollup for sum tables filled from the same blocks: one statement merges them all (a
 * followed block paid a round trip for each). The first table must gain rows from every block
 * (the engine asks it whether the rollup holds rows of the chain: if it holds none, neither does
 * any other, and each goes in by a plain copy).
 */
function keyedSums(name: string, sums: readonly KeyedSum[]): Rollup {
  // Identifiers below come from this file, never from input.
  const parts = sums.map((spec) => {
    const keys = Object.keys(spec.keys);
    return {
      spec,
      delta: raw(`delta_${spec.name}`),
      table: raw(spec.table),
      list: raw([...keys, ...spec.counts].join(', ')),
      keyList: raw(keys.join(', ')),
      onKeys: raw(keys.map((k) => `r.${k} = d.${k}`).join(' AND ')),
    };
  });
  return {
    name,
    part: 'network',
    tables: sums.map((spec) => spec.table),
    deltaTables: sums.map((spec) => ({
      name: `delta_${spec.name}`,
      columns: [...Object.keys(spec.keys).map((k) => `${k} ${spec.keys[k]}`), ...spec.counts.map((c) => `${c} int`)].join(', '),
      rows: spec.rows,
      direct: spec.table,
    })),
    async apply(db, { chain, fresh }) {
      if (fresh.has(name)) return; // copied straight in
      const merges = parts.map(
        ({ spec, delta, table, list, keyList }) =>
          sql`INSERT INTO ${table} AS r (chain, ${list}) SELECT ${chain}, ${list} FROM ${delta}
              ON CONFLICT (chain, ${keyList}) DO UPDATE SET ${raw(spec.counts.map((c) => `${c} = r.${c} + excluded.${c}`).join(', '))}`,
      );
      await db.query(`rollups.${name}.apply`, sql`WITH ${join(merges.slice(0, -1).map((merge, i) => sql`${raw(`m${i}`)} AS (${merge})`))} ${merges.at(-1)!}`);
    },
    async revert(db, { chain }) {
      for (const { spec, delta, table, onKeys } of parts) {
        await db.query(
          `rollups.${spec.name}.revert`,
          sql`UPDATE ${table} r SET ${raw(spec.counts.map((c) => `${c} = r.${c} - d.${c}`).join(', '))}
              FROM ${delta} d WHERE r.chain = ${chain} AND ${onKeys}`,
        );
        await db.query(
          `rollups.${spec.name}.remove_empty`,
          sql`DELETE FROM ${table} r USING ${delta} d
              WHERE r.chain = ${chain} AND ${onKeys} AND ${raw(spec.counts.map((c) => `r.${c} = 0`).join(' AND '))}`,
        );
      }
    },
    async clearTouched(db, chain, { days }) {
      for (const spec of sums) {
        const dayKey = spec.dayKey ?? 'day';
        const inDays = dayKey === 'day' ? sql`day = ANY(${days}::date[])` : sql`(DATE '1970-01-01' + (${raw(dayKey)} / 24)::int) = ANY(${days}::date[])`;
        await db.query(`refresh.clear_${spec.name}`, sql`DELETE FROM ${raw(spec.table)} WHERE chain = ${chain} AND ${inDays}`);
      }
    },
  };
}

function* perDay<K, V>(deltas: RollupDeltas, pick: (figures: ChainDayDelta) => Map<K, V>, row: (day: string, key: K, value: V) => CopyValue[]) {
  for (const [day, figures] of deltas.chainDaily) for (const [key, value] of pick(figures)) yield row(day, key, value);
}

const txTypes: KeyedSum = {
  name: 'chain_tx_types',
  table: 'chain_tx_types',
  keys: { day: 'date', tx_type: 'text' },
  counts: ['tx_count'],
  rows: (deltas) => perDay(deltas, (c) => c.txTypes, (day, type, n) => [day, type, n]),
};

const gasBuckets: KeyedSum = {
  name: 'chain_gas_buckets',
  table: 'chain_gas_buckets',
  keys: { day: 'date', bucket: 'smallint' },
  counts: ['tx_count'],
  rows: (deltas) => perDay(deltas, (c) => c.gasBuckets, (day, bucket, n) => [day, bucket, n]),
};

const feeValues: KeyedSum = {
  name: 'chain_fee_values',
  table: 'chain_fee_values',
  keys: { day: 'date', fee: 'numeric' },
  counts: ['tx_count'],
  rows: (deltas) => perDay(deltas, (c) => c.fees, (day, fee, n) => [day, fee, n]),
};

const hourly: KeyedSum = {
  name: 'chain_hourly',
  table: 'chain_hourly',
  keys: { hour: 'bigint' },
  counts: ['block_count', 'tx_count'],
  rows: function* (deltas) {
    for (const [hour, h] of deltas.chainHourly) yield [hour, h.blockCount, h.txCount];
  },
  dayKey: 'hour',
};

/** Every block adds to chain_hourly (its block count): it goes first. */
export const dayBreakdowns = keyedSums('chain_day_breakdowns', [hourly, txTypes, gasBuckets, feeValues]);
