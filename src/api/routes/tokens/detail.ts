/** GET /api/v1/{chain}/tokens/{token}: a token with its supply, holders, transfers and creation. */
import { formatTimestampOrNull } from '../../../time.ts';
import { answerAmounts } from '../../amounts.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { problemResponse, STANDARD_ERRORS } from '../../schemas/common.ts';
import { TokenDetail } from '../../schemas/token.ts';
import { findToken, TokenPathParams } from './params.ts';
import { tokenSummary } from './summary.ts';

export function tokenDetailRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/:token',
    {
      schema: {
        tags: ['tokens'],
        operationId: 'getToken',
        summary: 'A token by its id (pos: contract address; pow: creating transaction\'s hash)',
        params: TokenPathParams,
        response: { 200: TokenDetail, ...STANDARD_ERRORS, 404: problemResponse('Unknown chain, or no stored token with this id.') },
      },
    },
    async (request) => {
      const { chain } = request.params;
      const row = await findToken(ctx, request, chain, request.params.token);
      return {
        chain,
        network: ctx.network(chain),
        ...tokenSummary(row, answerAmounts(request.log, chain)),
        creator: row.creator,
        created_tx: row.created_tx,
        created_height: row.created_height,
        created_at: formatTimestampOrNull(row.created_ts),
      };
    },
  );
}
