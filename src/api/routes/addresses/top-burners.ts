/**
 * GET /api/v1/{chain}/addresses/top/burners: the addresses that paid the most fees in a window
 * (pos only; pow answers an empty list). Definitions: docs/metrics.md, "Top burners".
 */
import sql from 'sql-template-tag';
import { Type, type Static } from 'typebox';
import type { ChainId } from '../../../chain/chains.ts';
import { answerAmounts, type AnswerAmount } from '../../amounts.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { parseWindow } from '../../params/window.ts';
import { ChainPathParams, NullableAmount, IntegerQuery, STANDARD_ERRORS, WindowQuery } from '../../schemas/common.ts';
import { FEE_WINDOW_DAYS } from '../../../rollups/fee-windows.ts';
import { tipTimeSql } from '../../../rollups/tip.ts';
import { addDays, formatDay } from '../../../time.ts';

const TopBurnersQuery = Type.Object({
  limit: IntegerQuery({ minimum: 1, maximum: 500, default: 50, description: 'Most addresses returned (1 to 500).' }),
  window: WindowQuery('7d', 'Window: whole UTC days ending with the latest block’s day (a length rounds up to days)'),
});

const BurnerItem = Type.Object({
  address: Type.String(),
  tx_count: Type.Integer({ description: 'Transactions the address sent in the window (reverted ones too).' }),
  total_fees_paid: { ...NullableAmount, description: 'Fees paid in the window (base fee burned plus priority fee), planck.' },
  total_gas_used: Type.Integer({ description: 'Gas used by those transactions.' }),
});

const TopBurnersResponse = Type.Object({
  items: Type.Array(BurnerItem, { description: 'By total_fees_paid descending, then address; only addresses that paid fees.' }),
});

interface BurnerRow {
  address: string;
  tx_count: number;
  fees: string;
  gas_used: number;
}

/** The window as UTC days: the `days` days ending with the tip's day. */
function windowDays(tipTs: number, days: number): { from: string; to: string } {
  const to = formatDay(tipTs);
  return { from: addDays(to, 1 - days), to };
}

async function loadTopBurners(ctx: ApiContext, chain: ChainId, limit: number, days: number, amount: AnswerAmount): Promise<Static<typeof TopBurnersResponse>> {
  if (chain !== 'pos') return { items: [] };
  const [span] = await ctx.store.query<{ tip_ts: number | null; first_ts: number | null; kept_day: string | null }>(
    'addresses.burners.span',
    sql`SELECT ${tipTimeSql(chain)} AS tip_ts,
               (SELECT ts FROM blocks WHERE chain = ${chain} ORDER BY height LIMIT 1) AS first_ts,
               (SELECT tip_day FROM fee_window_state WHERE chain = ${chain}) AS kept_day`,
    { reusePlan: true }, // key lookups
  );
  if (span?.tip_ts == null || span.first_ts == null) return { items: [] };
  const { from, to } = windowDays(span.tip_ts, days);
  let rows: BurnerRow[];
  if ((FEE_WINDOW_DAYS as readonly number[]).includes(days) && span.kept_day === to) {
    // A window kept with the blocks (src/rollups/fee-windows.ts), read in the order of its index.
    rows = await ctx.store.query<BurnerRow>(
      'addresses.burners.kept',
      sql`SELECT address, tx_count, fees, gas_used FROM address_fee_windows
          WHERE chain = ${chain} AND days = ${days}
          ORDER BY fees DESC, address LIMIT ${limit}`,
      { reusePlan: true }, // the window's index, in order
    );
  } else if (from <= formatDay(span.first_ts)) {
    // The window holds the whole history: the all-time totals, in the order of their index.
    rows = await ctx.store.query<BurnerRow>(
      'addresses.burners.all_time',
      sql`SELECT address, tx_sent_count AS tx_count, total_fees_paid AS fees, gas_used FROM address_summary
          WHERE chain = ${chain} AND total_fees_paid > 0
          ORDER BY total_fees_paid DESC, address LIMIT ${limit}`,
    );
  } else {
    // Any other window: summed from the days it covers.
    rows = await ctx.store.query<BurnerRow>(
      'addresses.burners.window',
      sql`SELECT address, sum(tx_out)::bigint AS tx_count, sum(fees) AS fees, sum(gas_used)::bigint AS gas_used
          FROM address_daily
          WHERE chain = ${chain} AND day >= ${from}::date
          GROUP BY address
          HAVING sum(fees) > 0
          ORDER BY sum(fees) DESC, address LIMIT ${limit}`,
    );
  }
  return { items: rows.map((r) => ({ address: r.address, tx_count: Number(r.tx_count), total_fees_paid: amount(r.fees, r.address, 'total_fees_paid'), total_gas_used: Number(r.gas_used) })) };
}

export function topBurnersRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/top/burners',
    {
      schema: {
        tags: ['addresses'],
        operationId: 'getTopBurners',
        summary: 'Addresses that paid the most fees in a window (pos)',
        params: ChainPathParams,
        querystring: TopBurnersQuery,
        response: { 200: TopBurnersResponse, ...STANDARD_ERRORS },
      },
    },
    async (request) => {
      const window = parseWindow(request.query.window, { fallback: '7d' });
      return loadTopBurners(ctx, request.params.chain, request.query.limit, window.days!, answerAmounts(request.log, request.params.chain));
    },
  );
}
