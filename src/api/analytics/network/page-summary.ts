/** GET /api/v1/analytics/network/page-summary: the network page's headline figures (docs/metrics.md, "Network activity"). */
import sql from 'sql-template-tag';
import { Type } from 'typebox';
import type { ChainId } from '../../../chain/chains.ts';
import type { Db } from '../../../store/store.ts';
import { addDays, formatDay } from '../../../time.ts';
import { percentOf } from '../../amounts.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { analyticsRoute } from '../route.ts';
import { Nullable } from '../../schemas/common.ts';
import { AnalyticsChain, chainSpan } from '../series.ts';
import { activeAddresses, NO_ACTIVITY } from '../../../rollups/charts/network/active-addresses.ts';

/** Days each transaction count covers; the summary compares two such spans. */
const SPAN_DAYS = 30;

const PageSummary = Type.Object({
  chain: Type.String(),
  network: Type.String(),
  dau_yesterday: Type.Integer({ description: 'Active addresses of the last closed UTC day (the day before the latest block’s day); 0 before that day.' }),
  mau_proxy: Type.Integer({ description: 'Distinct active addresses over the 30 UTC days ending with the latest block’s day.' }),
  tx_count_30d: Type.Integer({ description: 'Transactions (all types) of the 30 UTC days ending with the latest block’s day.' }),
  tx_count_prior_30d: Type.Integer({ description: 'Transactions of the 30 UTC days before those.' }),
  tx_count_delta_pct: Nullable(Type.Number({ description: 'Change from the prior 30 days to the latest 30, in percent; null when the prior 30 days have no transactions.' })),
  is_sparse: Type.Boolean({ description: 'The indexed history is shorter than the 60 days the counts compare.' }),
});

async function txCounts(db: Db, chain: ChainId, tipDay: string): Promise<{ recent: bigint; prior: bigint }> {
  const split = addDays(tipDay, 1 - SPAN_DAYS);
  const [row] = await db.query<{ recent: string; prior: string }>(
    'analytics.page_summary.tx_counts',
    sql`SELECT coalesce(sum(tx_count) FILTER (WHERE day >= ${split}::date), 0)::text AS recent,
               coalesce(sum(tx_count) FILTER (WHERE day < ${split}::date), 0)::text AS prior
        FROM chain_daily WHERE chain = ${chain} AND day BETWEEN ${addDays(split, -SPAN_DAYS)}::date AND ${tipDay}::date`,
    { reusePlan: true }, // a primary-key range
  );
  return { recent: BigInt(row?.recent ?? 0), prior: BigInt(row?.prior ?? 0) };
}

export function pageSummaryRoute(app: RouteApp, ctx: ApiContext): void {
  analyticsRoute(app, {
    path: '/analytics/network/page-summary',
    operationId: 'getNetworkPageSummary',
    summary: 'Yesterday’s active addresses, 30-day active addresses and the 30-day transaction trend',
    query: Type.Object({ chain: AnalyticsChain }),
    response: PageSummary,
    handler: async ({ chain }) => {
      const head = { chain, network: ctx.network(chain) };
      const span = await chainSpan(ctx.store, chain);
      if (!span) {
        return { ...head, dau_yesterday: 0, mau_proxy: 0, tx_count_30d: 0, tx_count_prior_30d: 0, tx_count_delta_pct: null, is_sparse: true };
      }
      const tipDay = formatDay(span.tipTs);
      const firstDay = formatDay(span.firstTs);
      const yesterday = addDays(tipDay, -1);
      const [active, tx] = await Promise.all([
        activeAddresses.read!(ctx.store, chain, { from: yesterday < firstDay ? tipDay : yesterday, to: tipDay }),
        txCounts(ctx.store, chain, tipDay),
      ]);
      return {
        ...head,
        dau_yesterday: (active.get(yesterday) ?? NO_ACTIVITY).dau,
        mau_proxy: (active.get(tipDay) ?? NO_ACTIVITY).mau,
        tx_count_30d: Number(tx.recent),
        tx_count_prior_30d: Number(tx.prior),
        tx_count_delta_pct: tx.prior > 0n ? percentOf(tx.recent - tx.prior, tx.prior) : null,
        is_sparse: firstDay > addDays(tipDay, 1 - 2 * SPAN_DAYS),
      };
    },
  });
}
