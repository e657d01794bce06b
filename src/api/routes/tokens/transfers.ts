/** GET /api/v1/{chain}/tokens/{token}/transfers: a token's transfers, newest first, by cursor. */
import { Type } from 'typebox';
import { formatTimestamp } from '../../../time.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Nullable, NullableAmount, Timestamp } from '../../schemas/common.ts';
import { TokenDisplay } from '../../schemas/token.ts';
import { subjectRowsRoute } from '../subject-list.ts';
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
  subjectRowsRoute(app, ctx, TOKEN_LIST, {
    path: '/:token/transfers',
    operationId: 'getTokenTransfers',
    summary: 'A token\'s transfers, newest first, by cursor',
    item: TokenTransfer,
    order: 'Newest first: by height, position in the block and log index, descending.',
    totalDescription: 'Transfers of the token (exact).',
    key: ['int', 'int', 'int'],
    rows: async (ctx, { echo, token }, after, count) => ({ rows: await readTransfers(ctx.store, echo.chain, echo.token, after, count), total: token.transfers ?? 0 }),
    toItem(row, { echo, token, amount }) {
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
    },
    keyOf: (row) => [row.height, row.tx_index, row.log_index],
  });
}
