/** GET /api/v1/analytics/whales/sparklines: daily end-of-day balances of the richest whales (docs/metrics.md, "Whales"). */
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Amount, Day, IntegerQuery } from '../../schemas/common.ts';
import { analyticsRoute, envelope } from '../route.ts';
import { windowDaysOf } from '../series.ts';
import { endOfDayBalances, ThresholdFields, thresholdEcho, WhaleQuery, whaleWindow, whaleWindowQuery } from './whales.ts';

/** A day's point with its balance as text, converted again only when it changed (most days move nothing). */
function balanceText(): (point: { day: string; balance: bigint }) => { day: string; balance: string } {
  let last: bigint | null = null;
  let text = '';
  return ({ day, balance }) => {
    if (balance !== last) [last, text] = [balance, balance.toString()];
    return { day, balance: text };
  };
}

export function whalesSparklinesRoute(app: RouteApp, ctx: ApiContext): void {
  analyticsRoute(app, {
    path: '/analytics/whales/sparklines',
    operationId: 'getWhalesSparklines',
    summary: 'Daily balances of the richest whales over the window',
    query: WhaleQuery({ limit: IntegerQuery({ minimum: 1, maximum: 100, default: 25, description: 'Whales (1 to 100), richest first.' }), window: whaleWindowQuery('30d') }),
    response: Type.Object({
      items: Type.Array(
        Type.Object({
          address: Type.String(),
          series: Type.Array(Type.Object({ day: Day, balance: { ...Amount, description: 'Balance at the end of the day.' } }), {
            description: 'One point per day of the window (clipped to the indexed history), oldest first.',
          }),
        }),
        { description: 'Richest whale first (ties by address).' },
      ),
      ...envelope('count', 'chain', 'network'),
      days: Type.Integer({ description: 'Days in the window.' }),
      ...ThresholdFields,
    }),
    handler: async ({ query, chain }) => {
      const days = windowDaysOf(query.window, { fallback: '30d' });
      // Days after the window's first one move the balances back from the current ones.
      const { range, threshold, whales, flows } = await whaleWindow(ctx.store, chain, { pct: query.threshold_pct, days, set: { limit: query.limit } });
      const items = range
        ? whales.map((w) => ({ address: w.address, series: endOfDayBalances(w.balance, flows.get(w.address), range.from, range.to).map(balanceText()) }))
        : [];
      return { items, count: items.length, chain, network: ctx.network(chain), days, ...thresholdEcho(threshold) };
    },
  });
}
