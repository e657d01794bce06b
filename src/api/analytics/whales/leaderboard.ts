/** GET /api/v1/analytics/whales/leaderboard: the richest whales (docs/metrics.md, "Whales"). */
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Amount, IntegerQuery, Nullable } from '../../schemas/common.ts';
import { analyticsRoute, envelope } from '../route.ts';
import { netOf, SignedAmount, ThresholdFields, thresholdEcho, WhaleQuery, whaleTimestampOrNull, WhaleTimestamp, whaleWindow } from './whales.ts';

export function whalesLeaderboardRoute(app: RouteApp, ctx: ApiContext): void {
  analyticsRoute(app, {
    path: '/analytics/whales/leaderboard',
    operationId: 'getWhalesLeaderboard',
    summary: 'The richest whales with their activity and 7-day net flow',
    query: WhaleQuery({ limit: IntegerQuery({ minimum: 1, maximum: 200, default: 50, description: 'Whales (1 to 200).' }) }),
    response: Type.Object({
      items: Type.Array(
        Type.Object({
          rank: Type.Integer({ description: '1 for the richest whale.' }),
          address: Type.String(),
          balance: Amount,
          tx_count: Type.Integer({ description: 'Logical transactions touching the address.' }),
          last_seen: Nullable({ ...WhaleTimestamp, description: 'Time of its latest transaction; null without one.' }),
          delta_7d: { ...SignedAmount, description: 'Net flow of the 7 UTC days ending with the latest block’s day.' },
        }),
        { description: 'Richest first (ties by address).' },
      ),
      ...envelope('count', 'chain', 'network'),
      ...ThresholdFields,
    }),
    handler: async ({ query, chain }) => {
      const { threshold, whales, flows } = await whaleWindow(ctx.store, chain, { pct: query.threshold_pct, days: 7, set: { limit: query.limit } });
      const items = whales.map((w, i) => ({
        rank: i + 1,
        address: w.address,
        balance: w.balance.toString(),
        tx_count: w.txCount,
        last_seen: whaleTimestampOrNull(w.lastSeen),
        delta_7d: netOf(flows.get(w.address)).toString(),
      }));
      return { items, count: items.length, chain, network: ctx.network(chain), ...thresholdEcho(threshold) };
    },
  });
}
