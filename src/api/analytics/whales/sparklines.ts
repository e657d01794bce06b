/** GET /api/v1/analytics/whales/sparklines: daily end-of-day balances of the richest whales (docs/metrics.md, "Whales"). */
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Amount, Day, IntegerQuery, STANDARD_ERRORS, WindowQuery } from '../../schemas/common.ts';
import { AnalyticsChain, seriesWindow } from '../series.ts';
import { endOfDayBalances, flowDays, ThresholdFields, thresholdEcho, ThresholdPctQuery, type FlowDay, whaleSet, whaleThreshold } from './whales.ts';

const SparklinesQuery = Type.Object({
  chain: AnalyticsChain,
  limit: IntegerQuery({ minimum: 1, maximum: 100, default: 25, description: 'Whales (1 to 100), richest first.' }),
  threshold_pct: ThresholdPctQuery,
  window: WindowQuery('30d', 'Window: whole UTC days ending with the latest block’s day (a length rounds up to days)'),
});

const SparklineItem = Type.Object({
  address: Type.String(),
  series: Type.Array(Type.Object({ day: Day, balance: { ...Amount, description: 'Balance at the end of the day.' } }), {
    description: 'One point per day of the window (clipped to the indexed history), oldest first.',
  }),
});

const SparklinesResponse = Type.Object({
  items: Type.Array(SparklineItem, { description: 'Richest whale first (ties by address).' }),
  count: Type.Integer(),
  chain: Type.String(),
  network: Type.String(),
  days: Type.Integer({ description: 'Days in the window.' }),
  ...ThresholdFields,
});

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
  app.get(
    '/analytics/whales/sparklines',
    {
      schema: {
        tags: ['analytics'],
        operationId: 'getWhalesSparklines',
        summary: 'Daily balances of the richest whales over the window',
        querystring: SparklinesQuery,
        response: { 200: SparklinesResponse, ...STANDARD_ERRORS },
      },
    },
    async (request) => {
      const chain = request.query.chain ?? 'pos';
      const [{ days, range }, threshold] = await Promise.all([
        seriesWindow(ctx.store, chain, request.query.window, '30d'),
        whaleThreshold(ctx.store, chain, request.query.threshold_pct),
      ]);
      const whales = range ? await whaleSet(ctx.store, chain, threshold.amount, { limit: request.query.limit }) : [];
      // Days after the window's first one move the balances back from the current ones.
      const flows = range ? await flowDays(ctx.store, chain, whales.map((w) => w.address), range.from, range.to) : new Map<string, FlowDay[]>();
      const items = range
        ? whales.map((w) => ({
            address: w.address,
            series: endOfDayBalances(w.balance, flows.get(w.address), range.from, range.to).map(balanceText()),
          }))
        : [];
      return { items, count: items.length, chain, network: ctx.network(chain), days, ...thresholdEcho(threshold) };
    },
  );
}
