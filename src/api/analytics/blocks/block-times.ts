/** GET /api/v1/analytics/block-times: blocks per day and the mean interval between them (docs/metrics.md, "Block times"). */
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Day, Nullable, STANDARD_ERRORS } from '../../schemas/common.ts';
import { formatDay } from '../../../time.ts';
import { chainDays } from '../chain-days.ts';
import { chainSpan, dayRange, SeriesQuery, windowDaysOf } from '../series.ts';

const BlockTimesItem = Type.Object({
  day: Day,
  block_count: Type.Integer(),
  avg_block_time_seconds: Nullable(Type.Number({ description: 'Mean seconds from each block of the day to its parent; null without an interval (no block, or only the genesis block).' })),
});

const BlockTimesResponse = Type.Object({
  items: Type.Array(BlockTimesItem, { description: 'One item per UTC day, oldest first, from the later of the window start and the first indexed day to the latest block’s day.' }),
  count: Type.Integer(),
  chain: Type.String(),
  network: Type.String(),
  window_days: Type.Integer(),
});

export function blockTimesRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/analytics/block-times',
    {
      schema: {
        tags: ['analytics'],
        operationId: 'getBlockTimes',
        summary: 'Blocks per day and the mean block interval',
        querystring: SeriesQuery('30d'),
        response: { 200: BlockTimesResponse, ...STANDARD_ERRORS },
      },
    },
    async (request) => {
      const chain = request.query.chain ?? 'pos';
      const days = windowDaysOf(request.query.window, { fallback: '30d' });
      const span = await chainSpan(ctx.store, chain);
      const envelope = { chain, network: ctx.network(chain), window_days: days };
      if (!span) return { items: [], count: 0, ...envelope };
      const range = dayRange(span, days);
      const firstDay = formatDay(span.firstTs);
      const items = (await chainDays(ctx.store, chain, range)).map((d) => {
        // The chain's first block has no parent, hence no interval.
        const intervals = d.block_count - (d.day === firstDay ? 1 : 0);
        return { day: d.day, block_count: d.block_count, avg_block_time_seconds: intervals > 0 ? d.interval_sum / intervals : null };
      });
      return { items, count: items.length, ...envelope };
    },
  );
}
