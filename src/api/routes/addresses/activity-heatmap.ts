/** GET /api/v1/{chain}/addresses/{address}/activity-heatmap: transactions by UTC weekday and hour. */
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { AddressPathParams, AddressEchoFields } from '../../schemas/common.ts';
import { addressEcho } from '../../params/address.ts';
import { listRoute } from '../list-route.ts';
import { readHeatmap } from './activity-heatmap.read.ts';

const HeatmapItem = Type.Object({
  day_of_week: Type.Integer({ minimum: 0, maximum: 6, description: 'UTC weekday, Monday = 0 … Sunday = 6.' }),
  hour_of_day: Type.Integer({ minimum: 0, maximum: 23, description: 'UTC hour.' }),
  tx_count_in: Type.Integer({ description: 'Transactions in the bucket in which the address receives.' }),
  tx_count_out: Type.Integer({ description: 'Transactions in the bucket that the address sends or signs.' }),
  tx_count_total: Type.Integer({ description: 'Transactions in the bucket touching the address (a self-transfer once).' }),
});

export function activityHeatmapRoute(app: RouteApp, ctx: ApiContext): void {
  listRoute(app, ctx, {
    path: '/:address/activity-heatmap',
    tags: ['addresses'],
    operationId: 'getAddressActivityHeatmap',
    summary: 'Transactions of an address by UTC weekday and hour (sparse 7 x 24 grid)',
    params: AddressPathParams,
    paging: { style: 'all' },
    item: HeatmapItem,
    order: 'Only buckets with activity, by weekday then hour; the client pads zeros.',
    echo: AddressEchoFields,
    prepare: (ctx, { params, request }) => ({ echo: addressEcho(ctx, request, params.chain, params.address) }),
    async read(ctx, { echo }) {
      const rows = await readHeatmap(ctx.store, echo.chain, echo.address);
      const items = rows.map((r) => ({ day_of_week: r.day_of_week, hour_of_day: r.hour_of_day, tx_count_in: r.tx_in, tx_count_out: r.tx_out, tx_count_total: r.tx_total }));
      return { items, total: items.length };
    },
  });
}
