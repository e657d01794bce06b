/** GET /api/v1/analytics/gas-distribution: pos transactions per day in seven gas buckets (docs/metrics.md, "Gas distribution"). */
import sql from 'sql-template-tag';
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { blockSpan, dailySeries, dayItem, envelope } from '../route.ts';
import { dayCounts, noCounts } from '../series.ts';

/** The buckets as rollups/engine/deltas.ts `gasBucket` assigns them (first match in the order of the rule there). */
const GAS_BUCKETS = [
  { id: 0, label: 'simple value transfer', meaning: 'A plain transfer of native value (no contract code runs).' },
  { id: 1, label: 'token transfer', meaning: 'A contract call under 1M gas that moved exactly one token.' },
  { id: 2, label: 'contract call', meaning: 'A contract call under 100,000 gas that moved no token.' },
  { id: 3, label: 'contract swap', meaning: 'A contract call under 1M gas that moved two or more tokens (a swap or a multi-token transfer).' },
  { id: 4, label: 'complex contract call', meaning: 'A contract call of 100,000 gas to under 1M that moved no token.' },
  { id: 5, label: 'deploy', meaning: 'A contract creation under 1M gas.' },
  { id: 6, label: '1M+ gas', meaning: 'Any transaction that used one million gas or more.' },
] as const;

export function gasDistributionRoute(app: RouteApp, ctx: ApiContext): void {
  dailySeries(app, ctx, {
    path: '/analytics/gas-distribution',
    operationId: 'getGasDistribution',
    summary: 'pos transactions per day by gas bucket',
    window: '30d',
    item: dayItem({
      bucket: Type.Integer({ minimum: 0, maximum: 6 }),
      bucket_label: Type.String(),
      bucket_count: Type.Integer({ description: 'Transactions of the day in the bucket.' }),
    }),
    itemsDescription: 'For each UTC day of the window (oldest first, to the latest block’s day) the seven buckets in order, zero where none; empty on pow, which has no gas.',
    envelope: {
      ...envelope('count', 'network', 'window_days'),
      buckets: Type.Array(Type.Object({ id: Type.Integer(), label: Type.String(), meaning: Type.String() })),
    },
    // pow has no gas: no days.
    span: (db, chain) => (chain === 'pos' ? blockSpan(db, chain) : Promise.resolve(null)),
    read: (range, { chain }) =>
      dayCounts(ctx.store, 'analytics.gas_buckets', sql`SELECT day::text AS day, bucket AS key, tx_count AS n FROM chain_gas_buckets
                                                        WHERE chain = ${chain} AND day BETWEEN ${range.from}::date AND ${range.to}::date`),
    missingDay: { zero: noCounts },
    items: (rows) =>
      rows.flatMap(({ day, counts }) => GAS_BUCKETS.map((b) => ({ day, bucket: b.id, bucket_label: b.label, bucket_count: counts.get(String(b.id)) ?? 0 }))),
    extra: () => ({ buckets: GAS_BUCKETS.map((b) => ({ ...b })) }),
  });
}
