/** GET /api/v1/{chain}/addresses/{address}/token-holdings: fungible tokens an address holds now (pos). */
import sql from 'sql-template-tag';
import { Type, type Static } from 'typebox';
import { answerAmounts, formatUnits, type AnswerAmount } from '../../amounts.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { formatTimestampOrNull } from '../../../time.ts';
import { AddressPathParams, IntegerQuery, NullableAmount, Nullable, NullableTimestamp, STANDARD_ERRORS, AddressEchoFields } from '../../schemas/common.ts';
import { addressEcho, type AddressEcho } from '../../params/address.ts';

const TokenHoldingsQuery = Type.Object({
  limit: IntegerQuery({ minimum: 1, maximum: 500, default: 100, description: 'Most tokens returned (1 to 500).' }),
});

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

const TokenHoldingsResponse = Type.Object({
  items: Type.Array(TokenHoldingItem, { description: 'Tokens with a positive balance, largest display balance first.' }),
  count: Type.Integer({ description: 'Number of items.' }),
  ...AddressEchoFields,
});

interface HoldingRow {
  contract: string;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  balance: string;
  transfer_count: number;
  last_ts: number | null;
}

async function loadTokenHoldings(ctx: ApiContext, echo: AddressEcho, limit: number, amount: AnswerAmount): Promise<Static<typeof TokenHoldingsResponse>> {
  if (echo.chain !== 'pos') return { items: [], count: 0, ...echo };
  // Richest first by the displayed amount: raw balances scaled to a common number of decimals
  // (exact NUMERIC arithmetic), so that 2 units of an 18-decimal token outrank 1 of a 6-decimal one.
  const rows = await ctx.store.query<HoldingRow>(
    'addresses.token_holdings',
    sql`SELECT b.contract, c.name, c.symbol, c.decimals, b.balance, b.transfer_count, b.last_ts
        FROM token_balances b
        LEFT JOIN token_contracts c ON c.chain = b.chain AND c.address = b.contract
        WHERE b.chain = ${echo.chain} AND b.address = ${echo.address} AND b.balance > 0
        ORDER BY b.balance * (10::numeric ^ (255 - least(greatest(coalesce(c.decimals, 0), 0), 255))) DESC, b.contract
        LIMIT ${limit}`,
    { reusePlan: true }, // the address's primary-key range
  );
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
  return { items, count: items.length, ...echo };
}

export function tokenHoldingsRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/:address/token-holdings',
    {
      // A list: exported as CSV too (plugins/csv.ts).
      config: { csv: {} },
      schema: {
        tags: ['addresses'],
        operationId: 'getAddressTokenHoldings',
        summary: 'Fungible tokens an address holds (pos; empty on pow), richest first',
        params: AddressPathParams,
        querystring: TokenHoldingsQuery,
        response: { 200: TokenHoldingsResponse, ...STANDARD_ERRORS },
      },
    },
    async (request) => {
      const echo = addressEcho(ctx, request, request.params.chain, request.params.address);
      return loadTokenHoldings(ctx, echo, request.query.limit, answerAmounts(request.log, echo.chain));
    },
  );
}
