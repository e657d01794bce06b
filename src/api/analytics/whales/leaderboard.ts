/** GET /api/v1/analytics/whales/leaderboard: the richest whales (docs/metrics.md, "Whales"). */
import { Type } from 'typebox';
import { addDays, formatDay } from '../../../time.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Amount, IntegerQuery, Nullable, STANDARD_ERRORS } from '../../schemas/common.ts';
import { AnalyticsChain, chainSpan } from '../series.ts';
import { flowDays, netOf, SignedAmount, ThresholdFields, thresholdEcho, ThresholdPctQuery, type FlowDay, whaleSet, whaleThreshold, whaleTimestampOrNull, WhaleTimestamp } from './whales.ts';

const LeaderboardQuery = Type.Object({
  chain: AnalyticsChain,
  limit: IntegerQuery({ minimum: 1, maximum: 200, default: 50, description: 'Whales (1 to 200).' }),
  threshold_pct: ThresholdPctQuery,
});

const LeaderboardItem = Type.Object({
  rank: Type.Integer({ description: '1 for the richest whale.' }),
  address: Type.String(),
  balance: Amount,
  tx_count: Type.Integer({ description: 'Logical transactions touching the address.' }),
  last_seen: Nullable({ ...WhaleTimestamp, description: 'Time of its latest transaction; null without one.' }),
  delta_7d: { ...SignedAmount, description: 'Net flow of the 7 UTC days ending with the latest block’s day.' },
});

const LeaderboardResponse = Type.Object({
  items: Type.Array(LeaderboardItem, { description: 'Richest first (ties by address).' }),
  count: Type.Integer(),
  chain: Type.String(),
  network: Type.String(),
  ...ThresholdFields,
});

export function whalesLeaderboardRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/analytics/whales/leaderboard',
    {
      schema: {
        tags: ['analytics'],
        operationId: 'getWhalesLeaderboard',
        summary: 'The richest whales with their activity and 7-day net flow',
        querystring: LeaderboardQuery,
        response: { 200: LeaderboardResponse, ...STANDARD_ERRORS },
      },
    },
    async (request) => {
      const chain = request.query.chain ?? 'pos';
      const [threshold, span] = await Promise.all([whaleThreshold(ctx.store, chain, request.query.threshold_pct), chainSpan(ctx.store, chain)]);
      const whales = span ? await whaleSet(ctx.store, chain, threshold.amount, { limit: request.query.limit }) : [];
      const to = span ? formatDay(span.tipTs) : '';
      const flows = span ? await flowDays(ctx.store, chain, whales.map((w) => w.address), addDays(to, -6), to) : new Map<string, FlowDay[]>();
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
  );
}
