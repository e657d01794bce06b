/** GET /api/v1/analytics/transactions/by-type: transactions per day and type (docs/metrics.md, "Transactions by type"). */
import sql from 'sql-template-tag';
import { Type } from 'typebox';
import { TX_TYPES } from '../../../chain/model.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Day, STANDARD_ERRORS } from '../../schemas/common.ts';
import { SeriesQuery, seriesWindow, zeroFill } from '../series.ts';

const ByTypeItem = Type.Object({
  day: Day,
  tx_type: Type.String({ description: 'pow: the transaction subtype (transfer, coinbase, latticePK, message, token, transfer_token, slave, multi_sig_create, multi_sig_spend, multi_sig_vote); pos: transfer, contract_call or contract_create.' }),
  tx_count: Type.Integer({ description: 'Transactions of the type that day (a multi-recipient transfer counts once).' }),
});

const ByTypeResponse = Type.Object({
  items: Type.Array(ByTypeItem, { description: 'For each UTC day of the window (oldest first, to the latest block’s day) one item per type of the chain, in the order above; zero where none.' }),
  count: Type.Integer(),
  chain: Type.String(),
  network: Type.String(),
  window_days: Type.Integer(),
});

export function transactionsByTypeRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/analytics/transactions/by-type',
    {
      schema: {
        tags: ['analytics'],
        operationId: 'getTransactionsByType',
        summary: 'Transactions per day and type',
        querystring: SeriesQuery('30d'),
        response: { 200: ByTypeResponse, ...STANDARD_ERRORS },
      },
    },
    async (request) => {
      const chain = request.query.chain ?? 'pos';
      const { days, range } = await seriesWindow(ctx.store, chain, request.query.window, '30d');
      const envelope = { chain, network: ctx.network(chain), window_days: days };
      if (!range) return { items: [], count: 0, ...envelope };
      const rows = await ctx.store.query<{ day: string; tx_type: string; tx_count: number }>(
        'analytics.by_type',
        sql`SELECT day::text AS day, tx_type, tx_count FROM chain_tx_types
            WHERE chain = ${chain} AND day BETWEEN ${range.from}::date AND ${range.to}::date`,
        { reusePlan: true }, // a primary-key range
      );
      const byDay = new Map<string, { day: string; counts: Map<string, number> }>();
      for (const r of rows) {
        if (!byDay.has(r.day)) byDay.set(r.day, { day: r.day, counts: new Map() });
        byDay.get(r.day)!.counts.set(r.tx_type, r.tx_count);
      }
      const items = zeroFill(range, byDay, (day) => ({ day, counts: new Map<string, number>() })).flatMap(({ day, counts }) =>
        TX_TYPES[chain].map((tx_type) => ({ day, tx_type, tx_count: counts.get(tx_type) ?? 0 })),
      );
      return { items, count: items.length, ...envelope };
    },
  );
}
