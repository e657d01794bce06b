/** GET /api/v1/{chain}/addresses/{address}/balance-history: one point per UTC day with the running balance. */
import { Type } from 'typebox';
import { addDays } from '../../../time.ts';
import { answerAmounts } from '../../amounts.ts';
import { endOfDayBalances, flowDays } from '../../../rollups/addresses/balance-days.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { parseWindow } from '../../params/window.ts';
import { AddressPathParams, Day, NullableAmount, Nullable, WindowQuery, AddressEchoFields } from '../../schemas/common.ts';
import { addressEcho } from '../../params/address.ts';
import { listRoute } from '../list-route.ts';
import { readHistoryBounds } from './balance-history.read.ts';

const BalanceHistoryQuery = {
  window: WindowQuery('all', 'Days up to the latest indexed block: a length with m, h, d, w or y (e.g. 30d, 90d, 365d), or all for the whole history', { allowAll: true }),
};

const BalanceHistoryItem = Type.Object({
  day: Day,
  received: { ...NullableAmount, description: 'Native value received that day (transfers, recipients, internal transfers, withdrawals, tips, genesis).' },
  sent_with_fees: { ...NullableAmount, description: 'Native value debited that day (value sent, fees included; a mint\'s sender is not debited).' },
  tx_count_in: Type.Integer({ description: 'Transactions that day in which the address receives.' }),
  tx_count_out: Type.Integer({ description: 'Transactions that day the address sends or signs.' }),
  net_delta_cumulative: { ...NullableAmount, description: 'Sum of received - sent_with_fees from the first day on: the balance at the end of the day.' },
});

export function balanceHistoryRoute(app: RouteApp, ctx: ApiContext): void {
  listRoute(app, ctx, {
    path: '/:address/balance-history',
    tags: ['addresses'],
    operationId: 'getAddressBalanceHistory',
    summary: 'Daily received, sent and running balance of an address',
    params: AddressPathParams,
    query: BalanceHistoryQuery,
    paging: { style: 'all' },
    item: BalanceHistoryItem,
    order: 'One item per day, oldest first, from the later of the window start and the address\'s first activity to the day of the latest indexed block; quiet days included.',
    echo: { window_days: Nullable(Type.Integer({ description: 'Days in the window; null for the whole history.' })), ...AddressEchoFields },
    prepare: (ctx, { params, query, request }) => {
      const address = addressEcho(ctx, request, params.chain, params.address);
      const window = parseWindow(query.window, { fallback: 'all', allowAll: true });
      return { echo: { window_days: window.days, ...address }, amount: answerAmounts(request.log, address.chain) };
    },
    async read(ctx, { echo, amount }) {
      // The window's days end with the day of the latest block: a 1-day window is that day alone. The
      // series starts no earlier than the address's first active day; each point is the balance at
      // the end of its day, the current balance less the later days' net flows (rollups/addresses/balance-days.ts),
      // so a window reads only its own days.
      const bounds = await readHistoryBounds(ctx.store, echo.chain, echo.address);
      const tip = bounds?.tip_day ?? null;
      const first = bounds?.first_day ?? null;
      if (tip === null || first === null || first > tip) return { items: [], total: null };
      const start = echo.window_days === null ? first : addDays(tip, 1 - echo.window_days);
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
      return { items, total: null };
    },
  });
}
