/** GET /api/v1/analytics/gas-distribution: pos transactions per day in seven gas buckets (docs/metrics.md, "Gas distribution"). */
import sql from 'sql-template-tag';
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Day, STANDARD_ERRORS } from '../../schemas/common.ts';
import { chainSpan, dayRange, SeriesQuery, windowDaysOf, zeroFill } from '../series.ts';

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

const GasDistributionItem = Type.Object({
  day: Day,
  bucket: Type.Integer({ minimum: 0, maximum: 6 }),
  bucket_label: Type.String(),
  bucket_count: Type.Integer({ description: 'Transactions of the day in the bucket.' }),
});

const GasDistributionResponse = Type.Object({
  items: Type.Array(GasDistributionItem, { description: 'For each UTC day of the window (oldest first, to the latest block’s day) the seven buckets in order, zero where none; empty on pow, which has no gas.' }),
  count: Type.Integer(),
  network: Type.String(),
  window_days: Type.Integer(),
  buckets: Type.Array(Type.Object({ id: Type.Integer(), label: Type.String(), meaning: Type.String() })),
});

export function gasDistributionRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/analytics/gas-distribution',
    {
      schema: {
        tags: ['analytics'],
        operationId: 'getGasDistribution',
        summary: 'pos transactions per day by gas bucket',
        querystring: SeriesQuery('30d'),
        response: { 200: GasDistributionResponse, ...STANDARD_ERRORS },
      },
    },
    async (request) => {
      const chain = request.query.chain ?? 'pos';
      const days = windowDaysOf(request.query.window, { fallback: '30d' });
      const envelope = { network: ctx.network(chain), window_days: days, buckets: GAS_BUCKETS.map((b) => ({ ...b })) };
      const span = chain === 'pos' ? await chainSpan(ctx.store, chain) : null;
      if (!span) return { items: [], count: 0, ...envelope };
      const range = dayRange(span, days);
      const rows = await ctx.store.query<{ day: string; bucket: number; tx_count: number }>(
        'analytics.gas_buckets',
        sql`SELECT day::text AS day, bucket, tx_count FROM chain_gas_buckets
            WHERE chain = ${chain} AND day BETWEEN ${range.from}::date AND ${range.to}::date`,
        { reusePlan: true }, // a primary-key range
      );
      const byDay = new Map<string, { day: string; counts: number[] }>();
      for (const r of rows) {
        if (!byDay.has(r.day)) byDay.set(r.day, { day: r.day, counts: GAS_BUCKETS.map(() => 0) });
        byDay.get(r.day)!.counts[r.bucket] = r.tx_count;
      }
      const items = zeroFill(range, byDay, (day) => ({ day, counts: GAS_BUCKETS.map(() => 0) })).flatMap(({ day, counts }) =>
        GAS_BUCKETS.map((b) => ({ day, bucket: b.id, bucket_label: b.label, bucket_count: counts[b.id]! })),
      );
      return { items, count: items.length, ...envelope };
    },
  );
}
