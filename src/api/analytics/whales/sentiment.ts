/** GET /api/v1/analytics/whales/sentiment: whether whales accumulated or distributed over the window (docs/metrics.md, "Whales"). */
import { Type } from 'typebox';
import { percentOf } from '../../amounts.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Amount, STANDARD_ERRORS, WindowQuery } from '../../schemas/common.ts';
import { AnalyticsChain, seriesWindow } from '../series.ts';
import { flowDays, netOf, SignedAmount, ThresholdFields, thresholdEcho, ThresholdPctQuery, type FlowDay, whaleSet, whaleThreshold } from './whales.ts';

const SentimentQuery = Type.Object({
  chain: AnalyticsChain,
  threshold_pct: ThresholdPctQuery,
  window: WindowQuery('7d', 'Window: whole UTC days ending with the latest block’s day (a length rounds up to days)'),
});

const SentimentResponse = Type.Object({
  chain: Type.String(),
  network: Type.String(),
  days: Type.Integer({ description: 'Days in the window.' }),
  net_flow: { ...SignedAmount, description: 'Sum of the whales’ net flows over the window (exchanges excluded); positive = accumulating.' },
  net_flow_pct: Type.Number({ description: '100 × net_flow / total_whale_balance (0 when that is 0).' }),
  accumulators: Type.Integer({ description: 'Whales with a positive net flow.' }),
  distributors: Type.Integer({ description: 'Whales with a negative net flow.' }),
  whale_count: Type.Integer({ description: 'Whales measured (exchanges excluded).' }),
  total_whale_balance: { ...Amount, description: 'Their current balances.' },
  ...ThresholdFields,
});

export function whalesSentimentRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/analytics/whales/sentiment',
    {
      schema: {
        tags: ['analytics'],
        operationId: 'getWhalesSentiment',
        summary: 'Net flow of the whales over the window: accumulating or distributing',
        querystring: SentimentQuery,
        response: { 200: SentimentResponse, ...STANDARD_ERRORS },
      },
    },
    async (request) => {
      const chain = request.query.chain ?? 'pos';
      const [{ days, range }, threshold] = await Promise.all([
        seriesWindow(ctx.store, chain, request.query.window, '7d'),
        whaleThreshold(ctx.store, chain, request.query.threshold_pct),
      ]);
      const whales = range ? await whaleSet(ctx.store, chain, threshold.amount, { withoutExchanges: true }) : [];
      const flows = range ? await flowDays(ctx.store, chain, whales.map((w) => w.address), range.from, range.to) : new Map<string, FlowDay[]>();
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
  );
}
