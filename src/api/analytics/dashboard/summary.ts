/** GET /api/v1/analytics/dashboard/summary: the headline counters of both chains (docs/metrics.md, "Network status"). */
import sql from 'sql-template-tag';
import { Type } from 'typebox';
import type { ChainId } from '../../../chain/chains.ts';
import { addDays, DAY_SECONDS, formatDay, formatGeneratedAt, formatTimestamp, nowMicros } from '../../../time.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { analyticsRoute, perSnapshot } from '../route.ts';
import { Day, Nullable, NullableAmount, NullableTimestamp } from '../../schemas/common.ts';
import { chainDays } from '../chain-days.ts';
import { burnedInSql } from '../../../domain/fee-burn.ts';
import { windowEndingAt } from '../../../domain/window.ts';

/** Days of `activity_7d`: the tip's UTC day and the six before it. */
const ACTIVITY_DAYS = 7;

const NullableInteger = Nullable(Type.Integer());

const ChainFields = {
  chain: Type.String(),
  network: Type.String(),
  total_blocks: Type.Integer({ description: 'Indexed blocks of the canonical branch.' }),
  min_height: { ...NullableInteger, description: 'Lowest indexed height; null before any block.' },
  max_height: { ...NullableInteger, description: 'Height of the latest indexed block; null before any block.' },
  total_transactions: Type.Integer({ description: 'Indexed transactions (every kind, coinbase included).' }),
  latest_block_time: { ...NullableTimestamp, description: 'Time of the latest indexed block.' },
  tokens_count: Type.Integer({ description: 'Token contracts indexed (pos: fungible token contracts; pow: tokens created by token transactions).' }),
};

const ActivityDay = Type.Object({ day: Day, block_count: Type.Integer(), tx_count: Type.Integer() });

const PosSummary = Type.Object({
  ...ChainFields,
  validators_count: Type.Integer({ description: 'Validators whose beacon status is active (active_ongoing, active_exiting, active_slashed).' }),
  fee_burned_24h_planck: { ...NullableAmount, description: 'Base fees burned by the blocks of the 24 hours ending at the latest block’s time, in planck; null before any block.' },
  activity_7d: Type.Array(ActivityDay, { description: 'The 7 UTC days ending with the latest block’s day, oldest first, zero-filled; empty before any block.' }),
});

const DashboardResponse = Type.Object({
  chains: Type.Object({ pow: Type.Object(ChainFields), pos: PosSummary }),
  generated_at: Type.String({ description: 'When the answer was computed, YYYY-MM-DDTHH:MM:SS.ffffffZ.' }),
});

interface ChainRow {
  min_height: string | number | null;
  max_height: string | number | null;
  tip_ts: string | number | null;
  block_count: string | number | null;
  tx_count: string | number | null;
  tokens: string | number;
}

async function chainSummary(ctx: ApiContext, chain: ChainId) {
  const [row] = await ctx.store.query<ChainRow>(
    'analytics.dashboard.chain',
    sql`SELECT lo.height AS min_height, hi.height AS max_height, hi.ts AS tip_ts, s.block_count, s.tx_count,
               (SELECT count(*) FROM token_contracts WHERE chain = ${chain}) AS tokens
        FROM (SELECT 1) one
        LEFT JOIN (SELECT height FROM blocks WHERE chain = ${chain} ORDER BY height LIMIT 1) lo ON true
        LEFT JOIN (SELECT height, ts FROM blocks WHERE chain = ${chain} ORDER BY height DESC LIMIT 1) hi ON true
        LEFT JOIN chain_stats s ON s.chain = ${chain}`,
    { reusePlan: true }, // key lookups and one count over the (small) token table's key
  );
  const num = (v: string | number | null | undefined) => (v == null ? null : Number(v));
  const tipTs = num(row?.tip_ts);
  return {
    tipTs,
    fields: {
      chain,
      network: ctx.network(chain),
      total_blocks: num(row?.block_count) ?? 0,
      min_height: num(row?.min_height),
      max_height: num(row?.max_height),
      total_transactions: num(row?.tx_count) ?? 0,
      latest_block_time: tipTs === null ? null : formatTimestamp(tipTs),
      tokens_count: num(row?.tokens) ?? 0,
    },
  };
}

async function posExtras(ctx: ApiContext, tipTs: number | null) {
  const [row] = await ctx.store.query<{ validators: string | number; burned: string | null }>(
    'analytics.dashboard.pos',
    sql`SELECT (SELECT count(*) FROM validators WHERE chain = 'pos' AND status LIKE 'active%') AS validators,
               ${tipTs === null ? sql`NULL` : burnedInSql('pos', windowEndingAt(tipTs, DAY_SECONDS))}::text AS burned`,
    { reusePlan: true }, // the validator set, a few chain_daily rows and at most half a day of blocks by (chain, ts)
  );
  if (tipTs === null) return { validators_count: Number(row?.validators ?? 0), fee_burned_24h_planck: null, activity_7d: [] };
  const to = formatDay(tipTs);
  const range = { from: addDays(to, 1 - ACTIVITY_DAYS), to };
  const activity = (await chainDays(ctx.store, 'pos', range)).map((d) => ({ day: d.day, block_count: d.block_count, tx_count: d.tx_count }));
  return { validators_count: Number(row?.validators ?? 0), fee_burned_24h_planck: row?.burned ?? '0', activity_7d: activity };
}

/** Both chains' figures: a function of the stored data alone. */
async function chainSummaries(ctx: ApiContext) {
  const [pow, pos] = await Promise.all([chainSummary(ctx, 'pow'), chainSummary(ctx, 'pos')]);
  const extras = await posExtras(ctx, pos.tipTs);
  return { pow: pow.fields, pos: { ...pos.fields, ...extras } };
}

export function dashboardSummaryRoute(app: RouteApp, ctx: ApiContext): void {
  analyticsRoute(app, {
    path: '/analytics/dashboard/summary',
    operationId: 'getDashboardSummary',
    summary: 'Headline counters of both chains: blocks, heights, transactions, tokens; pos validators, burn and the last 7 days',
    response: DashboardResponse,
    // It reads the clock (`generated_at`): computed at every request, from figures kept per database snapshot.
    config: { snapshotCache: false },
    handler: async ({ snapshot }) => {
      const chains = await perSnapshot(ctx, snapshot, 'dashboard', () => chainSummaries(ctx));
      return { chains, generated_at: formatGeneratedAt(nowMicros()) };
    },
  });
}
