/** GET /api/v1/analytics/whales/exchange-flow: whales' deposits to and withdrawals from exchanges (docs/metrics.md, "Whales"). */
import sql from 'sql-template-tag';
import { Type } from 'typebox';
import type { ChainId } from '../../../chain/chains.ts';
import type { Db } from '../../../store/store.ts';
import { formatDay } from '../../../time.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { analyticsRoute } from '../route.ts';
import { Amount, WindowQuery } from '../../schemas/common.ts';
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
  deposit_txs: Type.Integer({ description: 'Transfers of those deposits (each recipient of a multi-recipient transfer counts once).' }),
  withdrawal_txs: Type.Integer({ description: 'Transfers of those withdrawals.' }),
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
 * The whales' flows with confirmed exchange addresses on the days from `from` on: their rows of
 * exchange_address_flow_daily (kept by the exchange rollup), a primary-key range per whale.
 */
async function whaleExchangeFlow(db: Db, chain: ChainId, whales: string[], from: string): Promise<Flow> {
  if (whales.length === 0) return { deposits: 0n, withdrawals: 0n, depositTxs: 0, withdrawalTxs: 0 };
  const [row] = await db.query<{ deposits: string; withdrawals: string; deposit_txs: string | number; withdrawal_txs: string | number }>(
    'analytics.whales.exchange_flow',
    sql`SELECT coalesce(sum(deposits), 0)::text AS deposits, coalesce(sum(withdrawals), 0)::text AS withdrawals,
               coalesce(sum(deposit_txs), 0) AS deposit_txs, coalesce(sum(withdrawal_txs), 0) AS withdrawal_txs
        FROM exchange_address_flow_daily
        WHERE chain = ${chain} AND address = ANY(${whales}::text[]) AND day >= ${from}::date`,
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
    // Hot and cold wallets are confirmed by definition; a venue known only by relays counts while
    // one is confirmed (exchange_venue_relays). Both are a few rows, unlike the chain's relays.
    sql`SELECT count(*) AS n FROM (
          SELECT exchange FROM exchange_wallets WHERE chain = ${chain} AND role IN ('hot', 'cold')
          UNION
          SELECT exchange FROM exchange_venue_relays WHERE chain = ${chain} AND relays > 0
        ) v`,
    { reusePlan: true },
  );
  return Number(row?.n ?? 0);
}

export function whalesExchangeFlowRoute(app: RouteApp, ctx: ApiContext): void {
  analyticsRoute(app, {
    path: '/analytics/whales/exchange-flow',
    operationId: 'getWhalesExchangeFlow',
    summary: 'Whale deposits to and withdrawals from exchanges over the window',
    query: ExchangeFlowQuery,
    response: ExchangeFlowResponse,
    handler: async ({ query, chain }) => {
      const days = windowDaysOf(query.window, { fallback: '30d' });
      const [threshold, span, exchangeCount] = await Promise.all([
        whaleThreshold(ctx.store, chain, query.threshold_pct),
        chainSpan(ctx.store, chain),
        exchanges(ctx.store, chain),
      ]);
      const range = span ? dayRange(span, days) : null;
      const whales = range && exchangeCount > 0 ? await whaleSet(ctx.store, chain, threshold.amount, { withoutExchanges: true }) : [];
      const flow = await whaleExchangeFlow(ctx.store, chain, range ? whales.map((w) => w.address) : [], range?.from ?? '');
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
  });
}
