/** GET /api/v1/analytics/whales/biggest: the largest user transactions of the window (docs/metrics.md, "Whales"). */
import sql from 'sql-template-tag';
import { Type } from 'typebox';
import type { ChainId } from '../../../chain/chains.ts';
import type { Db } from '../../../store/store.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Amount, IntegerQuery, Nullable } from '../../schemas/common.ts';
import { analyticsRoute, envelope } from '../route.ts';
import { AnalyticsChain, seriesWindow, type DayRange } from '../series.ts';
import { formatWhaleTimestamp, WhaleTimestamp, whaleWindowQuery } from './whales.ts';

export const BiggestTx = Type.Object({
  tx_hash: Type.String(),
  height: Type.Integer(),
  from_addr: Type.String(),
  to_addr: Nullable(Type.String({ description: 'Recipient; the created contract for a contract creation; null for a multi-recipient pow transfer.' })),
  value: { ...Amount, description: 'Native value sent (all recipients).' },
  timestamp: WhaleTimestamp,
  tx_type: Type.String({ description: 'pow subtype or pos category.' }),
});

/**
 * The `limit` largest candidates of the days in `range`. No answer row is below V, the `limit`-th
 * largest day maximum (chain_day_largest): only the days reaching V are read, and in them only
 * rows of at least V, so the read does not grow with the window.
 */
export async function biggestTxs(db: Db, chain: ChainId, range: Pick<DayRange, 'from' | 'to'>, limit: number) {
  const rows = await db.query<{ tx_hash: string; height: string | number; from_addr: string; to_addr: string | null; value: string; ts: string | number; tx_type: string }>(
    'analytics.whales.biggest',
    sql`WITH maxima AS MATERIALIZED (
          SELECT day, value FROM chain_day_largest WHERE chain = ${chain} AND day BETWEEN ${range.from}::date AND ${range.to}::date
        ),
        floor AS (
          SELECT coalesce((SELECT value FROM maxima ORDER BY value DESC LIMIT 1 OFFSET ${limit - 1}), 0) AS v
        )
        SELECT t.tx_hash, t.height, t.from_addr, t.to_addr, t.value::text AS value, t.ts, t.tx_type
        FROM maxima m CROSS JOIN floor f
        CROSS JOIN LATERAL (
          SELECT * FROM chain_day_top_txs t
          WHERE t.chain = ${chain} AND t.day = m.day AND t.value >= f.v
          ORDER BY t.value DESC, t.height, t.tx_index LIMIT ${limit}
        ) t
        WHERE m.value >= f.v
        ORDER BY t.value DESC, t.height, t.tx_index
        LIMIT ${limit}`,
    { reusePlan: true }, // a day range of one row per day, then at most `limit` days of rows
  );
  return rows.map((r) => ({
    tx_hash: r.tx_hash,
    height: Number(r.height),
    from_addr: r.from_addr,
    to_addr: r.to_addr,
    value: r.value,
    timestamp: formatWhaleTimestamp(Number(r.ts)),
    tx_type: r.tx_type,
  }));
}

export function whalesBiggestRoute(app: RouteApp, ctx: ApiContext): void {
  analyticsRoute(app, {
    path: '/analytics/whales/biggest',
    operationId: 'getWhalesBiggest',
    summary: 'The largest user transactions by native value in the window',
    query: Type.Object({
      chain: AnalyticsChain,
      limit: IntegerQuery({ minimum: 1, maximum: 100, default: 20, description: 'Transactions (1 to 100).' }),
      window: whaleWindowQuery('30d'),
    }),
    response: Type.Object({
      items: Type.Array(BiggestTx, { description: 'Largest first; ties in chain order.' }),
      ...envelope('count', 'chain', 'network'),
      days: Type.Integer({ description: 'Days in the window.' }),
    }),
    handler: async ({ query, chain }) => {
      const { days, range } = await seriesWindow(ctx.store, chain, query.window, '30d');
      const items = range ? await biggestTxs(ctx.store, chain, range, query.limit) : [];
      return { items, count: items.length, chain, network: ctx.network(chain), days };
    },
  });
}
