/**
 * GET /api/v1/analytics/timeline/{metric}: a daily series of both chains (docs/metrics.md,
 * "Timeline"). Without a migration cutover, `points` is the pow series and `preview` the pos one;
 * with one, pow up to the day before the cutover's day and pos from that day on, in `points`.
 */
import sql from 'sql-template-tag';
import { Type } from 'typebox';
import { CHAINS, type ChainId } from '../../../chain/chains.ts';
import type { Db } from '../../../store/store.ts';
import { addDays, formatDay } from '../../../time.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { analyticsRoute } from '../route.ts';
import { Day, Nullable, StringEnum, WindowQuery } from '../../schemas/common.ts';
import { chainSpan, dayRange, windowDaysOf, type ChainSpan } from '../series.ts';
import { chainSeries, METRIC_INFO, TIMELINE_KINDS, TIMELINE_METRICS, type DayValue, type TimelineMetric } from './series.ts';

const PHASES = ['pow', 'stitched'] as const;

const Point = Type.Object({
  date: Day,
  value: Type.Number({ description: 'The metric’s value of the day (an integer for counts; coins, seconds and bytes may have a fraction).' }),
  chain: StringEnum(CHAINS, { description: 'The chain the value is of.' }),
});

const TimelineResponse = Type.Object({
  metric: StringEnum(TIMELINE_METRICS),
  unit: Type.String({ description: 'Unit of the values: transactions, blocks, gas, addresses, coins, seconds or bytes.' }),
  kind: StringEnum(TIMELINE_KINDS, { description: 'count: the day’s total; cumulative: the running total at the day’s end; average: the day’s mean.' }),
  phase: StringEnum(PHASES, { description: 'pow: no migration cutover configured (points pow, preview pos); stitched: points are pow before the cutover’s day and pos from it.' }),
  cutover_block: Nullable(Type.Integer({ description: 'The first pow block at or after the cutover time; null without a cutover or before pow reaches it.' })),
  cutover_date: Nullable({ ...Day, description: 'UTC day of the cutover, the first day of pos values; null without a cutover.' }),
  window_days: Type.Integer({ description: 'The window’s length in days after snapping up to a UI tier.' }),
  points: Type.Array(Point, { description: 'One point per UTC day, oldest first, zero-filled, the latest block’s day included.' }),
  preview: Type.Array(Point, { description: 'Without a cutover: the pos series over its own window; empty with one.' }),
});

const TimelineParams = Type.Object({
  metric: StringEnum(TIMELINE_METRICS, { description: `Metric: one of ${TIMELINE_METRICS.join(', ')}.` }),
});

const TimelineQuery = Type.Object({
  window: WindowQuery('90d', 'Window: whole UTC days ending with the latest block’s day, snapped up to 1, 7, 14, 30, 60, 90, 180, 365, 730, 1095, 1825 or 3650 days; at most 10y'),
});

export function timelineRoute(app: RouteApp, ctx: ApiContext): void {
  analyticsRoute(app, {
    path: '/analytics/timeline/:metric',
    operationId: 'getTimeline',
    summary: 'A metric’s daily series across the pow and pos chains, stitched at the migration cutover',
    params: TimelineParams,
    query: TimelineQuery,
    response: TimelineResponse,
    // A daily series: its CSV is the points, then the preview (each row names its chain).
    config: { csv: { rows: ['points', 'preview'] } },
    handler: async ({ query, params }) => {
      const metric = params.metric;
      const days = windowDaysOf(query.window, { fallback: '90d', snapToTier: true });
      const db = ctx.store;
      const [pow, pos, cutoverTs] = await Promise.all([chainSpan(db, 'pow'), chainSpan(db, 'pos'), cutoverOf(db)]);
      const spans: Record<ChainId, ChainSpan | null> = { pow, pos };
      const head = { metric, ...METRIC_INFO[metric], window_days: days };
      if (cutoverTs === null) {
        const series = async (chain: ChainId) => {
          const span = spans[chain];
          return span ? labelled(chain, await chainSeries(db, chain, metric, span, dayRange(span, days))) : [];
        };
        return { ...head, phase: 'pow' as const, cutover_block: null, cutover_date: null, points: await series('pow'), preview: await series('pos') };
      }
      const cutoverDate = formatDay(cutoverTs);
      const points = await stitched(db, metric, spans, days, cutoverDate);
      return { ...head, phase: 'stitched' as const, cutover_block: await cutoverBlock(db, cutoverTs), cutover_date: cutoverDate, points, preview: [] };
    },
  });
}

const labelled = (chain: ChainId, values: DayValue[]) => values.map((v) => ({ ...v, chain }));

/**
 * The window ends with the later tip's day; days before the cutover's day are pow's, the others
 * pos's, each inside its chain's indexed history.
 */
async function stitched(db: Db, metric: TimelineMetric, spans: Record<ChainId, ChainSpan | null>, days: number, cutoverDate: string) {
  const tips = CHAINS.flatMap((chain) => (spans[chain] ? [formatDay(spans[chain].tipTs)] : []));
  if (tips.length === 0) return [];
  const end = tips.sort().at(-1)!;
  const start = addDays(end, 1 - days);
  const segments: [ChainId, string, string][] = [['pow', start, addDays(cutoverDate, -1)], ['pos', cutoverDate, end]];
  const out: { date: string; value: number; chain: ChainId }[] = [];
  for (const [chain, segmentFrom, segmentTo] of segments) {
    const span = spans[chain];
    if (!span) continue;
    const first = formatDay(span.firstTs);
    const tip = formatDay(span.tipTs);
    const from = [segmentFrom, start, first].sort().at(-1)!;
    const to = [segmentTo, end, tip].sort()[0]!;
    if (from <= to) out.push(...labelled(chain, await chainSeries(db, chain, metric, span, { from, to })));
  }
  return out;
}

/** The configured cutover (chain_settings `migration_cutover_ts`, Unix seconds), pow's first. */
async function cutoverOf(db: Db): Promise<number | null> {
  const rows = await db.query<{ chain: string; value: string }>(
    'analytics.timeline.cutover',
    sql`SELECT chain, value FROM chain_settings WHERE key = 'migration_cutover_ts' AND chain IN ('pow', 'pos', '*')`,
    { reusePlan: true },
  );
  const value = ['pow', 'pos', '*'].map((chain) => rows.find((r) => r.chain === chain)?.value).find((v) => v !== undefined && /^[0-9]+$/.test(v.trim()));
  return value === undefined ? null : Number(value.trim());
}

async function cutoverBlock(db: Db, cutoverTs: number): Promise<number | null> {
  const [row] = await db.query<{ height: number }>(
    'analytics.timeline.cutover_block',
    sql`SELECT height FROM blocks WHERE chain = 'pow' AND ts >= ${cutoverTs} ORDER BY ts, height LIMIT 1`,
    { reusePlan: true }, // the (chain, ts) index
  );
  return row ? Number(row.height) : null;
}
