/**
 * GET /api/v1/analytics/exchange/largest-transfers: the largest single deposits into and withdrawals
 * from the curated venues in the window (docs/metrics.md, "Exchanges"), from exchange_largest (at
 * most 100 per day and direction: a bounded slice of the window's days).
 */
import sql, { join } from 'sql-template-tag';
import { Type } from 'typebox';
import { formatTimestamp } from '../../../time.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { analyticsRoute } from '../route.ts';
import { Amount, IntegerQuery, StringEnum, Timestamp, WindowQuery } from '../../schemas/common.ts';
import { AnalyticsChain, seriesWindow } from '../series.ts';

const DIRECTIONS = ['deposit', 'withdrawal', 'both'] as const;

const LargestQuery = Type.Object({
  chain: AnalyticsChain,
  limit: IntegerQuery({ minimum: 1, maximum: 100, default: 20, description: 'Transfers to return (1 to 100).' }),
  direction: Type.Optional(StringEnum(DIRECTIONS, { default: 'both', description: 'deposit (into a venue), withdrawal (out of a venue) or both; default both.' })),
  window: WindowQuery('30d', 'Window: whole UTC days ending with the latest block’s day (a length rounds up to days)'),
});

const TransferItem = Type.Object({
  tx_hash: Type.String(),
  height: Type.Integer(),
  timestamp: Timestamp,
  from_addr: Type.String({ description: 'The sender; for a deposit, the customer paying the deposit address.' }),
  to_addr: Type.String({ description: 'The recipient; for a deposit, the deposit address (a relay or a wallet of the venue).' }),
  value: Amount,
  direction: StringEnum(['deposit', 'withdrawal'] as const),
  exchange_label: Type.String({ description: 'The venue deposited into or withdrawn from.' }),
  via_relay: Type.Boolean({ description: 'The venue’s side of the transfer is a confirmed deposit relay rather than a curated wallet.' }),
});

const LargestResponse = Type.Object({
  items: Type.Array(TransferItem, { description: 'Largest value first (then chain order); empty on a chain without curated venue wallets.' }),
  count: Type.Integer(),
  chain: Type.String(),
  network: Type.String(),
  days: Type.Integer({ description: 'The window in whole UTC days.' }),
  direction: StringEnum(DIRECTIONS),
  exchange_labeled: Type.Boolean({ description: 'Whether the chain has curated venue wallets.' }),
});

export function exchangeLargestTransfersRoute(app: RouteApp, ctx: ApiContext): void {
  analyticsRoute(app, {
    path: '/analytics/exchange/largest-transfers',
    operationId: 'getExchangeLargestTransfers',
    summary: 'Largest single deposits into and withdrawals from exchanges in a window',
    query: LargestQuery,
    response: LargestResponse,
    handler: async ({ query, chain }) => {
      const direction = query.direction ?? 'both';
      const { limit } = query;
      const { days, range } = await seriesWindow(ctx.store, chain, query.window, '30d');
      const [labeled] = await ctx.store.query<{ any: boolean }>(
        'analytics.exchange.labeled',
        sql`SELECT EXISTS (SELECT 1 FROM exchange_wallets WHERE chain = ${chain} AND role IN ('hot', 'cold')) AS any`,
        { reusePlan: true },
      );
      const exchangeLabeled = labeled!.any;
      const envelope = { chain, network: ctx.network(chain), days, direction, exchange_labeled: exchangeLabeled };
      if (!exchangeLabeled || !range) return { items: [], count: 0, ...envelope };
      const directions = direction === 'both' ? ['deposit', 'withdrawal'] : [direction];
      // Each direction read largest first through (chain, direction, value DESC), the window's days
      // as a filter: about limit × (days held / days in the window) rows, where reading the window's
      // days (up to 100 rows each) and sorting them grew with the window. Planned for the values
      // given: a generic plan cannot tell a window of a few days from the whole history.
      const byDirection = directions.map(
        (d) => sql`(SELECT tx_hash, height, tx_index, recipient_index, ts, from_addr, to_addr, value, direction, exchange, via_relay
                    FROM exchange_largest
                    WHERE chain = ${chain} AND direction = ${d} AND day BETWEEN ${range.from}::date AND ${range.to}::date
                    ORDER BY value DESC, height, tx_index, recipient_index
                    LIMIT ${limit})`,
      );
      const rows = await ctx.store.query<{ tx_hash: string; height: string | number; ts: string | number; from_addr: string; to_addr: string; value: string; direction: 'deposit' | 'withdrawal'; exchange: string; via_relay: boolean }>(
        'analytics.exchange.largest',
        sql`SELECT tx_hash, height, ts, from_addr, to_addr, value::text AS value, direction, exchange, via_relay
            FROM (${join(byDirection, ' UNION ALL ')}) x
            ORDER BY x.value DESC, height, tx_index, recipient_index, direction
            LIMIT ${limit}`,
      );
      const items = rows.map((r) => ({
        tx_hash: r.tx_hash,
        height: Number(r.height),
        timestamp: formatTimestamp(Number(r.ts)),
        from_addr: r.from_addr,
        to_addr: r.to_addr,
        value: r.value,
        direction: r.direction,
        exchange_label: r.exchange,
        via_relay: r.via_relay,
      }));
      return { items, count: items.length, ...envelope };
    },
  });
}
