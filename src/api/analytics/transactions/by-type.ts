/** GET /api/v1/analytics/transactions/by-type: transactions per day and type (docs/metrics.md, "Transactions by type"). */
import sql from 'sql-template-tag';
import { Type } from 'typebox';
import { TX_TYPES } from '../../../chain/model.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { dailySeries, dayItem, envelope } from '../route.ts';
import { dayCounts, noCounts } from '../series.ts';

export function transactionsByTypeRoute(app: RouteApp, ctx: ApiContext): void {
  dailySeries(app, ctx, {
    path: '/analytics/transactions/by-type',
    operationId: 'getTransactionsByType',
    summary: 'Transactions per day and type',
    window: '30d',
    item: dayItem({
      tx_type: Type.String({ description: 'pow: the transaction subtype (transfer, coinbase, latticePK, message, token, transfer_token, slave, multi_sig_create, multi_sig_spend, multi_sig_vote); pos: transfer, contract_call or contract_create.' }),
      tx_count: Type.Integer({ description: 'Transactions of the type that day (a multi-recipient transfer counts once).' }),
    }),
    itemsDescription: 'For each UTC day of the window (oldest first, to the latest block’s day) one item per type of the chain, in the order above; zero where none.',
    envelope: envelope('count', 'chain', 'network', 'window_days'),
    read: (range, { chain }) =>
      dayCounts(ctx.store, 'analytics.by_type', sql`SELECT day::text AS day, tx_type AS key, tx_count AS n FROM chain_tx_types
                                                    WHERE chain = ${chain} AND day BETWEEN ${range.from}::date AND ${range.to}::date`),
    missingDay: { zero: noCounts },
    items: (rows, _range, { chain }) => rows.flatMap(({ day, counts }) => TX_TYPES[chain].map((tx_type) => ({ day, tx_type, tx_count: counts.get(tx_type) ?? 0 }))),
  });
}
