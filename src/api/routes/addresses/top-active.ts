/**
 * GET /api/v1/{chain}/addresses/top/active: the address leaderboard, with every filter and sort
 * of the spec (docs/metrics.md, "Leaderboard"). Answers stay fast on a million addresses: the
 * total is counted from precomputed figures (top-active/count.ts), the page's addresses are found
 * on an index (top-active/page.ts), and only they are joined to their rows (top-active/enrich.ts).
 */
import { Type, type Static } from 'typebox';
import type { ChainId } from '../../../chain/chains.ts';
import type { ChainNetwork } from '../../../chain/network.ts';
import { isGramText } from '../../../rollups/addresses/address-ranks.ts';
import { answerAmounts, type AnswerAmount } from '../../amounts.ts';
import { invalidParam } from '../../problem.ts';
import { networkOf } from '../../plugins/freshness.ts';
import { PAGED_ROWS, type ApiContext, type RouteApp } from '../../context.ts';
import { AddressSummaryRow } from '../../schemas/address-summary.ts';
import { BooleanQuery, ChainPathParams, IntegerQuery, isTrue, Nullable, StringEnum, STANDARD_ERRORS } from '../../schemas/common.ts';
import { planPage } from './top-active/count.ts';
import { loadRows } from './top-active/enrich.ts';
import { pageKeys } from './top-active/page.ts';
import { filtersOf, sortField, SORT_VALUES } from './top-active/params.ts';

const TopActiveQuery = Type.Object({
  page: IntegerQuery({
    minimum: 1,
    default: 1,
    description: `Page number, from 1. Any page of the tx_count order without filters (q, exclude, exclude_sentinel, positive_only, min_balance_pct, whale_only); with another sort or a filter, page × page_size must be at most ${PAGED_ROWS} (a 400 names page).`,
  }),
  page_size: IntegerQuery({ minimum: 1, maximum: 100, default: 25, description: 'Rows per page (1 to 100).' }),
  q: Type.Optional(Type.String({ description: 'Case-insensitive substring of the address (pos: a leading 0x or Z stands for the Q prefix).' })),
  with_labels: BooleanQuery('Fill label and label_category (primary label)'),
  with_delta_30d: BooleanQuery('Fill received_30d and sent_30d (the 30 UTC days ending with the latest block’s day)'),
  positive_only: BooleanQuery('Only addresses with a strictly positive balance'),
  exclude_sentinel: BooleanQuery('Leave out the sentinels (pow coinbase sentinel, pos zero address)'),
  exclude: Type.Optional(Type.String({ description: 'Comma-separated addresses to leave out (any accepted form; matched exactly in canonical form).' })),
  min_balance_pct: Type.Optional(
    Type.Number({ minimum: 0, maximum: 100, description: 'Keep addresses with balance >= this percent of the total supply (positive balances, sentinels excluded); ignored when whale_only is set.' }),
  ),
  whale_only: BooleanQuery('Only addresses holding at least 100,000 coins'),
  sort: Type.Optional(
    StringEnum(SORT_VALUES, {
      default: '-tx_count',
      description: '<field> or -<field>; both give the field’s order: descending, except first_seen_asc and last_seen_asc (ascending).',
    }),
  ),
});

const TopActiveResponse = Type.Object({
  addresses: Type.Array(AddressSummaryRow),
  total: Type.Integer({ description: 'Addresses matching the filters.' }),
  sort_by: Type.String({ description: 'The field the page is ordered by (the sort parameter without its sign).' }),
  page: Type.Integer(),
  page_size: Type.Integer(),
  q: Nullable(Type.String()),
  chain: Nullable(Type.String()),
  network: Nullable(Type.String()),
});

async function loadTopActive(
  ctx: ApiContext,
  chain: ChainId,
  chainNetwork: ChainNetwork,
  query: Static<typeof TopActiveQuery>,
  amount: AnswerAmount,
): Promise<Static<typeof TopActiveResponse>> {
  const db = ctx.store;
  const tuning = ctx.tuning.topActive;
  const field = sortField(query.sort ?? '-tx_count');
  const network = ctx.network(chain);
  const echo = { sort_by: field, page: query.page, page_size: query.page_size, q: query.q ?? null, chain, network };
  const filters = await filtersOf(db, chain, chainNetwork, {
    q: query.q,
    exclude: query.exclude,
    excludeSentinel: isTrue(query.exclude_sentinel),
    whaleOnly: isTrue(query.whale_only),
    minBalancePct: query.min_balance_pct,
    positiveOnly: isTrue(query.positive_only),
  });

  // A deep page is found by skipping the rows before it in an index order. The tx_count order
  // without filters starts at the rank bucket holding the page (top-active/page.ts); every other
  // sort and filter skips row by row, so its pages are bounded.
  const seekable = field === 'tx_count' && filters.q === null && filters.excluded.length === 0 && filters.minBalance === null;
  if (!seekable && query.page * query.page_size > ctx.tuning.pagedRows) {
    const last = Math.floor(ctx.tuning.pagedRows / query.page_size);
    throw invalidParam('page', `must be at most ${last} with page_size ${query.page_size} (page × page_size ≤ ${ctx.tuning.pagedRows}) for this sort and these filters; only the tx_count order without filters pages deeper`);
  }
  // A substring with a character no address has matches nothing.
  if (filters.q && (!isGramText(filters.q) || filters.q.length > 79)) return { addresses: [], total: 0, ...echo };
  const offset = (query.page - 1) * query.page_size;
  const plan = await planPage(db, filters, offset, query.page_size, tuning);
  if (plan.total !== null && offset >= plan.total) return { addresses: [], total: plan.total, ...echo };
  const { keys, counted } = await pageKeys(db, filters, field, plan.read, offset, query.page_size, tuning);
  const total = plan.total ?? counted;
  if (total === null || offset >= total) return { addresses: [], total: total ?? 0, ...echo };

  const options = { chain, network, field, withLabels: isTrue(query.with_labels), withDelta: isTrue(query.with_delta_30d) };
  return { addresses: await loadRows(db, keys, options, amount), total, ...echo };
}

export function topActiveRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/top/active',
    {
      // A list whose rows are `addresses`: exported as CSV too (plugins/csv.ts).
      config: { csv: { rows: ['addresses'] } },
      schema: {
        tags: ['addresses'],
        operationId: 'getTopActiveAddresses',
        summary: 'Address leaderboard: filters, sorts and offset pages',
        params: ChainPathParams,
        querystring: TopActiveQuery,
        response: { 200: TopActiveResponse, ...STANDARD_ERRORS },
      },
    },
    async (request) => loadTopActive(ctx, request.params.chain, networkOf(request, request.params.chain), request.query, answerAmounts(request.log, request.params.chain)),
  );
}
