/** GET /api/v1/analytics/staking/daily: validators, stake, its concentration and its share of the supply per day (docs/metrics.md, "Staking"). */
import sql from 'sql-template-tag';
import { Type } from 'typebox';
import { CHAIN_INFO, type ChainId } from '../../../chain/chains.ts';
import { genesisSupply } from '../../../rollups/supply.ts';
import type { Db } from '../../../store/store.ts';
import { eachDay } from '../../../time.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { formatUnits, percentOf } from '../../amounts.ts';
import { Day } from '../../schemas/common.ts';
import { dayRows } from '../series.ts';
import { stakingSeries } from './staking-days.ts';

export function stakingDailyRoute(app: RouteApp, ctx: ApiContext): void {
  stakingSeries(app, ctx, {
    path: '/analytics/staking/daily',
    operationId: 'getStakingDaily',
    summary: 'Active validators, total stake, staking ratio and Nakamoto coefficient (33%) per day',
    item: Type.Object({
      day: Day,
      active_validators: Type.Integer({ description: 'Validators active at the end of the day.' }),
      staking_ratio_pct: Type.Number({ description: '100 × the stake ÷ the total supply (execution-layer supply at the day’s end plus the stake).' }),
      nakamoto_33: Type.Integer({ description: 'Fewest validators (largest stakes first) holding more than a third of the stake; 0 without stake.' }),
      total_staked_quanta: Type.String({ description: 'Effective balances of the active validators, in coins (exact decimal string).' }),
    }),
    items: async (rows, range, chain) => {
      const supplyAt = await executionSupply(ctx.store, chain, range);
      const { decimals } = CHAIN_INFO[chain];
      return rows.map((d) => ({
        day: d.day,
        active_validators: d.active_validators,
        staking_ratio_pct: percentOf(d.total_staked, d.total_staked + supplyAt.get(d.day)!),
        nakamoto_33: d.nakamoto_33,
        total_staked_quanta: formatUnits(d.total_staked.toString(), decimals),
      }));
    },
  });
}

/**
 * The execution layer's supply at the end of each day of the range: genesis supply + minted −
 * burned. From the timeline chart's running total (genesis + minted) of the last closed day before
 * the range, the chain_daily rows after it, and the burn up to it.
 */
async function executionSupply(db: Db, chain: ChainId, range: { from: string; to: string }): Promise<Map<string, bigint>> {
  const [base] = await db.query<{ base_day: string | null; base_supply: string; burned_before: string }>(
    'analytics.staking.supply_base',
    sql`WITH base AS (SELECT day, supply FROM chain_timeline_totals WHERE chain = ${chain} AND day < ${range.from}::date ORDER BY day DESC LIMIT 1)
        SELECT (SELECT day::text FROM base) AS base_day,
               coalesce((SELECT supply FROM base), ${genesisSupply(chain)})::text AS base_supply,
               (SELECT coalesce(sum(burned), 0) FROM chain_daily WHERE chain = ${chain} AND day <= (SELECT day FROM base))::text AS burned_before`,
    { reusePlan: true }, // key lookups and a primary-key range of one row per day
  );
  const after = base?.base_day ?? '0001-01-01';
  const rows = await dayRows<{ day: string; minted: string; burned: string }>(
    db,
    'analytics.staking.supply_days',
    sql`SELECT day::text AS day, minted::text AS minted, burned::text AS burned
        FROM chain_daily WHERE chain = ${chain} AND day > ${after}::date AND day <= ${range.to}::date ORDER BY day`,
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
