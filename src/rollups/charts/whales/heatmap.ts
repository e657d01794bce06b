/**
 * Per day, the whales that moved value and what they sent (docs/metrics.md, "Whales"): the whales
 * of the request's threshold (a percent of the current total supply, or the fixed floor; the API
 * resolves it, SeriesLive) and their address_daily rows over the window, which the address
 * activity rollup keeps current with every block.
 */
import { chartSeries, type KeptChart } from '../../engine/rollup.ts';
import { flowDays } from '../../addresses/balance-days.ts';

interface MoverDay {
  day: string;
  movers: number;
  volume: bigint;
}

const maxMoversOf = (days: { movers: number }[]): number => days.reduce((max, d) => Math.max(max, d.movers), 0);

type Threshold = { amount: bigint; pct: number | null };

export const whaleMovers: KeptChart<MoverDay> = {
  name: 'whale_movers',
  part: 'whales-exchanges',
  keptBy: 'address_daily',
  series: [
    chartSeries<MoverDay, { day: string; movers: number; volume: string; intensity: number }>({
      path: '/analytics/whales/heatmap',
      operationId: 'getWhalesHeatmap',
      summary: 'Whales moving value per day: movers, volume and intensity',
      window: '90d',
      params: {
        threshold_pct: {
          kind: 'number',
          exclusiveMinimum: 0,
          maximum: 100,
          description: 'Whale threshold as a percent of the current total supply (more than 0, at most 100); omitted: the fixed 100,000-coin floor.',
        },
      },
      fields: {
        movers: { kind: 'integer', description: 'Whales (exchanges excluded) that sent native value that day.' },
        volume: { kind: 'amount', description: 'Native value those whales sent that day.' },
        intensity: { kind: 'number', description: 'movers / max_movers, 0 to 1 (0 when max_movers is 0).' },
      },
      itemsDescription: 'One item per day of the window (clipped to the indexed history), oldest first, zero-filled.',
      envelope: {
        count: true, chain: true, network: true,
        days: { kind: 'integer', description: 'Days in the window.' },
        max_movers: { kind: 'integer', description: 'The largest movers of the window’s days.' },
        whale_threshold: { kind: 'amount', description: 'The whale threshold in the chain\'s smallest unit.' },
        threshold_pct: { kind: 'number', nullable: true, description: 'threshold_pct as given; null when omitted (the 100,000-coin floor).' },
      },
      prepare: ({ live, params }) => live.whaleThreshold(params.threshold_pct as number | undefined),
      read: async ({ db, chain, range, live, prepared }) => {
        const whales = await live.whales((prepared as Threshold).amount);
        const flows = await flowDays(db, chain, whales, range.from, range.to);
        const byDay = new Map<string, MoverDay>();
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
      extra: (items, { prepared }) => {
        const threshold = prepared as Threshold;
        return { max_movers: maxMoversOf(items), whale_threshold: threshold.amount.toString(), threshold_pct: threshold.pct };
      },
    }),
  ],
};
