/** GET /api/v1/analytics/whales/movers: the whales that gained and shed the most over the window (docs/metrics.md, "Whales"). */
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Amount, IntegerQuery } from '../../schemas/common.ts';
import { analyticsRoute, envelope } from '../route.ts';
import { windowDaysOf } from '../series.ts';
import { netOf, SignedAmount, ThresholdFields, thresholdEcho, WhaleQuery, whaleWindow, whaleWindowQuery } from './whales.ts';

const Mover = Type.Object({
  address: Type.String(),
  balance: Amount,
  net_flow: { ...SignedAmount, description: 'Balance change over the window.' },
});

export function whalesMoversRoute(app: RouteApp, ctx: ApiContext): void {
  analyticsRoute(app, {
    path: '/analytics/whales/movers',
    operationId: 'getWhalesMovers',
    summary: 'Whales with the largest net inflows and outflows over the window',
    query: WhaleQuery({ limit: IntegerQuery({ minimum: 1, maximum: 50, default: 10, description: 'Whales per list (1 to 50).' }), window: whaleWindowQuery('7d') }),
    response: Type.Object({
      accumulators: Type.Array(Mover, { description: 'Largest positive net flows first (exchanges excluded).' }),
      distributors: Type.Array(Mover, { description: 'Most negative net flows first (exchanges excluded).' }),
      ...envelope('chain', 'network'),
      window_days: Type.Integer({ description: 'Days in the window.' }),
      ...ThresholdFields,
    }),
    handler: async ({ query, chain }) => {
      const days = windowDaysOf(query.window, { fallback: '7d' });
      const { threshold, whales, flows } = await whaleWindow(ctx.store, chain, { pct: query.threshold_pct, days, set: { withoutExchanges: true } });
      const moved = whales.map((w) => ({ address: w.address, balance: w.balance, net: netOf(flows.get(w.address)) }));
      const byAddress = (a: { address: string }, b: { address: string }) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0);
      const item = (m: (typeof moved)[number]) => ({ address: m.address, balance: m.balance.toString(), net_flow: m.net.toString() });
      const limit = query.limit;
      const accumulators = moved.filter((m) => m.net > 0n).sort((a, b) => (a.net === b.net ? byAddress(a, b) : a.net > b.net ? -1 : 1)).slice(0, limit).map(item);
      const distributors = moved.filter((m) => m.net < 0n).sort((a, b) => (a.net === b.net ? byAddress(a, b) : a.net < b.net ? -1 : 1)).slice(0, limit).map(item);
      return { accumulators, distributors, chain, network: ctx.network(chain), window_days: days, ...thresholdEcho(threshold) };
    },
  });
}
