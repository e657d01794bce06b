/** GET /api/v1/{chain}/addresses/{address}/token-holdings: fungible tokens an address holds now (pos). */
import { Type } from 'typebox';
import { answerAmounts, formatUnits } from '../../amounts.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { formatTimestampOrNull } from '../../../time.ts';
import { AddressPathParams, NullableAmount, Nullable, NullableTimestamp, AddressEchoFields } from '../../schemas/common.ts';
import { addressEcho } from '../../params/address.ts';
import { listRoute } from '../list-route.ts';
import { readTokenHoldings } from './token-holdings.read.ts';

const TokenHoldingItem = Type.Object({
  token_contract: Type.String({ description: 'Token contract address.' }),
  token_name: Nullable(Type.String({ description: 'Token name; null when the contract does not say.' })),
  token_symbol: Nullable(Type.String({ description: 'Token symbol; null when the contract does not say.' })),
  token_decimals: Nullable(Type.Integer({ description: 'Decimals of the token; null when the contract does not say (the display then uses 0).' })),
  balance_raw: { ...NullableAmount, description: 'Balance in the token\'s smallest unit.' },
  balance_display: Nullable(
    Type.String({
      pattern: '^[0-9]+(\\.[0-9]+)?$',
      description: 'balance_raw shifted by token_decimals, exact, without trailing zeros (e.g. 1.5); null when balance_raw is.',
      examples: ['1.5'],
    }),
  ),
  transfer_count: Type.Integer({ description: 'Token transfers of this token touching the address.' }),
  last_activity: { ...NullableTimestamp, description: 'Time of the latest such transfer.' },
});

export function tokenHoldingsRoute(app: RouteApp, ctx: ApiContext): void {
  listRoute(app, ctx, {
    path: '/:address/token-holdings',
    tags: ['addresses'],
    operationId: 'getAddressTokenHoldings',
    summary: 'Fungible tokens an address holds (pos; empty on pow), richest first',
    params: AddressPathParams,
    paging: { style: 'top', maxLimit: 500, defaultLimit: 100, noun: 'tokens' },
    item: TokenHoldingItem,
    order: 'Tokens with a positive balance, largest display balance first.',
    echo: AddressEchoFields,
    prepare: (ctx, { params, request }) => {
      const echo = addressEcho(ctx, request, params.chain, params.address);
      return { echo, amount: answerAmounts(request.log, echo.chain) };
    },
    async read(ctx, { echo, amount }, { limit }) {
      if (echo.chain !== 'pos') return { items: [], total: null };
      const rows = await readTokenHoldings(ctx.store, echo.chain, echo.address, limit);
      const items = rows.map((r) => {
        const balance = amount(r.balance, echo.address, 'balance_raw', { token_contract: r.contract });
        return {
          token_contract: r.contract,
          token_name: r.name,
          token_symbol: r.symbol,
          token_decimals: r.decimals,
          balance_raw: balance,
          balance_display: balance === null ? null : formatUnits(balance, Math.max(0, r.decimals ?? 0)),
          transfer_count: r.transfer_count,
          last_activity: formatTimestampOrNull(r.last_ts),
        };
      });
      return { items, total: null };
    },
  });
}
