/** GET /api/v1/{chain}/tokens/{token}/holders: a token's holders, richest first, with exact balances and shares, by cursor. */
import { Type } from 'typebox';
import { formatTimestampOrNull } from '../../../time.ts';
import { percentOf } from '../../amounts.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Nullable, NullableAmount, NullableTimestamp } from '../../schemas/common.ts';
import { TokenDisplay } from '../../schemas/token.ts';
import { subjectRowsRoute } from '../subject-list.ts';
import { readHolders } from './holders.read.ts';
import { TOKEN_LIST } from './params.ts';
import { tokenDisplay } from './summary.ts';

const TokenHolder = Type.Object({
  address: Type.String({ description: 'The holder, in canonical form.' }),
  balance: { ...NullableAmount, description: 'Its balance in the token\'s smallest unit, exact.' },
  balance_display: TokenDisplay('balance'),
  share_pct: Nullable(Type.Number({ description: 'balance as a percentage of the token\'s total supply (0 to 100), from exact integers; null when the supply is not positive.' })),
  transfer_count: Type.Integer({ description: 'Transfers of this token touching the holder.' }),
  last_activity: { ...NullableTimestamp, description: 'Time of the latest such transfer.' },
});

export function tokenHoldersRoute(app: RouteApp, ctx: ApiContext): void {
  subjectRowsRoute(app, ctx, TOKEN_LIST, {
    path: '/:token/holders',
    operationId: 'getTokenHolders',
    summary: 'A token\'s holders, richest first, by cursor',
    item: TokenHolder,
    order: 'Richest first: by balance, descending; equal balances by address, descending. Positive balances only.',
    totalDescription: 'Holders of the token: addresses with a positive balance (exact).',
    key: ['text', 'text'],
    rows: async (ctx, { echo, token }, after, count) => ({ rows: await readHolders(ctx.store, echo.chain, echo.token, after, count), total: token.holders ?? 0 }),
    toItem(row, { echo, token, amount }) {
      const balance = amount(row.balance, row.address, 'balance', { token: echo.token });
      const supply = token.supply === null ? 0n : BigInt(token.supply);
      return {
        address: row.address,
        balance,
        balance_display: tokenDisplay(balance, token.decimals),
        share_pct: supply > 0n ? percentOf(BigInt(row.balance), supply) : null,
        transfer_count: row.transfer_count,
        last_activity: formatTimestampOrNull(row.last_ts),
      };
    },
    keyOf: (row) => [row.balance, row.address],
  });
}
