/**
 * GET /api/v1/analytics/fees/percentiles: exact nearest-rank fee percentiles per day, with the
 * largest fee and the sum (docs/metrics.md, "Fee percentiles"). Closed days are read from the
 * chart; the days after the last closed one (the open day) from the day's fee multiset.
 */
import sql from 'sql-template-tag';
import { Type } from 'typebox';
import { feePercentilesByDay } from '../../../rollups/charts/fees/fee-percentiles.ts';
import { addDays } from '../../../time.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Amount, Day, STANDARD_ERRORS } from '../../schemas/common.ts';
import { SeriesQuery, seriesWindow, zeroFill } from '../series.ts';

const FeeDayFields = {
  day: Day,
  tx_count: Type.Integer({ description: 'Transactions of the day (each pays one fee).' }),
  fee_p50: { ...Amount, description: 'Median fee: the smallest fee with at least half of the day’s fees at or below it.' },
  fee_p95: { ...Amount, description: 'The smallest fee with at least 95 % of the day’s fees at or below it.' },
  fee_p99: { ...Amount, description: 'The smallest fee with at least 99 % of the day’s fees at or below it.' },
  fee_max: { ...Amount, description: 'Largest fee of the day.' },
  fee_sum: { ...Amount, description: 'Sum of the day’s fees.' },
};

const FeePercentilesResponse = Type.Object({
  items: Type.Array(Type.Object(FeeDayFields), { description: 'One item per UTC day, oldest first, to the latest block’s day; zeros on a day without transactions. Fees in the chain’s smallest unit (pos: gas used × effective gas price).' }),
  count: Type.Integer(),
  chain: Type.String(),
  network: Type.String(),
  window_days: Type.Integer(),
});

interface FeeDay {
  day: string;
  tx_count: number;
  fee_p50: string;
  fee_p95: string;
  fee_p99: string;
  fee_max: string;
  fee_sum: string;
}

export function feePercentilesRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/analytics/fees/percentiles',
    {
      schema: {
        tags: ['analytics'],
        operationId: 'getFeePercentiles',
        summary: 'Exact fee percentiles, largest fee and sum per day',
        querystring: SeriesQuery('30d'),
        response: { 200: FeePercentilesResponse, ...STANDARD_ERRORS },
      },
    },
    async (request) => {
      const chain = request.query.chain ?? 'pos';
      const { days, range } = await seriesWindow(ctx.store, chain, request.query.window, '30d');
      const envelope = { chain, network: ctx.network(chain), window_days: days };
      if (!range) return { items: [], count: 0, ...envelope };
      const closed = await ctx.store.query<FeeDay>(
        'analytics.fee_percentiles.closed',
        sql`SELECT day::text AS day, tx_count, fee_p50::text, fee_p95::text, fee_p99::text, fee_max::text, fee_sum::text
            FROM chain_fee_daily WHERE chain = ${chain} AND day BETWEEN ${range.from}::date AND ${range.to}::date ORDER BY day`,
        { reusePlan: true }, // a primary-key range
      );
      const rows = new Map(closed.map((r) => [r.day, r]));
      const openFrom = closed.length > 0 ? addDays(closed.at(-1)!.day, 1) : range.from;
      if (openFrom <= range.to) {
        const open = await ctx.store.query<FeeDay>(
          'analytics.fee_percentiles.open',
          sql`SELECT day::text AS day, tx_count, fee_p50::text, fee_p95::text, fee_p99::text, fee_max::text, fee_sum::text
              FROM (${feePercentilesByDay(chain, openFrom, range.to)}) f`,
        );
        for (const r of open) rows.set(r.day, r);
      }
      const zero = (day: string): FeeDay => ({ day, tx_count: 0, fee_p50: '0', fee_p95: '0', fee_p99: '0', fee_max: '0', fee_sum: '0' });
      const items = zeroFill(range, rows, zero);
      return { items, count: items.length, ...envelope };
    },
  );
}
