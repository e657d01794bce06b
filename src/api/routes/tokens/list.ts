/** GET /api/v1/{chain}/tokens: the chain's tokens by holders, transfers or newest, filtered by a name or symbol prefix, by cursor. */
import { Type } from 'typebox';
import { answerAmounts } from '../../amounts.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { invalidParam } from '../../problem.ts';
import { ChainPathParams, Nullable, StringEnum } from '../../schemas/common.ts';
import { TokenSummary } from '../../schemas/token.ts';
import { listRoute } from '../list-route.ts';
import { readTokens, TOKEN_SORTS, type PrefixRange } from './list.read.ts';
import { tokenSummary } from './summary.ts';

const TokensQuery = {
  sort: Type.Optional(
    StringEnum(TOKEN_SORTS, {
      default: 'holders',
      description: 'Order, each descending: holders (most holders first), transfers (most transfers first) or newest (latest first transfer first, pow: latest created).',
    }),
  ),
  q: Type.Optional(
    Type.String({
      maxLength: 64,
      description: 'Only tokens whose name or symbol starts with this text; ASCII letters match in either case.',
      examples: ['qrl'],
    }),
  ),
};

/** ASCII letters folded to lower case, as the prefix indexes fold names and symbols (migration 0092). */
const fold = (text: string) => text.replace(/[A-Z]/g, (c) => c.toLowerCase());

/** The range of folded text that starts with `prefix`: from it to the prefix with its last character's successor. */
export function prefixRange(prefix: string): PrefixRange {
  const folded = fold(prefix);
  const chars = [...folded];
  const last = chars.pop()!.codePointAt(0)! + 1;
  // Past the last code point nothing is above; the surrogates are not characters.
  const next = last > 0x10ffff ? null : last === 0xd800 ? 0xe000 : last;
  return { from: folded, below: next === null ? null : chars.join('') + String.fromCodePoint(next) };
}

export function tokenListRoute(app: RouteApp, ctx: ApiContext): void {
  listRoute(app, ctx, {
    path: '',
    tags: ['tokens'],
    operationId: 'getTokens',
    summary: 'The chain\'s tokens by holders, transfers or newest',
    params: ChainPathParams,
    query: TokensQuery,
    paging: { style: 'cursor', maxLimit: 100, defaultLimit: 25, keyLength: 2 },
    item: TokenSummary,
    order: 'By the sort, descending; ties by token id, descending.',
    totalDescription: 'Tokens of the chain (whose name or symbol starts with q, when given): every token with a transfer.',
    echo: {
      chain: Type.String(),
      network: Type.String(),
      sort: StringEnum(TOKEN_SORTS),
      q: Nullable(Type.String({ description: 'The name or symbol prefix; null without one.' })),
    },
    prepare: (ctx, { params, query, request }) => {
      const q = query.q === undefined || query.q === '' ? null : query.q;
      // Names and symbols are stored without control characters (sources/evm-rpc/tokens.ts), and NUL is no text to PostgreSQL.
      if (q !== null && /[\u0000-\u001f\u007f]/.test(q)) throw invalidParam('q', 'must not contain control characters');
      return {
        echo: { chain: params.chain, network: ctx.network(params.chain), sort: query.sort ?? 'holders', q },
        amount: answerAmounts(request.log, params.chain),
      };
    },
    cursorScope: ({ echo }) => `${echo.chain}|${echo.sort}|${echo.q ?? ''}`,
    async read(ctx, { echo, amount }, { limit, after }) {
      const { chain, sort, q } = echo;
      const key = after ? ([Number(after[0]), String(after[1])] as const) : null;
      const { rows, total } = await readTokens(ctx.store, { chain, sort, prefix: q === null ? null : prefixRange(q), after: key, limit: limit + 1 });
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      const sortKey = (row: (typeof page)[number]) => (sort === 'holders' ? row.holders : sort === 'transfers' ? row.transfers : row.first_height) ?? 0;
      return { items: page.map((row) => tokenSummary(row, amount)), total, hasMore: rows.length > limit, lastKey: last ? [sortKey(last), last.contract] : null };
    },
  });
}
