/** GET /api/v1/analytics/whales/heatmap: per day, the whales that moved value and what they sent (docs/metrics.md, "Whales"). */
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Amount } from '../../schemas/common.ts';
import { dailySeries, dayItem, envelope } from '../route.ts';
import { flowDays, ThresholdFields, thresholdEcho, WhaleQuery, whaleSet, whaleThreshold, whaleWindowQuery } from './whales.ts';

export function whalesHeatmapRoute(app: RouteApp, ctx: ApiContext): void {
  dailySeries(app, ctx, {
    path: '/analytics/whales/heatmap',
    operationId: 'getWhalesHeatmap',
    summary: 'Whales moving value per day: movers, volume and intensity',
    window: '90d',
    query: WhaleQuery({ window: whaleWindowQuery('90d') }),
    item: dayItem({
      movers: Type.Integer({ description: 'Whales (exchanges excluded) that sent native value that day.' }),
      volume: { ...Amount, description: 'Native value those whales sent that day.' },
      intensity: Type.Number({ description: 'movers / max_movers, 0 to 1 (0 when max_movers is 0).' }),
    }),
    itemsDescription: 'One item per day of the window (clipped to the indexed history), oldest first, zero-filled.',
    envelope: {
      ...envelope('count', 'chain', 'network'),
      days: Type.Integer({ description: 'Days in the window.' }),
      max_movers: Type.Integer({ description: 'The largest movers of the window’s days.' }),
      ...ThresholdFields,
    },
    prepare: ({ query, chain }) => whaleThreshold(ctx.store, chain, query.threshold_pct),
    read: async (range, { chain, prepared: threshold }) => {
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
      return byDay;
    },
    missingDay: { zero: (day) => ({ day, movers: 0, volume: 0n }) },
    items: (rows) => {
      const maxMovers = maxMoversOf(rows);
      return rows.map((d) => ({ day: d.day, movers: d.movers, volume: d.volume.toString(), intensity: maxMovers === 0 ? 0 : d.movers / maxMovers }));
    },
    extra: (items, { prepared: threshold }) => ({ max_movers: maxMoversOf(items), ...thresholdEcho(threshold) }),
  });
}

const maxMoversOf = (days: { movers: number }[]): number => days.reduce((max, d) => Math.max(max, d.movers), 0);
