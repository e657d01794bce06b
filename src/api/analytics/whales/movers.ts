/** GET /api/v1/analytics/whales/movers: the whales that gained and shed the most over the window (docs/metrics.md, "Whales"). */
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Amount, IntegerQuery, STANDARD_ERRORS, WindowQuery } from '../../schemas/common.ts';
import { AnalyticsChain, seriesWindow } from '../series.ts';
import { flowDays, netOf, SignedAmount, ThresholdFields, thresholdEcho, ThresholdPctQuery, whaleSet, whaleThreshold } from './whales.ts';

const MoversQuery = Type.Object({
  chain: AnalyticsChain,
  limit: IntegerQuery({ minimum: 1, maximum: 50, default: 10, description: 'Whales per list (1 to 50).' }),
  threshold_pct: ThresholdPctQuery,
  window: WindowQuery('7d', 'Window: whole UTC days ending with the latest block’s day (a length rounds up to days)'),
});

const Mover = Type.Object({
  address: Type.String(),
  balance: Amount,
  net_flow: { ...SignedAmount, description: 'Balance change over the window.' },
});

const MoversResponse = Type.Object({
  accumulators: Type.Array(Mover, { description: 'Largest positive net flows first (exchanges excluded).' }),
  distributors: Type.Array(Mover, { description: 'Most negative net flows first (exchanges excluded).' }),
  chain: Type.String(),
  network: Type.String(),
  window_days: Type.Integer({ description: 'Days in the window.' }),
  ...ThresholdFields,
});

export function whalesMoversRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/analytics/whales/movers',
    {
      schema: {
        tags: ['analytics'],
        operationId: 'getWhalesMovers',
        summary: 'Whales with the largest net inflows and outflows over the window',
        querystring: MoversQuery,
        response: { 200: MoversResponse, ...STANDARD_ERRORS },
      },
    },
    async (request) => {
      const chain = request.query.chain ?? 'pos';
      const [{ days, range }, threshold] = await Promise.all([
        seriesWindow(ctx.store, chain, request.query.window, '7d'),
        whaleThreshold(ctx.store, chain, request.query.threshold_pct),
      ]);
      const envelope = { chain, network: ctx.network(chain), window_days: days, ...thresholdEcho(threshold) };
      if (!range) return { accumulators: [], distributors: [], ...envelope };
      const whales = await whaleSet(ctx.store, chain, threshold.amount, { withoutExchanges: true });
      const flows = await flowDays(ctx.store, chain, whales.map((w) => w.address), range.from, range.to);
      const moved = whales.map((w) => ({ address: w.address, balance: w.balance, net: netOf(flows.get(w.address)) }));
      const byAddress = (a: { address: string }, b: { address: string }) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0);
      const item = (m: (typeof moved)[number]) => ({ address: m.address, balance: m.balance.toString(), net_flow: m.net.toString() });
      const limit = request.query.limit;
      const accumulators = moved.filter((m) => m.net > 0n).sort((a, b) => (a.net === b.net ? byAddress(a, b) : a.net > b.net ? -1 : 1)).slice(0, limit).map(item);
      const distributors = moved.filter((m) => m.net < 0n).sort((a, b) => (a.net === b.net ? byAddress(a, b) : a.net < b.net ? -1 : 1)).slice(0, limit).map(item);
      return { accumulators, distributors, ...envelope };
    },
  );
}
