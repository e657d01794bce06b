/**
 * The staking figures of a day (docs/metrics.md, "Staking"), from staking_daily, which the staking
 * sync (ingest/staking-sync.ts) writes from the beacon chain's finalized epochs: its series' window
 * ends with the latest staking day (not the blocks'), clipped to the first one, a day without a
 * row zero-filled. pow has no validators: no days.
 */
import sql from 'sql-template-tag';
import { CHAIN_INFO, type ChainId } from '../../../chain/chains.ts';
import { formatUnits, percentOf } from '../../../chain/amounts.ts';
import type { Db } from '../../../store/store.ts';
import { eachDay } from '../../../time.ts';
import { chartSeries, type KeptChart } from '../../engine/rollup.ts';
import { genesisSupply } from '../../supply/supply.ts';
import type { Days } from '../days.ts';

export interface StakingDay {
  day: string;
  active_validators: number;
  total_staked: bigint;
  rewards: bigint;
  rewarded_validators: number;
  slashings: number;
  nakamoto_33: number;
}

/** A day without a staking_daily row: zero in every figure. */
export const noStaking = (day: string): StakingDay => ({
  day, active_validators: 0, total_staked: 0n, rewards: 0n, rewarded_validators: 0, slashings: 0, nakamoto_33: 0,
});

/** The staking_daily rows of the range, keyed by day: a primary-key range, its plan kept. */
export async function stakingDays(db: Db, chain: ChainId, range: Days): Promise<Map<string, StakingDay>> {
  const rows = await db.query<{ day: string; active_validators: number; total_staked: string; rewards: string; rewarded_validators: number; slashings: number; nakamoto_33: number | null }>(
    'analytics.staking.days',
    sql`SELECT day::text AS day, active_validators, total_staked::text AS total_staked, rewards::text AS rewards, rewarded_validators, slashings, nakamoto_33
        FROM staking_daily WHERE chain = ${chain} AND day BETWEEN ${range.from}::date AND ${range.to}::date ORDER BY day`,
    { reusePlan: true },
  );
  return new Map(
    rows.map((r) => [
      r.day,
      {
        day: r.day,
        active_validators: Number(r.active_validators),
        total_staked: BigInt(r.total_staked),
        rewards: BigInt(r.rewards),
        rewarded_validators: Number(r.rewarded_validators),
        slashings: Number(r.slashings),
        nakamoto_33: Number(r.nakamoto_33 ?? 0),
      },
    ]),
  );
}

/** The first and the latest staking day: the staking series' span (none on pow). */
async function stakingSpan(db: Db, chain: ChainId): Promise<{ first: string; last: string } | null> {
  if (chain === 'pow') return null;
  const [span] = await db.query<{ first: string | null; last: string | null }>(
    'analytics.staking.span',
    sql`SELECT (SELECT day::text FROM staking_daily WHERE chain = ${chain} ORDER BY day LIMIT 1) AS first,
               (SELECT day::text FROM staking_daily WHERE chain = ${chain} ORDER BY day DESC LIMIT 1) AS last`,
    { reusePlan: true }, // two key lookups
  );
  return span?.first && span.last ? { first: span.first, last: span.last } : null;
}

/**
 * The execution layer's supply at the end of each day of the range: genesis supply + minted −
 * burned. From the timeline chart's running total (genesis + minted) of the last closed day before
 * the range, the chain_daily rows after it, and the burn up to it.
 */
async function executionSupply(db: Db, chain: ChainId, range: Days): Promise<Map<string, bigint>> {
  const [base] = await db.query<{ base_day: string | null; base_supply: string; burned_before: string }>(
    'analytics.staking.supply_base',
    sql`WITH base AS (SELECT day, supply FROM chain_timeline_totals WHERE chain = ${chain} AND day < ${range.from}::date ORDER BY day DESC LIMIT 1)
        SELECT (SELECT day::text FROM base) AS base_day,
               coalesce((SELECT supply FROM base), ${genesisSupply(chain)})::text AS base_supply,
               (SELECT coalesce(sum(burned), 0) FROM chain_daily WHERE chain = ${chain} AND day <= (SELECT day FROM base))::text AS burned_before`,
    { reusePlan: true }, // key lookups and a primary-key range of one row per day
  );
  const after = base?.base_day ?? '0001-01-01';
  const rows = await db.query<{ day: string; minted: string; burned: string }>(
    'analytics.staking.supply_days',
    sql`SELECT day::text AS day, minted::text AS minted, burned::text AS burned
        FROM chain_daily WHERE chain = ${chain} AND day > ${after}::date AND day <= ${range.to}::date ORDER BY day`,
    { reusePlan: true }, // a primary-key range
  );
  // Running supply at the end of each day of the range; a day without blocks keeps the one before.
  const byDay = new Map(rows.map((r) => [r.day, BigInt(r.minted) - BigInt(r.burned)]));
  const out = new Map<string, bigint>();
  let supply = BigInt(base?.base_supply ?? '0') - BigInt(base?.burned_before ?? '0');
  for (const r of rows) {
    if (r.day >= range.from) break;
    supply += byDay.get(r.day)!;
  }
  for (const day of eachDay(range.from, range.to)) {
    supply += byDay.get(day) ?? 0n;
    out.set(day, supply);
  }
  return out;
}

/** What every staking series shares: the window, the span, the envelope and the zero-filled days. */
const staking = {
  window: '365d',
  span: { of: 'the latest staking day', read: stakingSpan },
  itemsDescription: 'One item per UTC day, oldest first, from the later of the window start and the first staking day to the latest staking day, zero-filled; empty on pow (no validators).',
  envelope: { count: true, network: true, window_days: { kind: 'integer', description: 'The window in days, as asked.' } },
  missingDay: { zero: noStaking },
} as const;

export const stakingFigures: KeptChart<StakingDay> = {
  name: 'staking',
  part: 'network',
  keptBy: 'staking-sync',
  read: stakingDays,
  series: [
    chartSeries<StakingDay, Record<string, unknown>>({
      ...staking,
      path: '/analytics/staking/daily',
      operationId: 'getStakingDaily',
      summary: 'Active validators, total stake, staking ratio and Nakamoto coefficient (33%) per day',
      fields: {
        active_validators: { kind: 'integer', description: 'Validators active at the end of the day.' },
        staking_ratio_pct: { kind: 'number', description: '100 × the stake ÷ the total supply (execution-layer supply at the day’s end plus the stake).' },
        nakamoto_33: { kind: 'integer', description: 'Fewest validators (largest stakes first) holding more than a third of the stake; 0 without stake.' },
        total_staked_quanta: { kind: 'string', description: 'Effective balances of the active validators, in coins (exact decimal string).' },
      },
      items: async (rows, { db, chain, range }) => {
        const supplyAt = await executionSupply(db, chain, range);
        const { decimals } = CHAIN_INFO[chain];
        return rows.map((d) => ({
          day: d.day,
          active_validators: d.active_validators,
          staking_ratio_pct: percentOf(d.total_staked, d.total_staked + supplyAt.get(d.day)!),
          nakamoto_33: d.nakamoto_33,
          total_staked_quanta: formatUnits(d.total_staked.toString(), decimals),
        }));
      },
    }),
    chartSeries<StakingDay, { day: string; apr_pct: number; rewarded_validators: number }>({
      ...staking,
      path: '/analytics/staking/apr-daily',
      operationId: 'getStakingAprDaily',
      summary: 'Staking APR per day: the day’s net rewards over the stake, annualised',
      fields: {
        apr_pct: { kind: 'number', description: '100 × 365 × the day’s net consensus rewards (penalties and initial slashing penalties subtracted) ÷ the stake; negative when penalties exceed rewards; 0 without stake.' },
        rewarded_validators: { kind: 'integer', description: 'Validators whose net rewards of the day were positive.' },
      },
      items: (rows) => rows.map((d) => ({ day: d.day, apr_pct: percentOf(d.rewards * 365n, d.total_staked), rewarded_validators: d.rewarded_validators })),
    }),
    chartSeries<StakingDay>({
      ...staking,
      path: '/analytics/staking/slashings-daily',
      operationId: 'getStakingSlashingsDaily',
      summary: 'Validators slashed per day',
      fields: { slashings: { kind: 'integer', description: 'Validators whose slashed flag turned true that day; 0 on a day without.' } },
    }),
  ],
};
