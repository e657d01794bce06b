/** GET /api/v1/{chain}/addresses/{address}/balance-history: one point per UTC day with the running balance. */
import sql from 'sql-template-tag';
import { Type, type Static } from 'typebox';
import { addDays } from '../../../time.ts';
import { answerAmounts, type AnswerAmount } from '../../amounts.ts';
import { endOfDayBalances, flowDays } from '../../../rollups/addresses/balance-days.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { parseWindow } from '../../params/window.ts';
import { AddressPathParams, Day, NullableAmount, Nullable, STANDARD_ERRORS, WindowQuery, AddressEchoFields } from '../../schemas/common.ts';
import { addressEcho, type AddressEcho } from '../../params/address.ts';

const BalanceHistoryQuery = Type.Object({
  window: WindowQuery('all', 'Days up to the latest indexed block: a length with m, h, d, w or y (e.g. 30d, 90d, 365d), or all for the whole history', { allowAll: true }),
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

async function loadBalanceHistory(
  ctx: ApiContext,
  echo: AddressEcho,
  windowParam: string | undefined,
  amount: AnswerAmount,
): Promise<Static<typeof BalanceHistoryResponse>> {
  const window = parseWindow(windowParam, { fallback: 'all', allowAll: true });
  // The window's days end with the day of the latest block: a 1-day window is that day alone. The
  // series starts no earlier than the address's first active day; each point is the balance at
  // the end of its day, the current balance less the later days' net flows (rollups/addresses/balance-days.ts), so a
  // window reads only its own days.
  const [bounds] = await ctx.store.query<{ tip_day: string | null; first_day: string | null; balance: string | null }>(
    'addresses.balance_history.bounds',
    sql`SELECT (SELECT (DATE '1970-01-01' + (ts / 86400)::int)::text FROM blocks WHERE chain = ${echo.chain} ORDER BY height DESC LIMIT 1) AS tip_day,
               (SELECT day::text FROM address_daily WHERE chain = ${echo.chain} AND address = ${echo.address}
                  AND (received > 0 OR sent + fees > 0 OR tx_in > 0 OR tx_out > 0) ORDER BY day LIMIT 1) AS first_day,
               (SELECT balance::text FROM address_summary WHERE chain = ${echo.chain} AND address = ${echo.address}) AS balance`,
    { reusePlan: true }, // key lookups and the address's first day (a primary-key range read from its start)
  );
  const tip = bounds?.tip_day ?? null;
  const first = bounds?.first_day ?? null;
  if (tip === null || first === null || first > tip) return { items: [], count: 0, window_days: window.days, ...echo };
  const start = window.days === null ? first : addDays(tip, 1 - window.days);
  const from = start < first ? first : start;
  const flows = await flowDays(ctx.store, echo.chain, [echo.address], from, tip);
  const items = endOfDayBalances(BigInt(bounds?.balance ?? '0'), flows.get(echo.address), from, tip).map(({ day, row, balance }) => ({
    day,
    received: amount(row?.received ?? 0n, echo.address, 'received'),
    sent_with_fees: amount(row?.sentWithFees ?? 0n, echo.address, 'sent_with_fees'),
    tx_count_in: row?.txIn ?? 0,
    tx_count_out: row?.txOut ?? 0,
    // No stored balance for an address with active days: it is unknown (docs/indexing-pow.md).
    net_delta_cumulative: bounds?.balance == null ? null : amount(balance, echo.address, 'net_delta_cumulative'),
  }));
  return { items, count: items.length, window_days: window.days, ...echo };
}

export function balanceHistoryRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/:address/balance-history',
    {
      // A list: exported as CSV too (plugins/csv.ts).
      config: { csv: {} },
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
      const echo = addressEcho(ctx, request, request.params.chain, request.params.address);
      return loadBalanceHistory(ctx, echo, request.query.window, answerAmounts(request.log, echo.chain));
    },
  );
}
