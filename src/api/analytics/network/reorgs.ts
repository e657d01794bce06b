/** GET /api/v1/analytics/network/reorgs: the reorganisations the indexer met, newest first (docs/metrics.md, "Network status"). */
import sql from 'sql-template-tag';
import { Type } from 'typebox';
import { formatTimestamp } from '../../../time.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { analyticsRoute } from '../route.ts';
import { IntegerQuery, Timestamp } from '../../schemas/common.ts';
import { AnalyticsChain } from '../series.ts';

const MAX_PAGE_SIZE = 200;

const ReorgsQuery = Type.Object({
  chain: AnalyticsChain,
  // The offset, (page − 1) × page_size, stays an exact integer.
  page: IntegerQuery({ minimum: 1, maximum: Math.floor(Number.MAX_SAFE_INTEGER / MAX_PAGE_SIZE), default: 1, description: 'Page number, from 1.' }),
  page_size: IntegerQuery({ minimum: 1, maximum: MAX_PAGE_SIZE, default: 50, description: 'Items per page (1 to 200).' }),
});

const ReorgItem = Type.Object({
  height: Type.Integer({ description: 'The first height whose block was replaced (the common ancestor’s height + 1).' }),
  prev_hash: Type.String({ description: 'Hash of the block the indexer held at that height before the reorganisation.' }),
  new_hash: Type.String({ description: 'Hash of the block of the new branch at that height.' }),
  depth: Type.Integer({ description: 'Blocks abandoned: the old tip’s height − the common ancestor’s height.' }),
  detected_at: { ...Timestamp, description: 'When the indexer detected it (its clock, UTC), YYYY-MM-DDTHH:MM:SS.' },
});

const ReorgsResponse = Type.Object({
  items: Type.Array(ReorgItem, { description: 'One item per detected reorganisation, newest first; empty when the chain never reorganised.' }),
  count: Type.Integer(),
  total: Type.Integer({ description: 'Reorganisations recorded for the chain.' }),
  limit: Type.Integer({ description: 'page_size.' }),
  offset: Type.Integer({ description: '(page − 1) × page_size.' }),
});

export function networkReorgsRoute(app: RouteApp, ctx: ApiContext): void {
  analyticsRoute(app, {
    path: '/analytics/network/reorgs',
    operationId: 'getNetworkReorgs',
    summary: 'Chain reorganisations detected by the indexer, newest first',
    query: ReorgsQuery,
    response: ReorgsResponse,
    handler: async ({ query, chain }) => {
      const limit = query.page_size;
      const offset = (query.page - 1) * limit;
      // Detection order is insertion order (the id), which the (chain, id) index serves.
      const [rows, [total]] = await Promise.all([
        ctx.store.query<{ height: string | number; prev_hash: string; new_hash: string; depth: number; detected_ts: string | number }>(
          'analytics.reorgs.page',
          sql`SELECT height, prev_hash, new_hash, depth, detected_ts FROM reorgs WHERE chain = ${chain} ORDER BY id DESC LIMIT ${limit} OFFSET ${offset}`,
          { reusePlan: true },
        ),
        ctx.store.query<{ n: string | number }>('analytics.reorgs.total', sql`SELECT count(*) AS n FROM reorgs WHERE chain = ${chain}`, { reusePlan: true }),
      ]);
      const items = rows.map((r) => ({
        height: Number(r.height),
        prev_hash: r.prev_hash,
        new_hash: r.new_hash,
        depth: Number(r.depth),
        detected_at: formatTimestamp(Number(r.detected_ts)),
      }));
      return { items, count: items.length, total: Number(total?.n ?? 0), limit, offset };
    },
  });
}
