/** GET /api/v1/analytics/whales/exchange-flow: whales' deposits to and withdrawals from exchanges (docs/metrics.md, "Whales"). */
import sql from 'sql-template-tag';
import { Type } from 'typebox';
import type { ChainId } from '../../../chain/chains.ts';
import type { Db } from '../../../store/store.ts';
import { dayStart, formatDay } from '../../../time.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Amount, STANDARD_ERRORS, WindowQuery } from '../../schemas/common.ts';
import { AnalyticsChain, chainSpan, dayRange, windowDaysOf } from '../series.ts';
import { SignedAmount, ThresholdFields, thresholdEcho, ThresholdPctQuery, whaleSet, whaleThreshold } from './whales.ts';

const ExchangeFlowQuery = Type.Object({
  chain: AnalyticsChain,
  threshold_pct: ThresholdPctQuery,
  window: WindowQuery('30d', 'Window: whole UTC days ending with the latest block’s day (a length rounds up to days)'),
});

const ExchangeFlowResponse = Type.Object({
  chain: Type.String(),
  network: Type.String(),
  days: Type.Integer({ description: 'Days in the window.' }),
  all_time: Type.Boolean({ description: 'The window reaches the chain’s first indexed day: the figures cover the whole history.' }),
  deposits: { ...Amount, description: 'Native value whales (exchanges excluded) sent to confirmed exchange addresses in the window.' },
  withdrawals: { ...Amount, description: 'Native value confirmed exchange addresses sent to those whales in the window.' },
  net: { ...SignedAmount, description: 'withdrawals − deposits.' },
  deposit_txs: Type.Integer(),
  withdrawal_txs: Type.Integer(),
  exchange_labeled: Type.Boolean({ description: 'The chain has confirmed exchange addresses.' }),
  exchange_count: Type.Integer({ description: 'Exchanges with a confirmed address.' }),
  ...ThresholdFields,
});

interface Flow {
  deposits: bigint;
  withdrawals: bigint;
  depositTxs: number;
  withdrawalTxs: number;
}

/**
 * Transfer legs between `whales` and confirmed exchange addresses from the first block at or after
 * `fromTs`: the whale–exchange pairs active since then (address_counterparties), then each pair's
 * transactions from the whale's sent and received index ranges (recipients of multi-recipient
 * transfers included).
 */
async function whaleExchangeFlow(db: Db, chain: ChainId, whales: string[], fromTs: number): Promise<Flow> {
  if (whales.length === 0) return { deposits: 0n, withdrawals: 0n, depositTxs: 0, withdrawalTxs: 0 };
  const ok = sql`t.status IS DISTINCT FROM 0`;
  const [row] = await db.query<{ deposits: string; withdrawals: string; deposit_txs: string | number; withdrawal_txs: string | number }>(
    'analytics.whales.exchange_flow',
    sql`WITH start AS (
          SELECT coalesce((SELECT height FROM blocks WHERE chain = ${chain} AND ts >= ${fromTs} ORDER BY ts, height LIMIT 1), 9223372036854775807) AS h
        ),
        pairs AS MATERIALIZED (
          SELECT c.address AS whale, c.counterparty AS exchange
          FROM address_counterparties c
          JOIN exchange_wallets e ON e.chain = ${chain} AND e.address = c.counterparty AND e.confirmed
          WHERE c.chain = ${chain} AND c.address = ANY(${whales}::text[]) AND c.last_ts >= ${fromTs}
        ),
        legs AS (
          SELECT 'deposit' AS kind, t.height, t.tx_index, t.value AS amount
          FROM pairs p JOIN transactions t ON t.chain = ${chain} AND t.from_addr = p.whale AND t.height >= (SELECT h FROM start) AND t.to_addr = p.exchange
          WHERE t.value > 0 AND ${ok}
          UNION ALL
          SELECT 'deposit', t.height, t.tx_index, r.amount
          FROM pairs p JOIN transactions t ON t.chain = ${chain} AND t.from_addr = p.whale AND t.height >= (SELECT h FROM start) AND t.to_addr IS NULL
          JOIN tx_recipients r ON r.chain = ${chain} AND r.height = t.height AND r.tx_index = t.tx_index AND r.to_addr = p.exchange
          WHERE r.amount > 0 AND ${ok}
          UNION ALL
          SELECT 'withdrawal', t.height, t.tx_index, t.value
          FROM pairs p JOIN transactions t ON t.chain = ${chain} AND t.to_addr = p.whale AND t.height >= (SELECT h FROM start) AND t.from_addr = p.exchange
          WHERE t.value > 0 AND ${ok}
          UNION ALL
          SELECT 'withdrawal', r.height, r.tx_index, r.amount
          FROM pairs p JOIN tx_recipients r ON r.chain = ${chain} AND r.to_addr = p.whale AND r.height >= (SELECT h FROM start)
          JOIN transactions t ON t.chain = ${chain} AND t.height = r.height AND t.tx_index = r.tx_index AND t.from_addr = p.exchange AND t.to_addr IS NULL
          WHERE r.amount > 0 AND ${ok}
        )
        SELECT coalesce(sum(amount) FILTER (WHERE kind = 'deposit'), 0)::text AS deposits,
               coalesce(sum(amount) FILTER (WHERE kind = 'withdrawal'), 0)::text AS withdrawals,
               count(DISTINCT (height, tx_index)) FILTER (WHERE kind = 'deposit') AS deposit_txs,
               count(DISTINCT (height, tx_index)) FILTER (WHERE kind = 'withdrawal') AS withdrawal_txs
        FROM legs`,
  );
  return {
    deposits: BigInt(row?.deposits ?? '0'),
    withdrawals: BigInt(row?.withdrawals ?? '0'),
    depositTxs: Number(row?.deposit_txs ?? 0),
    withdrawalTxs: Number(row?.withdrawal_txs ?? 0),
  };
}

async function exchanges(db: Db, chain: ChainId): Promise<number> {
  const [row] = await db.query<{ n: string | number }>(
    'analytics.whales.exchange_count',
    sql`SELECT count(DISTINCT exchange) AS n FROM exchange_wallets WHERE chain = ${chain} AND confirmed`,
    { reusePlan: true },
  );
  return Number(row?.n ?? 0);
}

export function whalesExchangeFlowRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/analytics/whales/exchange-flow',
    {
      schema: {
        tags: ['analytics'],
        operationId: 'getWhalesExchangeFlow',
        summary: 'Whale deposits to and withdrawals from exchanges over the window',
        querystring: ExchangeFlowQuery,
        response: { 200: ExchangeFlowResponse, ...STANDARD_ERRORS },
      },
    },
    async (request) => {
      const chain = request.query.chain ?? 'pos';
      const days = windowDaysOf(request.query.window, { fallback: '30d' });
      const [threshold, span, exchangeCount] = await Promise.all([
        whaleThreshold(ctx.store, chain, request.query.threshold_pct),
        chainSpan(ctx.store, chain),
        exchanges(ctx.store, chain),
      ]);
      const range = span ? dayRange(span, days) : null;
      const whales = range && exchangeCount > 0 ? await whaleSet(ctx.store, chain, threshold.amount, { withoutExchanges: true }) : [];
      const flow = await whaleExchangeFlow(ctx.store, chain, range ? whales.map((w) => w.address) : [], range ? dayStart(range.from) : 0);
      return {
        chain,
        network: ctx.network(chain),
        days,
        all_time: !span || range!.from === formatDay(span.firstTs),
        deposits: flow.deposits.toString(),
        withdrawals: flow.withdrawals.toString(),
        net: (flow.withdrawals - flow.deposits).toString(),
        deposit_txs: flow.depositTxs,
        withdrawal_txs: flow.withdrawalTxs,
        exchange_labeled: exchangeCount > 0,
        exchange_count: exchangeCount,
        ...thresholdEcho(threshold),
      };
    },
  );
}
