/** GET /api/v1/{chain}/addresses/{address}/slaves: slave keys registered under a pow master. */
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { formatTimestamp, formatTimestampOrNull } from '../../../time.ts';
import { AddressPathParams, NullableTimestamp, Timestamp, AddressEchoFields } from '../../schemas/common.ts';
import { addressEcho } from '../../params/address.ts';
import { listRoute } from '../list-route.ts';
import { readSlaves } from './slaves.read.ts';

const SlaveItem = Type.Object({
  slave_address: Type.String({ description: 'The slave address.' }),
  access_type: Type.Integer({ description: 'Access type granted by the registration (0 = all).' }),
  registered_at: Timestamp,
  registered_height: Type.Integer({ description: 'Height of the block of the registering slave transaction.' }),
  tx_count: Type.Integer({ description: 'Transactions touching the slave address (for a slave: mostly those it signed for its master).' }),
  first_seen: { ...NullableTimestamp, description: 'First activity of the slave address.' },
  last_seen: { ...NullableTimestamp, description: 'Latest activity of the slave address.' },
});

export function slavesRoute(app: RouteApp, ctx: ApiContext): void {
  listRoute(app, ctx, {
    path: '/:address/slaves',
    tags: ['addresses'],
    operationId: 'getAddressSlaves',
    summary: 'Slave keys registered under a pow master address (empty on pos)',
    params: AddressPathParams,
    paging: { style: 'offset', maxLimit: 200, defaultLimit: 25 },
    item: SlaveItem,
    order: 'Newest registration first.',
    totalDescription: 'Slave keys registered under this master.',
    echo: AddressEchoFields,
    prepare: (ctx, { params, request }) => ({ echo: addressEcho(ctx, request, params.chain, params.address) }),
    async read(ctx, { echo }, { limit, offset }) {
      if (echo.chain !== 'pow') return { items: [], total: 0 };
      const { rows, total } = await readSlaves(ctx.store, echo.chain, echo.address, limit, offset ?? 0);
      const items = rows.map((r) => ({
        slave_address: r.slave_address,
        access_type: r.access_type,
        registered_at: formatTimestamp(r.ts),
        registered_height: r.height,
        tx_count: r.tx_count ?? 0,
        first_seen: formatTimestampOrNull(r.first_seen),
        last_seen: formatTimestampOrNull(r.last_seen),
      }));
      return { items, total };
    },
  });
}
