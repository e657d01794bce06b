/** GET /api/v1/analytics/whales/heatmap: per day, the whales that moved value and what they sent (docs/metrics.md, "Whales"). */
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Amount, Day, STANDARD_ERRORS, WindowQuery } from '../../schemas/common.ts';
import { AnalyticsChain, seriesWindow, zeroFill } from '../series.ts';
import { flowDays, ThresholdFields, thresholdEcho, ThresholdPctQuery, whaleSet, whaleThreshold } from './whales.ts';

const HeatmapQuery = Type.Object({
  chain: AnalyticsChain,
  threshold_pct: ThresholdPctQuery,
  window: WindowQuery('90d', 'Window: whole UTC days ending with the latest block’s day (a length rounds up to days)'),
});

const HeatmapItem = Type.Object({
  day: Day,
  movers: Type.Integer({ description: 'Whales (exchanges excluded) that sent native value that day.' }),
  volume: { ...Amount, description: 'Native value those whales sent that day.' },
  intensity: Type.Number({ description: 'movers / max_movers, 0 to 1 (0 when max_movers is 0).' }),
});

const HeatmapResponse = Type.Object({
  items: Type.Array(HeatmapItem, { description: 'One item per day of the window (clipped to the indexed history), oldest first, zero-filled.' }),
  count: Type.Integer(),
  chain: Type.String(),
  network: Type.String(),
  days: Type.Integer({ description: 'Days in the window.' }),
  max_movers: Type.Integer({ description: 'The largest movers of the window’s days.' }),
  ...ThresholdFields,
});

export function whalesHeatmapRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/analytics/whales/heatmap',
    {
      schema: {
        tags: ['analytics'],
        operationId: 'getWhalesHeatmap',
        summary: 'Whales moving value per day: movers, volume and intensity',
        querystring: HeatmapQuery,
        response: { 200: HeatmapResponse, ...STANDARD_ERRORS },
      },
    },
    async (request) => {
      const chain = request.query.chain ?? 'pos';
      const [{ days, range }, threshold] = await Promise.all([
        seriesWindow(ctx.store, chain, request.query.window, '90d'),
        whaleThreshold(ctx.store, chain, request.query.threshold_pct),
      ]);
      const envelope = { chain, network: ctx.network(chain), days, ...thresholdEcho(threshold) };
      if (!range) return { items: [], count: 0, max_movers: 0, ...envelope };
      const whales = await whaleSet(ctx.store, chain, threshold.amount, { withoutExchanges: true });
      const flows = await flowDays(ctx.store, chain, whales.map((w) => w.address), range.from, range.to);
      const byDay = new Map<string, { day: string; movers: number; volume: bigint }>();
      for (const whaleDays of flows.values()) {
        for (const d of whaleDays) {
          if (d.sent <= 0n) continue;
          const entry = byDay.get(d.day) ?? { day: d.day, movers: 0, volume: 0n };
          entry.movers++;
          entry.volume += d.sent;
          byDay.set(d.day, entry);
        }
      }
      const filled = zeroFill(range, byDay, (day) => ({ day, movers: 0, volume: 0n }));
      const maxMovers = Math.max(0, ...filled.map((d) => d.movers));
      const items = filled.map((d) => ({ day: d.day, movers: d.movers, volume: d.volume.toString(), intensity: maxMovers === 0 ? 0 : d.movers / maxMovers }));
      return { items, count: items.length, max_movers: maxMovers, ...envelope };
    },
  );
}
