/** GET /api/v1/analytics/whales/sentiment: whether whales accumulated or distributed over the window (docs/metrics.md, "Whales"). */
import { Type } from 'typebox';
import { percentOf } from '../../amounts.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Amount } from '../../schemas/common.ts';
import { analyticsRoute, envelope } from '../route.ts';
import { windowDaysOf } from '../series.ts';
import { netOf, SignedAmount, ThresholdFields, thresholdEcho, WhaleQuery, whaleWindow, whaleWindowQuery } from './whales.ts';

export function whalesSentimentRoute(app: RouteApp, ctx: ApiContext): void {
  analyticsRoute(app, {
    path: '/analytics/whales/sentiment',
    operationId: 'getWhalesSentiment',
    summary: 'Net flow of the whales over the window: accumulating or distributing',
    query: WhaleQuery({ window: whaleWindowQuery('7d') }),
    response: Type.Object({
      ...envelope('chain', 'network'),
      days: Type.Integer({ description: 'Days in the window.' }),
      net_flow: { ...SignedAmount, description: 'Sum of the whales’ net flows over the window (exchanges excluded); positive = accumulating.' },
      net_flow_pct: Type.Number({ description: '100 × net_flow / total_whale_balance (0 when that is 0).' }),
      accumulators: Type.Integer({ description: 'Whales with a positive net flow.' }),
      distributors: Type.Integer({ description: 'Whales with a negative net flow.' }),
      whale_count: Type.Integer({ description: 'Whales measured (exchanges excluded).' }),
      total_whale_balance: { ...Amount, description: 'Their current balances.' },
      ...ThresholdFields,
    }),
    handler: async ({ query, chain }) => {
      const days = windowDaysOf(query.window, { fallback: '7d' });
      const { threshold, whales, flows } = await whaleWindow(ctx.store, chain, { pct: query.threshold_pct, days, set: { withoutExchanges: true } });
      let net = 0n;
      let total = 0n;
      let accumulators = 0;
      let distributors = 0;
      for (const w of whales) {
        const flow = netOf(flows.get(w.address));
        net += flow;
        total += w.balance;
        if (flow > 0n) accumulators++;
        if (flow < 0n) distributors++;
      }
      return {
        chain,
        network: ctx.network(chain),
        days,
        net_flow: net.toString(),
        net_flow_pct: percentOf(net, total),
        accumulators,
        distributors,
        whale_count: whales.length,
        total_whale_balance: total.toString(),
        ...thresholdEcho(threshold),
      };
    },
  });
}
