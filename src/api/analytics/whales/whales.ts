/**
 * What the nine whale endpoints share (docs/metrics.md, "Whales"): the threshold (the fixed
 * 100,000-coin floor or `threshold_pct` of the current total supply), the whale set read from the
 * balance index down to it, and the whale timestamp form; daily net flows come from ../../balance-days.ts.
 */
import sql from 'sql-template-tag';
import { Type } from 'typebox';
import { SENTINELS, type ChainId } from '../../../chain/chains.ts';
import type { Db } from '../../../store/store.ts';
import { pctThreshold } from '../../amounts.ts';
import { whaleFloor } from '../../../domain/holder-tiers.ts';
import { totalSupply } from '../../../domain/supply.ts';
import { Amount, Nullable } from '../../schemas/common.ts';

/** Smallest `threshold_pct`: every whale then holds at least 0.1 % of the supply, so there are at most 1,000. */
export const MIN_THRESHOLD_PCT = 0.1;

export const ThresholdPctQuery = Type.Optional(
  Type.Number({
    minimum: MIN_THRESHOLD_PCT,
    maximum: 100,
    description: 'Whale threshold as a percent of the current total supply (0.1 to 100); omitted: the fixed 100,000-coin floor.',
  }),
);

/** A signed integer amount (a net flow) in the chain's smallest unit. */
export const SignedAmount = Type.String({
  pattern: '^-?[0-9]+$',
  description: 'Signed integer in the chain\'s smallest unit, as a decimal string (negative when the balance fell).',
  examples: ['-1000000000'],
});

export const WhaleTimestamp = Type.String({ description: 'UTC time, YYYY-MM-DD HH:MM:SS.mmm.', examples: ['2026-11-22 09:30:00.000'] });

/** The envelope fields every threshold-taking endpoint echoes. */
export const ThresholdFields = {
  whale_threshold: { ...Amount, description: 'The whale threshold in the chain\'s smallest unit.' },
  threshold_pct: Nullable(Type.Number({ description: 'threshold_pct as given; null when omitted (the 100,000-coin floor).' })),
};

/** `YYYY-MM-DD HH:MM:SS.mmm` of a Unix time (seconds): the whale endpoints' timestamp form. */
export function formatWhaleTimestamp(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().slice(0, 23).replace('T', ' ');
}

export function whaleTimestampOrNull(unixSeconds: number | string | null | undefined): string | null {
  return unixSeconds == null ? null : formatWhaleTimestamp(Number(unixSeconds));
}

export interface Threshold {
  /** The threshold in the chain's smallest unit. */
  amount: bigint;
  /** threshold_pct as given, or null. */
  pct: number | null;
  /** The current total supply (src/domain/supply.ts). */
  supply: bigint;
}

/** The whale threshold of a request (docs/metrics.md, "Whales"). */
export async function whaleThreshold(db: Db, chain: ChainId, pct: number | undefined): Promise<Threshold> {
  const supply = await totalSupply(db, chain);
  if (pct === undefined) return { amount: whaleFloor(chain), pct: null, supply };
  return { amount: pctThreshold(pct, supply), pct, supply };
}

export function thresholdEcho(t: Threshold) {
  return { whale_threshold: t.amount.toString(), threshold_pct: t.pct };
}

export interface Whale {
  address: string;
  balance: bigint;
  txCount: number;
  lastSeen: number | null;
  appeared: number | null;
  /** A confirmed exchange address (curated wallet or confirmed deposit relay). */
  exchange: boolean;
}

/** The confirmed exchange addresses among `addresses`: a key lookup each. */
async function exchangeAddressesAmong(db: Db, chain: ChainId, addresses: string[]): Promise<Set<string>> {
  if (addresses.length === 0) return new Set();
  const rows = await db.query<{ address: string }>(
    'analytics.whales.exchanges',
    sql`SELECT address FROM exchange_wallets WHERE chain = ${chain} AND address = ANY(${addresses}::text[]) AND confirmed`,
  );
  return new Set(rows.map((r) => r.address));
}

/**
 * The whales of a chain, richest first (ties by address): positive balances at or above the
 * threshold, sentinels excluded; `withoutExchanges` leaves confirmed exchange addresses out;
 * `limit` keeps the first rows. An index range of address_summary_balance, then the exchange
 * addresses among the whales by key (asked within the first query, the planner hashed every
 * confirmed wallet of the chain instead: thousands of rows for a few dozen whales).
 */
export async function whaleSet(db: Db, chain: ChainId, threshold: bigint, options: { withoutExchanges?: boolean; limit?: number } = {}): Promise<Whale[]> {
  const withoutExchanges = options.withoutExchanges ?? false;
  const rows = await db.query<{ address: string; balance: string; tx_count: number; last_seen: string | number | null; appeared: string | number | null }>(
    'analytics.whales.set',
    sql`SELECT s.address, s.balance::text AS balance, s.tx_count, s.last_seen, s.appeared
        FROM address_summary s
        WHERE s.chain = ${chain} AND s.balance >= ${threshold.toString()}::numeric AND s.balance > 0
          AND s.address <> ALL(${[...SENTINELS[chain]]}::text[])
        ORDER BY s.balance DESC, s.address
        LIMIT ${withoutExchanges ? null : (options.limit ?? null)}::int`,
  );
  const exchanges = await exchangeAddressesAmong(db, chain, rows.map((r) => r.address));
  const whales = rows
    .map((r) => ({
      address: r.address,
      balance: BigInt(r.balance),
      txCount: Number(r.tx_count),
      lastSeen: r.last_seen == null ? null : Number(r.last_seen),
      appeared: r.appeared == null ? null : Number(r.appeared),
      exchange: exchanges.has(r.address),
    }))
    .filter((w) => !(withoutExchanges && w.exchange));
  return options.limit === undefined ? whales : whales.slice(0, options.limit);
}

export { endOfDayBalances, flowDays, netOf, type FlowDay } from '../../balance-days.ts';
