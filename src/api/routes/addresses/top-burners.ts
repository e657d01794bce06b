/**
 * GET /api/v1/{chain}/addresses/top/burners: the addresses that paid the most fees in a window
 * (pos only; pow answers an empty list). Definitions: docs/metrics.md, "Top burners".
 */
import { Type } from 'typebox';
import { answerAmounts } from '../../amounts.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { parseWindow } from '../../params/window.ts';
import { ChainPathParams, NullableAmount, WindowQuery } from '../../schemas/common.ts';
import { listRoute } from '../list-route.ts';
import { readTopBurners } from './top-burners.read.ts';

const BurnerItem = Type.Object({
  address: Type.String(),
  tx_count: Type.Integer({ description: 'Transactions the address sent in the window (reverted ones too).' }),
  total_fees_paid: { ...NullableAmount, description: 'Fees paid in the window (base fee burned plus priority fee), planck.' },
  total_gas_used: Type.Integer({ description: 'Gas used by those transactions.' }),
});

export function topBurnersRoute(app: RouteApp, ctx: ApiContext): void {
  listRoute(app, ctx, {
    path: '/top/burners',
    tags: ['addresses'],
    operationId: 'getTopBurners',
    summary: 'Addresses that paid the most fees in a window (pos)',
    params: ChainPathParams,
    query: {
      window: WindowQuery(
        '7d',
        'Window: in minutes or hours, exactly that long, ending at the latest block’s time (24h: blocks with a time in (T − 86,400, T]); in days, weeks or years, whole UTC days ending with the latest block’s day',
      ),
    },
    paging: { style: 'top', maxLimit: 500, defaultLimit: 50, noun: 'addresses', count: false },
    item: BurnerItem,
    order: 'By total_fees_paid descending, then address; only addresses that paid fees.',
    echo: {},
    prepare: (_ctx, { params, query, request }) => {
      const window = parseWindow(query.window, { fallback: '7d' });
      return { chain: params.chain, window: window.rolling ? { seconds: window.seconds! } : { days: window.days! }, amount: answerAmounts(request.log, params.chain), echo: {} };
    },
    async read(ctx, { chain, window, amount }, { limit }) {
      const rows = await readTopBurners(ctx.store, chain, limit, window);
      const items = rows.map((r) => ({ address: r.address, tx_count: Number(r.tx_count), total_fees_paid: amount(r.fees, r.address, 'total_fees_paid'), total_gas_used: Number(r.gas_used) }));
      return { items, total: null };
    },
  });
}
