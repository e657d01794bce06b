/** GET /api/v1/{chain}/addresses/{address}/balance-history: one point per UTC day with the running balance. */
import sql from 'sql-template-tag';
import { Type, type Static } from 'typebox';
import { answerAmounts, type AnswerAmount } from '../../amounts.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { parseWindow } from '../../params/window.ts';
import { AddressPathParams, Day, NullableAmount, Nullable, STANDARD_ERRORS, WindowQuery, AddressEchoFields } from '../../schemas/common.ts';
import { addressEcho, type AddressEcho } from '../../params/address.ts';

const BalanceHistoryQuery = Type.Object({
  window: WindowQuery('all', 'Days up to the latest indexed block: a length with m, h, d, w or y (e.g. 30d, 90d, 365d), or all for the whole history'),
});

const BalanceHistoryItem = Type.Object({
  day: Day,
  received: { ...NullableAmount, description: 'Native value received that day (transfers, recipients, internal transfers, withdrawals, tips, genesis).' },
  sent_with_fees: { ...NullableAmount, description: 'Native value debited that day (value sent, fees included; a mint\'s sender is not debited).' },
  tx_count_in: Type.Integer({ description: 'Transactions that day in which the address receives.' }),
  tx_count_out: Type.Integer({ description: 'Transactions that day the address sends or signs.' }),
  net_delta_cumulative: { ...NullableAmount, description: 'Sum of received - sent_with_fees from the first day on: the balance at the end of the day.' },
});

const BalanceHistoryResponse = Type.Object({
  items: Type.Array(BalanceHistoryItem, {
    description: 'One item per day, oldest first, from the later of the window start and the address\'s first activity to the day of the latest indexed block; quiet days included.',
  }),
  count: Type.Integer({ description: 'Number of items.' }),
  window_days: Nullable(Type.Integer({ description: 'Days in the window; null for the whole history.' })),
  ...AddressEchoFields,
});

interface DayRow {
  day: string;
  received: string;
  sent_with_fees: string;
  tx_in: number;
  tx_out: number;
  cumulative: string;
}

async function loadBalanceHistory(
  ctx: ApiContext,
  echo: AddressEcho,
  windowParam: string | undefined,
  amount: AnswerAmount,
): Promise<Static<typeof BalanceHistoryResponse>> {
  const window = parseWindow(windowParam, { fallback: 'all', allowAll: true });
  // The window's days end with the day of the latest block: a 1-day window is that day alone.
  // The running sum starts at the address's first day, whatever the window, so that every point
  // is the balance at the end of its day; days with no row carry the previous figure.
  const rows = await ctx.store.query<DayRow>(
    'addresses.balance_history',
    sql`WITH tip AS (
          SELECT (to_timestamp(ts) AT TIME ZONE 'UTC')::date AS day FROM blocks WHERE chain = ${echo.chain} ORDER BY height DESC LIMIT 1
        ),
        daily AS (
          SELECT day, received, sent + fees AS sent_with_fees, tx_in, tx_out
          FROM address_daily
          WHERE chain = ${echo.chain} AND address = ${echo.address}
        ),
        days AS (
          SELECT generate_series(
            (SELECT min(day) FROM daily WHERE received > 0 OR sent_with_fees > 0 OR tx_in > 0 OR tx_out > 0),
            (SELECT day FROM tip), interval '1 day')::date AS day
        ),
        filled AS (
          SELECT d.day, coalesce(x.received, 0) AS received, coalesce(x.sent_with_fees, 0) AS sent_with_fees,
                 coalesce(x.tx_in, 0) AS tx_in, coalesce(x.tx_out, 0) AS tx_out,
                 sum(coalesce(x.received, 0) - coalesce(x.sent_with_fees, 0)) OVER (ORDER BY d.day) AS cumulative
          FROM days d LEFT JOIN daily x ON x.day = d.day
        )
        SELECT to_char(day, 'YYYY-MM-DD') AS day, received::text, sent_with_fees::text, tx_in, tx_out, cumulative::text
        FROM filled
        WHERE ${window.days}::int IS NULL OR day > (SELECT day FROM tip) - ${window.days ?? 0}::int
        ORDER BY day`,
    { reusePlan: true }, // the address's days (a primary-key range) and the tip
  );
  const items = rows.map((r) => ({
    day: r.day,
    received: amount(r.received, echo.address, 'received'),
    sent_with_fees: amount(r.sent_with_fees, echo.address, 'sent_with_fees'),
    tx_count_in: r.tx_in,
    tx_count_out: r.tx_out,
    net_delta_cumulative: amount(r.cumulative, echo.address, 'net_delta_cumulative'),
  }));
  return { items, count: items.length, window_days: window.days, ...echo };
}

export function balanceHistoryRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/:address/balance-history',
    {
      schema: {
        tags: ['addresses'],
        operationId: 'getAddressBalanceHistory',
        summary: 'Daily received, sent and running balance of an address',
        params: AddressPathParams,
        querystring: BalanceHistoryQuery,
        response: { 200: BalanceHistoryResponse, ...STANDARD_ERRORS },
      },
    },
    async (request) => {
      const echo = addressEcho(ctx, request.params.chain, request.params.address);
      return loadBalanceHistory(ctx, echo, request.query.window, answerAmounts(request.log, echo.chain));
    },
  );
}
