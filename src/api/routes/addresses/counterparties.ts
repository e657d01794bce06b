/** GET /api/v1/{chain}/addresses/{address}/counterparties: the addresses it transacts with most. */
import { Type } from 'typebox';
import { answerAmounts } from '../../amounts.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { formatTimestamp } from '../../../time.ts';
import { AddressPathParams, NullableAmount, StringEnum, Timestamp, AddressEchoFields } from '../../schemas/common.ts';
import { addressEcho } from '../../params/address.ts';
import { listRoute } from '../list-route.ts';
import { COUNTERPARTY_DIRECTIONS, readCounterparties } from './counterparties.read.ts';

const CounterpartiesQuery = {
  direction: Type.Optional(
    StringEnum(COUNTERPARTY_DIRECTIONS, {
      default: 'both',
      description: 'sent: only addresses this one sent to; received: only addresses it received from; both (default).',
    }),
  ),
};

const CounterpartyItem = Type.Object({
  counterparty: Type.String(),
  tx_count_with: Type.Integer({
    description: 'Transactions with the counterparty: both = all between them; sent = those sent to it; received = those received from it.',
  }),
  total_sent_to_them: { ...NullableAmount, description: 'Native value sent to the counterparty; null with direction=received.' },
  total_received_from_them: { ...NullableAmount, description: 'Native value received from the counterparty; null with direction=sent.' },
  last_interaction: { ...Timestamp, description: 'Time of the latest transaction between the two, either way.' },
});

export function counterpartiesRoute(app: RouteApp, ctx: ApiContext): void {
  listRoute(app, ctx, {
    path: '/:address/counterparties',
    tags: ['addresses'],
    operationId: 'getAddressCounterparties',
    summary: 'Top counterparties of an address by transaction count',
    params: AddressPathParams,
    query: CounterpartiesQuery,
    paging: { style: 'top', maxLimit: 200, defaultLimit: 20, noun: 'counterparties' },
    item: CounterpartyItem,
    order: 'By tx_count_with descending, then counterparty address.',
    echo: { direction: StringEnum(COUNTERPARTY_DIRECTIONS), ...AddressEchoFields },
    prepare: (ctx, { params, query, request }) => {
      const address = addressEcho(ctx, request, params.chain, params.address);
      return { echo: { direction: query.direction ?? 'both', ...address }, amount: answerAmounts(request.log, address.chain) };
    },
    async read(ctx, { echo, amount }, { limit }) {
      const { direction } = echo;
      const rows = await readCounterparties(ctx.store, echo.chain, echo.address, direction, limit);
      const items = rows.map((r) => ({
        counterparty: r.counterparty,
        tx_count_with: r.n,
        total_sent_to_them: direction === 'received' ? null : amount(r.total_sent, echo.address, 'total_sent_to_them'),
        total_received_from_them: direction === 'sent' ? null : amount(r.total_received, echo.address, 'total_received_from_them'),
        last_interaction: formatTimestamp(r.last_ts),
      }));
      return { items, total: null };
    },
  });
}
