/**
 * What the supply curve (curve.ts) and the supply routes share (docs/metrics.md, "Supply"): a
 * chain's first and latest blocks, its whole-history totals (chain_supply_totals), and its minted
 * days with the genesis allocations on the genesis block's day and the cumulative figure read as
 * the total less the later days.
 */
import sql from 'sql-template-tag';
import type { ChainId } from '../../../chain/chains.ts';
import type { Db } from '../../../store/store.ts';
import { eachDay, formatDay } from '../../../time.ts';

/** A chain's first and latest indexed blocks. */
export interface ChainEnds {
  firstHeight: number;
  firstDay: string;
  tipHeight: number;
  tipDay: string;
}

export async function chainEnds(db: Db, chain: ChainId): Promise<ChainEnds | null> {
  const [row] = await db.query<{ first_height: string; first_ts: string; tip_height: string; tip_ts: string }>(
    'analytics.supply.ends',
    sql`SELECT f.height AS first_height, f.ts AS first_ts, t.height AS tip_height, t.ts AS tip_ts
        FROM (SELECT height, ts FROM blocks WHERE chain = ${chain} ORDER BY height LIMIT 1) f,
             (SELECT height, ts FROM blocks WHERE chain = ${chain} ORDER BY height DESC LIMIT 1) t`,
    { reusePlan: true }, // two key lookups
  );
  if (!row) return null;
  return { firstHeight: Number(row.first_height), firstDay: formatDay(Number(row.first_ts)), tipHeight: Number(row.tip_height), tipDay: formatDay(Number(row.tip_ts)) };
}

/** Totals over the whole history, in the chain's smallest unit. */
export interface SupplyTotals {
  genesis: bigint;
  minted: bigint;
  feeBurned: bigint;
  migrationBurned: bigint;
  migrationMinted: bigint;
}

export const NO_TOTALS: SupplyTotals = { genesis: 0n, minted: 0n, feeBurned: 0n, migrationBurned: 0n, migrationMinted: 0n };

export async function supplyTotals(db: Db, chain: ChainId): Promise<SupplyTotals> {
  const [row] = await db.query<{ genesis: string; minted: string; fee_burned: string; migration_burned: string; migration_minted: string }>(
    'analytics.supply.totals',
    sql`SELECT genesis::text, minted::text, fee_burned::text, migration_burned::text, migration_minted::text FROM chain_supply_totals WHERE chain = ${chain}`,
    { reusePlan: true },
  );
  if (!row) return NO_TOTALS;
  return {
    genesis: BigInt(row.genesis),
    minted: BigInt(row.minted),
    feeBurned: BigInt(row.fee_burned),
    migrationBurned: BigInt(row.migration_burned),
    migrationMinted: BigInt(row.migration_minted),
  };
}

/** A day's supply figures, in the chain's smallest unit. */
export interface MintedDay {
  day: string;
  blockCount: number;
  /** Minted that day: chain_daily.minted, plus the genesis allocations on the genesis block's day. */
  minted: bigint;
  feeBurned: bigint;
  migrationBurned: bigint;
  migrationMinted: bigint;
  /** Genesis allocations plus everything minted up to the day's end. */
  cumulative: bigint;
}

/**
 * Every day from `from` to `to` of the chain (zero-filled; `from` no earlier than the first indexed
 * day). The cumulative figure is the history's total less what the days after each one minted, so
 * only the days from `from` on are read, one row per day, however long the history.
 */
export async function mintedDays(db: Db, chain: ChainId, ends: ChainEnds, totals: SupplyTotals, from: string, to: string): Promise<MintedDay[]> {
  // Primary-key ranges: their plans are kept.
  const daily = await db.query<{ day: string; block_count: number; minted: string; burned: string }>(
    'analytics.supply.daily',
    sql`SELECT day::text AS day, block_count, minted::text, burned::text FROM chain_daily WHERE chain = ${chain} AND day >= ${from}::date ORDER BY day`,
    { reusePlan: true },
  );
  const legs = await db.query<{ day: string; burned: string; minted: string }>(
    'analytics.supply.migration_daily',
    sql`SELECT day::text AS day, burned::text, minted::text FROM chain_migration_daily WHERE chain = ${chain} AND day BETWEEN ${from}::date AND ${to}::date`,
    { reusePlan: true },
  );
  const legsByDay = new Map(legs.map((l) => [l.day, l]));
  const genesisDay = ends.firstHeight === 0 ? ends.firstDay : null;
  const byDay = new Map<string, Omit<MintedDay, 'cumulative'>>();
  // What the days from `from` on minted, so that the day before `from` ends with the total less it.
  let fromOn = 0n;
  for (const d of daily) {
    const minted = BigInt(d.minted) + (d.day === genesisDay ? totals.genesis : 0n);
    fromOn += minted;
    if (d.day > to) continue;
    const l = legsByDay.get(d.day);
    byDay.set(d.day, {
      day: d.day, blockCount: d.block_count, minted, feeBurned: BigInt(d.burned),
      migrationBurned: l ? BigInt(l.burned) : 0n, migrationMinted: l ? BigInt(l.minted) : 0n,
    });
  }
  let cumulative = totals.genesis + totals.minted - fromOn;
  const out: MintedDay[] = [];
  for (const day of eachDay(from, to)) {
    const d = byDay.get(day) ?? { day, blockCount: 0, minted: 0n, feeBurned: 0n, migrationBurned: 0n, migrationMinted: 0n };
    cumulative += d.minted;
    out.push({ ...d, cumulative });
  }
  return out;
}

