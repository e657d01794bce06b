/**
 * Per-day breakdowns of a chain's transactions, each a sum keyed by (day, key): transactions per
 * type, per gas bucket, per fee paid (the day's exact fee multiset) and per UTC hour. Revert
 * subtracts and drops rows that fall to zero; nothing needs repair.
 */
import sql, { join, raw } from 'sql-template-tag';
import type { CanonicalTx } from '../../chain/model.ts';
import type { CopyValue } from '../../store/copy.ts';
import { dayName, dayNumber } from '../../time.ts';
import { allOf, type DeltaReducer, type StepScope, type StepTx } from '../engine/reducer.ts';
import type { Rollup } from '../engine/rollup.ts';

/**
 * A sum table: `table` (chain, `keys`…, `counts`…) with `counts` added per key, from its delta
 * table, whose rows its own reducer (`deltas`) adds up over the step.
 */
interface KeyedSum<A = unknown> {
  name: string;
  table: string;
  keys: Record<string, string>;
  counts: readonly string[];
  deltas: DeltaReducer<A>;
  rows: (acc: A) => Iterable<CopyValue[]>;
  /** The column holding the day, for a partial refresh. */
  dayKey?: string;
}

/**
 * One rollup for sum tables filled from the same blocks: one statement merges them all (a
 * followed block paid a round trip for each). The first table must gain rows from every block
 * (the engine asks it whether the rollup holds rows of the chain: if it holds none, neither does
 * any other, and each goes in by a plain copy).
 */
function keyedSums(name: string, sums: readonly KeyedSum[]): Rollup<unknown[]> {
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
    deltas: allOf(sums.map((spec) => spec.deltas)),
    deltaTables: sums.map((spec, i) => ({
      name: `delta_${spec.name}`,
      columns: [...Object.keys(spec.keys).map((k) => `${k} ${spec.keys[k]}`), ...spec.counts.map((c) => `${c} int`)].join(', '),
      rows: (accs: unknown[]) => spec.rows(accs[i]),
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

/** Transactions per day ('YYYY-MM-DD', of the kept days) and key; `keyOf` gives a transaction's key, or null for none. */
function perDayCounts<K>(keyOf: (t: StepTx, scope: StepScope) => K | null): DeltaReducer<{ scope: StepScope; days: Map<string, Map<K, number>> }> {
  return {
    start: (scope) => ({ scope, days: new Map() }),
    tx(acc, t) {
      const key = keyOf(t, acc.scope);
      if (key === null) return;
      const day = dayName(t.day);
      let counts = acc.days.get(day);
      if (!counts) {
        counts = new Map();
        if (!acc.scope.keepsDay(day)) return;
        acc.days.set(day, counts);
      }
      counts.set(key, (counts.get(key) ?? 0) + 1);
    },
  };
}

function* perDay<K>(days: Map<string, Map<K, number>>): Generator<CopyValue[]> {
  for (const [day, counts] of days) for (const [key, n] of counts) yield [day, key as CopyValue, n];
}

/**
 * The gas bucket of a pos transaction (docs/metrics.md, "Gas distribution"), first match wins:
 * 6 one million gas or more; 5 a deployment; 0 a simple value transfer; 3 a contract swap (two or
 * more token movements); 1 a token transfer (one); 4 a complex contract call (100,000 gas or more);
 * 2 any other contract call.
 */
export function gasBucket(tx: CanonicalTx): number {
  const gas = tx.gasUsed ?? 0;
  if (gas >= 1_000_000) return 6;
  if (tx.type === 'contract_create') return 5;
  if (tx.type === 'transfer') return 0;
  if (tx.tokenTransfers.length >= 2) return 3;
  if (tx.tokenTransfers.length === 1) return 1;
  if (gas >= 100_000) return 4;
  return 2;
}

const txTypes: KeyedSum<{ days: Map<string, Map<string, number>> }> = {
  name: 'chain_tx_types',
  table: 'chain_tx_types',
  keys: { day: 'date', tx_type: 'text' },
  counts: ['tx_count'],
  deltas: perDayCounts(({ tx }) => tx.type),
  rows: (acc) => perDay(acc.days),
};

const gasBuckets: KeyedSum<{ days: Map<string, Map<number, number>> }> = {
  name: 'chain_gas_buckets',
  table: 'chain_gas_buckets',
  keys: { day: 'date', bucket: 'smallint' },
  counts: ['tx_count'],
  deltas: perDayCounts(({ tx }, { chain }) => (chain === 'pos' ? gasBucket(tx) : null)),
  rows: (acc) => perDay(acc.days),
};

/** Every fee of the day, as fee → transactions paying it: exact percentiles need the whole multiset. */
const feeValues: KeyedSum<{ days: Map<string, Map<bigint, number>> }> = {
  name: 'chain_fee_values',
  table: 'chain_fee_values',
  keys: { day: 'date', fee: 'numeric' },
  counts: ['tx_count'],
  deltas: perDayCounts(({ tx }) => tx.fee),
  rows: (acc) => perDay(acc.days),
};

interface HourCounts {
  scope: StepScope;
  /** hours since 1970-01-01 → counts */
  hours: Map<number, { blockCount: number; txCount: number }>;
}

function hourOf(acc: HourCounts, ts: number): { blockCount: number; txCount: number } {
  const hour = Math.floor(ts / 3600);
  let h = acc.hours.get(hour);
  if (!h) {
    h = { blockCount: 0, txCount: 0 };
    if (acc.scope.keepsDay(dayName(dayNumber(ts)))) acc.hours.set(hour, h);
  }
  return h;
}

/** Per chain and UTC hour: what hourly rates and the busiest hour read. */
const hourly: KeyedSum<HourCounts> = {
  name: 'chain_hourly',
  table: 'chain_hourly',
  keys: { hour: 'bigint' },
  counts: ['block_count', 'tx_count'],
  deltas: {
    start: (scope) => ({ scope, hours: new Map() }),
    tx(acc, { ts }) {
      hourOf(acc, ts).txCount++;
    },
    block(acc, { ts }) {
      hourOf(acc, ts).blockCount++;
    },
  },
  rows: function* (acc) {
    for (const [hour, h] of acc.hours) yield [hour, h.blockCount, h.txCount];
  },
  dayKey: 'hour',
};

/** Every block adds to chain_hourly (its block count): it goes first. */
export const dayBreakdowns = keyedSums('chain_day_breakdowns', [hourly, txTypes, gasBuckets, feeValues] as KeyedSum[]);
