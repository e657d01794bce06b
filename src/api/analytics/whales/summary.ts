/** GET /api/v1/analytics/whales/summary: the whales of a chain in one object (docs/metrics.md, "Whales"). */
import { Type } from 'typebox';
import { addDays, formatDay } from '../../../time.ts';
import { percentOf } from '../../amounts.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { analyticsRoute } from '../route.ts';
import { Amount, Nullable } from '../../schemas/common.ts';
import { AnalyticsChain, chainSpan } from '../series.ts';
import { BiggestTx, biggestTxs } from './biggest.ts';
import { flowDays, ThresholdFields, thresholdEcho, ThresholdPctQuery, type FlowDay, whaleSet, whaleThreshold } from './whales.ts';

const SummaryQuery = Type.Object({ chain: AnalyticsChain, threshold_pct: ThresholdPctQuery });

const SummaryResponse = Type.Object({
  chain: Type.String(),
  network: Type.String(),
  whale_threshold: ThresholdFields.whale_threshold,
  whale_count: Type.Integer(),
  total_whale_balance: Amount,
  total_supply: { ...Amount, description: 'Sum of the positive balances, sentinels excluded.' },
  whale_supply_pct: Type.Number({ description: '100 × total_whale_balance / total_supply (0 when the supply is 0).' }),
  avg_per_whale: { ...Amount, description: 'total_whale_balance ÷ whale_count, rounded down ("0" without whales).' },
  moved_whales_7d: Type.Integer({ description: 'Whales (exchanges excluded) that sent value in the 7 UTC days ending with the latest block’s day.' }),
  biggest_tx_30d: { ...Nullable(BiggestTx), description: 'The largest user transaction of the 30 UTC days ending with the latest block’s day (as /whales/biggest); null without one.' },
  is_sparse: Type.Boolean({ description: 'The indexed history is shorter than 30 days, or the chain has no block.' }),
  threshold_pct: ThresholdFields.threshold_pct,
});

export function whalesSummaryRoute(app: RouteApp, ctx: ApiContext): void {
  analyticsRoute(app, {
    path: '/analytics/whales/summary',
    operationId: 'getWhalesSummary',
    summary: 'Whale count, holdings, supply share, recent movers and the biggest recent transaction',
    query: SummaryQuery,
    response: SummaryResponse,
    handler: async ({ query, chain }) => {
      const [threshold, span] = await Promise.all([whaleThreshold(ctx.store, chain, query.threshold_pct), chainSpan(ctx.store, chain)]);
      const whales = span ? await whaleSet(ctx.store, chain, threshold.amount) : [];
      const to = span ? formatDay(span.tipTs) : '';
      const movers = whales.filter((w) => !w.exchange).map((w) => w.address);
      const [flows, biggest] = span
        ? await Promise.all([flowDays(ctx.store, chain, movers, addDays(to, -6), to), biggestTxs(ctx.store, chain, { from: addDays(to, -29), to }, 1)])
        : [new Map<string, FlowDay[]>(), []];
      const total = whales.reduce((sum, w) => sum + w.balance, 0n);
      let moved = 0;
      for (const days of flows.values()) if (days.some((d) => d.sent > 0n)) moved++;
      const { whale_threshold, threshold_pct } = thresholdEcho(threshold);
      return {
        chain,
        network: ctx.network(chain),
        whale_threshold,
        whale_count: whales.length,
        total_whale_balance: total.toString(),
        total_supply: threshold.supply.toString(),
        whale_supply_pct: percentOf(total, threshold.supply),
        avg_per_whale: (whales.length === 0 ? 0n : total / BigInt(whales.length)).toString(),
        moved_whales_7d: moved,
        biggest_tx_30d: biggest[0] ?? null,
        is_sparse: !span || formatDay(span.firstTs) > addDays(to, -29),
        threshold_pct,
      };
    },
  });
}
