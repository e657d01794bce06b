/**
 * GET /api/v1/search?q=…: blocks, transactions, addresses, tokens and labels of both chains that
 * `q` names, most relevant first, each with the path of the GET that resolves it
 * (docs/api-search.md).
 */
import { Type } from 'typebox';
import { formatTimestamp } from '../../../time.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Nullable, NullableTimestamp, StringEnum } from '../../schemas/common.ts';
import { listRoute } from '../list-route.ts';
import { MAX_PER_KIND, rankHits } from './rank.ts';
import { readSearchCandidates, type SearchRow } from './search.read.ts';
import { MAX_QUERY_LENGTH, searchTerms } from './terms.ts';

const KINDS = ['block', 'transaction', 'address', 'token', 'label'] as const;
const MATCHES = ['hash', 'height', 'address', 'token_id', 'symbol', 'name', 'label'] as const;

const SearchHit = Type.Object({
  kind: StringEnum(KINDS, { description: 'What the hit is: a block, a transaction, an address, a token, or a labelled address.' }),
  chain: StringEnum(['pow', 'pos'] as const),
  id: Type.String({
    description: 'The thing itself: a block\'s hash, a transaction\'s hash, an address (Q form), a token\'s id (pos: its contract address; pow: its creating transaction\'s hash), a labelled address.',
  }),
  label: Nullable(Type.String({ description: 'What to show: an address\'s primary label, a token\'s name (its symbol without one), the label that matched; null for blocks and transactions.' })),
  path: Type.String({ description: 'The GET that resolves the hit, under the same base URL (e.g. /api/v1/pos/blocks/0x…).' }),
  match: StringEnum(MATCHES, { description: 'What q matched: the hash, the height, the address, the token\'s id, or the start of a symbol, a name or a label.' }),
  exact: Type.Boolean({ description: 'q is the whole identifier or text (case-insensitive), not only its start.' }),
  height: Nullable(Type.Integer({ description: 'Blocks and transactions: the block\'s height; tokens: the height of the creating block.' })),
  timestamp: { ...NullableTimestamp, description: 'Blocks and transactions: the block\'s time; tokens: the creating block\'s time.' },
  tx_count: Nullable(Type.Integer({ description: 'Blocks: transactions in the block; addresses and labels: transactions touching the address, null when the store has never seen it.' })),
  symbol: Nullable(Type.String({ description: 'Tokens: the symbol.' })),
  category: Nullable(Type.String({ description: 'Labels, and addresses with a primary label: the label\'s category.' })),
});

/** The API path that answers a hit with one GET; a token's is its token page (docs/api-tokens.md). */
function pathOf(row: SearchRow): string {
  const base = `/api/v1/${row.chain}`;
  switch (row.kind) {
    case 'block':
      return `${base}/blocks/${row.id}`;
    case 'transaction':
      return `${base}/transactions/${row.id}`;
    case 'token':
      return `${base}/tokens/${row.id}`;
    case 'address':
    case 'label':
      return `${base}/addresses/${row.id}`;
  }
}

export function searchRoute(app: RouteApp, ctx: ApiContext): void {
  listRoute(app, ctx, {
    path: '/search',
    tags: ['search'],
    operationId: 'search',
    summary: 'Blocks, transactions, addresses, tokens and labels of both chains that q names',
    params: Type.Object({}),
    query: {
      q: Type.String({
        minLength: 1,
        maxLength: MAX_QUERY_LENGTH,
        description:
          'What to look for: a block height, a block or transaction hash (64 hex digits, with or without 0x), an address of either chain in any form the address routes accept, ' +
          `or the start of a token symbol or name or of a label (case-insensitive). 1 to ${MAX_QUERY_LENGTH} characters; surrounding white space is ignored.`,
      }),
    },
    paging: { style: 'all' },
    item: SearchHit,
    order: `Most relevant first: what q names exactly (a hash, an address, a token's id), then a height, then whole symbols, names and labels, then their starts; at most ${MAX_PER_KIND} hits of each kind.`,
    echo: { q: Type.String({ description: 'q as searched: without surrounding white space.' }) },
    notFound: 'Only an unknown route: a query that names nothing answers 200 with no items.',
    prepare: (_ctx, { query, request }) => {
      const terms = searchTerms(request, query.q);
      return { terms, echo: { q: terms.text } };
    },
    async read(ctx, { terms }) {
      const hits = rankHits(await readSearchCandidates(ctx.store, terms));
      return {
        items: hits.map((row) => ({
          kind: row.kind,
          chain: row.chain as 'pow' | 'pos',
          id: row.id,
          label: row.label,
          path: pathOf(row),
          match: row.match,
          exact: row.exact,
          height: row.height,
          timestamp: row.ts === null ? null : formatTimestamp(row.ts),
          tx_count: row.tx_count,
          symbol: row.symbol,
          category: row.category,
        })),
        total: null,
      };
    },
  });
}
