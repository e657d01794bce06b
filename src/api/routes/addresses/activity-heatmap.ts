/** GET /api/v1/{chain}/addresses/{address}/activity-heatmap: transactions by UTC weekday and hour. */
import sql from 'sql-template-tag';
import { Type, type Static } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { AddressPathParams, STANDARD_ERRORS, AddressEchoFields } from '../../schemas/common.ts';
import { addressEcho, type AddressEcho } from '../../params/address.ts';

const HeatmapItem = Type.Object({
  day_of_week: Type.Integer({ minimum: 0, maximum: 6, description: 'UTC weekday, Monday = 0 … Sunday = 6.' }),
  hour_of_day: Type.Integer({ minimum: 0, maximum: 23, description: 'UTC hour.' }),
  tx_count_in: Type.Integer({ description: 'Transactions in the bucket in which the address receives.' }),
  tx_count_out: Type.Integer({ description: 'Transactions in the bucket that the address sends or signs.' }),
  tx_count_total: Type.Integer({ description: 'Transactions in the bucket touching the address (a self-transfer once).' }),
});

const HeatmapResponse = Type.Object({
  items: Type.Array(HeatmapItem, { description: 'Only buckets with activity, by weekday then hour; the client pads zeros.' }),
  count: Type.Integer({ description: 'Number of items.' }),
  ...AddressEchoFields,
});

async function loadHeatmap(ctx: ApiContext, echo: AddressEcho): Promise<Static<typeof HeatmapResponse>> {
  const rows = await ctx.store.query<{ day_of_week: number; hour_of_day: number; tx_in: number; tx_out: number; tx_total: number }>(
    'addresses.heatmap',
    sql`SELECT day_of_week, hour_of_day, tx_in, tx_out, tx_total FROM address_heatmap
        WHERE chain = ${echo.chain} AND address = ${echo.address} AND tx_total > 0
        ORDER BY day_of_week, hour_of_day`,
    { reusePlan: true }, // the address's primary-key range
  );
  const items = rows.map((r) => ({
    day_of_week: r.day_of_week,
    hour_of_day: r.hour_of_day,
    tx_count_in: r.tx_in,
    tx_count_out: r.tx_out,
    tx_count_total: r.tx_total,
  }));
  return { items, count: items.length, ...echo };
}

export function activityHeatmapRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/:address/activity-heatmap',
    {
      // A list: exported as CSV too (plugins/csv.ts).
      config: { csv: {} },
      schema: {
        tags: ['addresses'],
        operationId: 'getAddressActivityHeatmap',
        summary: 'Transactions of an address by UTC weekday and hour (sparse 7 x 24 grid)',
        params: AddressPathParams,
        response: { 200: HeatmapResponse, ...STANDARD_ERRORS },
      },
    },
    async (request) => loadHeatmap(ctx, addressEcho(ctx, request, request.params.chain, request.params.address)),
  );
}
