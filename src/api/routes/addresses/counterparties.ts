/** GET /api/v1/{chain}/addresses/{address}/counterparties: the addresses it transacts with most. */
import sql, { raw } from 'sql-template-tag';
import { Type, type Static } from 'typebox';
import { answerAmounts, type AnswerAmount } from '../../amounts.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { formatTimestamp } from '../../../time.ts';
import { AddressPathParams, IntegerQuery, NullableAmount, StringEnum, STANDARD_ERRORS, Timestamp, AddressEchoFields } from '../../schemas/common.ts';
import { addressEcho, type AddressEcho } from '../../params/address.ts';

const COUNTERPARTY_DIRECTIONS = ['sent', 'received', 'both'] as const;
type CounterpartyDirection = (typeof COUNTERPARTY_DIRECTIONS)[number];

const CounterpartiesQuery = Type.Object({
  direction: Type.Optional(
    StringEnum(COUNTERPARTY_DIRECTIONS, {
      default: 'both',
      description: 'sent: only addresses this one sent to; received: only addresses it received from; both (default).',
    }),
  ),
  limit: IntegerQuery({ minimum: 1, maximum: 200, default: 20, description: 'Most counterparties returned (1 to 200).' }),
});

const CounterpartyItem = Type.Object({
  counterparty: Type.String(),
  tx_count_with: Type.Integer({
    description: 'Transactions with the counterparty: both = all between them; sent = those sent to it; received = those received from it.',
  }),
  total_sent_to_them: { ...NullableAmount, description: 'Native value sent to the counterparty; null with direction=received.' },
  total_received_from_them: { ...NullableAmount, description: 'Native value received from the counterparty; null with direction=sent.' },
  last_interaction: { ...Timestamp, description: 'Time of the latest transaction between the two, either way.' },
});

const CounterpartiesResponse = Type.Object({
  items: Type.Array(CounterpartyItem, { description: 'By tx_count_with descending, then counterparty address.' }),
  count: Type.Integer({ description: 'Number of items.' }),
  direction: StringEnum(COUNTERPARTY_DIRECTIONS),
  ...AddressEchoFields,
});

interface PairRow {
  counterparty: string;
  n: number;
  total_sent: string;
  total_received: string;
  last_ts: number;
}

/**
 * Each direction ranks by its own count. sent and received read an index ordered by that count
 * (migration 0020); both, the default, reads a partial index of the pairs with two transactions or
 * more, and only when those are fewer than `limit` the pairs with one, in address order (the
 * primary key's), which is their ranking order among themselves.
 */
const RANKING: Record<CounterpartyDirection, { count: string; filter: string }> = {
  both: { count: 'tx_count', filter: 'AND tx_count >= 2' },
  sent: { count: 'sent_count', filter: 'AND sent_count > 0' },
  received: { count: 'received_count', filter: 'AND received_count > 0' },
};

async function loadCounterparties(
  ctx: ApiContext,
  echo: AddressEcho,
  direction: CounterpartyDirection,
  limit: number,
  amount: AnswerAmount,
): Promise<Static<typeof CounterpartiesResponse>> {
  const { count, filter } = RANKING[direction];
  const rows = await ctx.store.query<PairRow>(
    `addresses.counterparties.${direction}`,
    sql`SELECT counterparty, ${raw(count)} AS n, total_sent, total_received, last_ts
        FROM address_counterparties
        WHERE chain = ${echo.chain} AND address = ${echo.address} ${raw(filter)}
        ORDER BY ${raw(count)} DESC, counterparty
        LIMIT ${limit}`,
    { reusePlan: true }, // the direction's index, in order
  );
  if (direction === 'both' && rows.length < limit) {
    rows.push(
      ...(await ctx.store.query<PairRow>(
        'addresses.counterparties.both_single',
        sql`SELECT counterparty, tx_count AS n, total_sent, total_received, last_ts
            FROM address_counterparties
            WHERE chain = ${echo.chain} AND address = ${echo.address} AND tx_count = 1
            ORDER BY counterparty
            LIMIT ${limit - rows.length}`,
        { reusePlan: true }, // the primary key, in order
      )),
    );
  }
  const items = rows.map((r) => ({
    counterparty: r.counterparty,
    tx_count_with: r.n,
    total_sent_to_them: direction === 'received' ? null : amount(r.total_sent, echo.address, 'total_sent_to_them'),
    total_received_from_them: direction === 'sent' ? null : amount(r.total_received, echo.address, 'total_received_from_them'),
    last_interaction: formatTimestamp(r.last_ts),
  }));
  return { items, count: items.length, direction, ...echo };
}

export function counterpartiesRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/:address/counterparties',
    {
      // A list: exported as CSV too (plugins/csv.ts).
      config: { csv: {} },
      schema: {
        tags: ['addresses'],
        operationId: 'getAddressCounterparties',
        summary: 'Top counterparties of an address by transaction count',
        params: AddressPathParams,
        querystring: CounterpartiesQuery,
        response: { 200: CounterpartiesResponse, ...STANDARD_ERRORS },
      },
    },
    async (request) => {
      const echo = addressEcho(ctx, request, request.params.chain, request.params.address);
      return loadCounterparties(ctx, echo, request.query.direction ?? 'both', request.query.limit, answerAmounts(request.log, echo.chain));
    },
  );
}
