/** GET /api/v1/{chain}/addresses/{address}/slaves: slave keys registered under a pow master. */
import sql from 'sql-template-tag';
import { Type, type Static } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { formatTimestamp, formatTimestampOrNull } from '../../../time.ts';
import { AddressPathParams, IntegerQuery, Nullable, NullableTimestamp, STANDARD_ERRORS, Timestamp, AddressEchoFields } from '../../schemas/common.ts';
import { addressEcho, type AddressEcho } from '../../params/address.ts';

const SlavesQuery = Type.Object({
  limit: IntegerQuery({ minimum: 1, maximum: 200, default: 25, description: 'Items per page (1 to 200).' }),
  offset: IntegerQuery({ minimum: 0, default: 0, description: 'Items skipped.' }),
});

const SlaveItem = Type.Object({
  slave_address: Type.String({ description: 'The slave address.' }),
  access_type: Type.Integer({ description: 'Access type granted by the registration (0 = all).' }),
  registered_at: Timestamp,
  registered_height: Type.Integer({ description: 'Height of the block of the registering slave transaction.' }),
  tx_count: Type.Integer({ description: 'Transactions touching the slave address (for a slave: mostly those it signed for its master).' }),
  first_seen: { ...NullableTimestamp, description: 'First activity of the slave address.' },
  last_seen: { ...NullableTimestamp, description: 'Latest activity of the slave address.' },
});

const SlavesResponse = Type.Object({
  items: Type.Array(SlaveItem, { description: 'Newest registration first.' }),
  count: Type.Integer({ description: 'Number of items in this page.' }),
  total: Type.Integer({ description: 'Slave keys registered under this master.' }),
  limit: Type.Integer(),
  offset: Type.Integer(),
  has_next: Type.Boolean(),
  has_prev: Type.Boolean(),
  next_cursor: Nullable(Type.String({ description: 'Always null: this list pages by offset.' })),
  ...AddressEchoFields,
});

interface SlaveRow {
  slave_address: string;
  access_type: number;
  ts: number;
  height: number;
  tx_count: number | null;
  first_seen: number | null;
  last_seen: number | null;
}

async function loadSlaves(
  ctx: ApiContext,
  echo: AddressEcho,
  limit: number,
  offset: number,
): Promise<Static<typeof SlavesResponse>> {
  const page = { limit, offset, has_prev: offset > 0, next_cursor: null };
  if (echo.chain !== 'pow') return { items: [], count: 0, total: 0, has_next: false, ...page, ...echo };
  // The count and the page in one statement; the page's slaves with their own summaries.
  const found = await ctx.store.query<SlaveRow & { total: number }>(
    'addresses.slaves.page',
    sql`SELECT counted.total, p.*
        FROM (SELECT count(*)::int AS total FROM slaves WHERE chain = ${echo.chain} AND master_address = ${echo.address}) AS counted
        LEFT JOIN LATERAL (
          SELECT sl.slave_address, sl.access_type, sl.ts, sl.height, s.tx_count, s.first_seen, s.last_seen
          FROM slaves sl
          LEFT JOIN address_summary s ON s.chain = sl.chain AND s.address = sl.slave_address
          WHERE sl.chain = ${echo.chain} AND sl.master_address = ${echo.address}
          ORDER BY sl.height DESC, sl.tx_index DESC, sl.slave_address
          LIMIT ${limit} OFFSET ${offset}
        ) AS p ON true`,
    { reusePlan: true }, // the master's index range, in order
  );
  const total = found[0]?.total ?? 0;
  const rows = found.filter((r) => r.slave_address !== null);
  const items = rows.map((r) => ({
    slave_address: r.slave_address,
    access_type: r.access_type,
    registered_at: formatTimestamp(r.ts),
    registered_height: r.height,
    tx_count: r.tx_count ?? 0,
    first_seen: formatTimestampOrNull(r.first_seen),
    last_seen: formatTimestampOrNull(r.last_seen),
  }));
  return { items, count: items.length, total, has_next: offset + items.length < total, ...page, ...echo };
}

export function slavesRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/:address/slaves',
    {
      // A list: exported as CSV too (plugins/csv.ts).
      config: { csv: {} },
      schema: {
        tags: ['addresses'],
        operationId: 'getAddressSlaves',
        summary: 'Slave keys registered under a pow master address (empty on pos)',
        params: AddressPathParams,
        querystring: SlavesQuery,
        response: { 200: SlavesResponse, ...STANDARD_ERRORS },
      },
    },
    async (request) => {
      const echo = addressEcho(ctx, request, request.params.chain, request.params.address);
      return loadSlaves(ctx, echo, request.query.limit, request.query.offset);
    },
  );
}
