/**
 * What the nine whale endpoints share (docs/metrics.md, "Whales"): the threshold (the fixed
 * 100,000-coin floor or `threshold_pct` of the current total supply), the whale set read from the
 * balance index down to it, and the whale timestamp form; daily net flows come from rollups/addresses/balance-days.ts.
 */
import sql from 'sql-template-tag';
import { Type, type TProperties } from 'typebox';
import { SENTINELS, type ChainId } from '../../../chain/chains.ts';
import type { Db } from '../../../store/store.ts';
import { pctThreshold } from '../../amounts.ts';
import { whaleFloor } from '../../../domain/holder-tiers.ts';
import { totalSupply } from '../../../domain/supply.ts';
import { Amount, Nullable, WindowQuery } from '../../schemas/common.ts';
import { flowDays, type FlowDay } from '../../../rollups/addresses/balance-days.ts';
import { AnalyticsChain, chainSpan, dayRange, type ChainSpan, type DayRange } from '../series.ts';

/** `threshold_pct`: any positive percentage up to 100 (the spec sets no other bound). */
export const ThresholdPctQuery = Type.Optional(
  Type.Number({
    exclusiveMinimum: 0,
    maximum: 100,
    description: 'Whale threshold as a percent of the current total supply (more than 0, at most 100); omitted: the fixed 100,000-coin floor.',
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

/** What a whale request reads: its window, the threshold, the whales and their daily flows over the window. */
export interface WhaleWindow {
  /** The window's length in days. */
  days: number;
  /** The window's days; null before the chain's first block. */
  range: DayRange | null;
  span: ChainSpan | null;
  threshold: Threshold;
  whales: Whale[];
  /** Daily flows over the window, by address, of the whales `flowing` keeps (all of them unless given). */
  flows: Map<string, FlowDay[]>;
}

/**
 * The whales of a request over a window of `days` days ending with the latest block's day: the
 * threshold and the chain's span at once, then the whale set (`set`), then the flows of those
 * `flowing` keeps.
 */
export async function whaleWindow(
  db: Db,
  chain: ChainId,
  request: { pct: number | undefined; days: number; set?: { withoutExchanges?: boolean; limit?: number }; flowing?: (w: Whale) => boolean },
): Promise<WhaleWindow> {
  const [threshold, span] = await Promise.all([whaleThreshold(db, chain, request.pct), chainSpan(db, chain)]);
  const range = span && dayRange(span, request.days);
  const whales = range ? await whaleSet(db, chain, threshold.amount, request.set) : [];
  const flowing = request.flowing ? whales.filter(request.flowing) : whales;
  const flows = range ? await flowDays(db, chain, flowing.map((w) => w.address), range.from, range.to) : new Map<string, FlowDay[]>();
  return { days: request.days, range, span, threshold, whales, flows };
}

/** A whale route's query: the chain, `threshold_pct`, and the given parameters (a window, a limit). */
export function WhaleQuery<T extends TProperties>(properties: T) {
  return Type.Object({ chain: AnalyticsChain, threshold_pct: ThresholdPctQuery, ...properties });
}

/** The window parameter of a whale route. */
export const whaleWindowQuery = (fallback: string) => WindowQuery(fallback, 'Window: whole UTC days ending with the latest block’s day (a length rounds up to days)');

export { endOfDayBalances, flowDays, netOf, type FlowDay } from '../../../rollups/addresses/balance-days.ts';
