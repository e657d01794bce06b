/** GET /api/v1/{chain}/tokens/{token}/transfers: a token's transfers, newest first, by cursor. */
import { Type } from 'typebox';
import { formatTimestamp } from '../../../time.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Nullable, NullableAmount, Timestamp } from '../../schemas/common.ts';
import { TokenDisplay } from '../../schemas/token.ts';
import { keysetPage, listRoute } from '../list-route.ts';
import { TOKEN_LIST } from './params.ts';
import { tokenDisplay } from './summary.ts';
import { readTransfers } from './transfers.read.ts';

const TokenTransfer = Type.Object({
  tx_hash: Type.String(),
  height: Type.Integer(),
  block_hash: Nullable(Type.String()),
  timestamp: Timestamp,
  tx_index: Type.Integer({ description: 'Position of the transaction in its block.' }),
  log_index: Type.Integer({ description: 'pos: the Transfer log\'s index in the block; pow: the entry\'s position in its transaction.' }),
  from_addr: Type.String({ description: 'The sender; the zero address (pow: the coinbase sentinel) for a mint or an initial balance.' }),
  to_addr: Type.String({ description: 'The recipient; the zero address for a burn.' }),
  amount: { ...NullableAmount, description: 'In the token\'s smallest unit, exact.' },
  amount_display: TokenDisplay('amount'),
});

export function tokenTransfersRoute(app: RouteApp, ctx: ApiContext): void {
  listRoute(app, ctx, {
    path: '/:token/transfers',
    operationId: 'getTokenTransfers',
    summary: 'A token\'s transfers, newest first, by cursor',
    paging: { style: 'cursor', maxLimit: 100, defaultLimit: 25, keyLength: 3 },
    item: TokenTransfer,
    order: 'Newest first: by height, position in the block and log index, descending.',
    totalDescription: 'Transfers of the token (exact).',
    ...TOKEN_LIST,
    async read(ctx, { echo, token, amount }, { limit, after }) {
      const key = after ? ([Number(after[0]), Number(after[1]), Number(after[2])] as const) : null;
      const rows = await readTransfers(ctx.store, echo.chain, echo.token, key, limit + 1);
      const item = (row: (typeof rows)[number]) => {
        const value = amount(row.amount, row.from_addr, 'amount', { token: echo.token, tx_hash: row.tx_hash });
        return {
          tx_hash: row.tx_hash,
          height: row.height,
          block_hash: row.block_hash,
          timestamp: formatTimestamp(row.ts),
          tx_index: row.tx_index,
          log_index: row.log_index,
          from_addr: row.from_addr,
          to_addr: row.to_addr,
          amount: value,
          amount_display: tokenDisplay(value, token.decimals),
        };
      };
      return keysetPage(rows, limit, token.transfers ?? 0, item, (row) => [row.height, row.tx_index, row.log_index]);
    },
  });
}
