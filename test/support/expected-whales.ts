/**
 * The whale endpoints' figures written from their definitions (docs/metrics.md, "Whales") over the
 * generated blocks and curated exchange wallets, independently of Quarry's SQL and rollups.
 */
import type { ChainId } from '../../src/chain/chains.ts';
import type { CanonicalBlock } from '../../src/chain/model.ts';
import type { AnalyticsWorld } from './analytics-world.ts';
import { daysBetween } from './analytics-world.ts';
import { utcDay } from './utc-day.ts';
import { expectedFromBlocks, type Expected } from './expected.ts';

export const UNITS_PER_COIN: Record<ChainId, bigint> = { pow: 10n ** 9n, pos: 10n ** 18n };
const SENTINEL: Record<ChainId, string> = { pow: 'Q' + '0'.repeat(64), pos: 'Q' + '0'.repeat(40) };

export const shiftDay = (day: string, days: number): string => utcDay(Date.parse(`${day}T00:00:00Z`) / 1000 + days * 86_400);
export const whaleTs = (ts: number): string => new Date(ts * 1000).toISOString().replace('T', ' ').slice(0, 23);

export interface WhaleOracle {
  chain: ChainId;
  e: Expected;
  blocks: CanonicalBlock[];
  tipTs: number;
  tipDay: string;
  firstDay: string;
  supply: bigint;
  exchanges: Set<string>;
  exchangeNames: Set<string>;
}

export function whaleOracle(w: AnalyticsWorld, chain: ChainId): WhaleOracle {
  const blocks = w.blocks[chain];
  const e = expectedFromBlocks(chain, blocks);
  let supply = 0n;
  for (const [address, a] of e.addresses) if (address !== SENTINEL[chain] && a.balance > 0n) supply += a.balance;
  const confirmed = w.world.curated.exchangeWallets.filter((x) => x.chain === chain && x.confirmed);
  return {
    chain,
    e,
    blocks,
    tipTs: blocks.at(-1)!.timestamp,
    tipDay: utcDay(blocks.at(-1)!.timestamp),
    firstDay: utcDay(blocks[0]!.timestamp),
    supply,
    exchanges: new Set(confirmed.map((x) => x.address)),
    exchangeNames: new Set(confirmed.map((x) => x.exchange)),
  };
}

/** ⌈pct × S / 100⌉ for a pct written with at most 6 decimals, or the 100,000-coin floor. */
export function thresholdOf(o: WhaleOracle, pct?: number): bigint {
  if (pct === undefined) return 100_000n * UNITS_PER_COIN[o.chain];
  const micro = BigInt(Math.round(pct * 1e6));
  return (o.supply * micro + 100_000_000n - 1n) / 100_000_000n;
}

export interface OracleWhale {
  address: string;
  balance: bigint;
  txCount: number;
  lastSeen: number | null;
  appeared: number | null;
  exchange: boolean;
}

/** Positive balances at or above the threshold, sentinel excluded, richest first, ties by address. */
export function whalesOf(o: WhaleOracle, threshold: bigint): OracleWhale[] {
  return [...o.e.addresses.entries()]
    .filter(([address, a]) => address !== SENTINEL[o.chain] && a.balance > 0n && a.balance >= threshold)
    .map(([address, a]) => ({ address, balance: a.balance, txCount: a.txCount, lastSeen: a.lastSeen, appeared: a.appeared, exchange: o.exchanges.has(address) }))
    .sort((a, b) => (a.balance === b.balance ? (a.address < b.address ? -1 : 1) : a.balance > b.balance ? -1 : 1));
}

/** The balance change of `address` on `day` (received − sent − fees). */
export function netOn(o: WhaleOracle, address: string, day: string): bigint {
  const d = o.e.daily.get(address)?.get(day);
  return d ? d.received - d.sentWithFees : 0n;
}

/** Native value `address` sent on `day` (fees excluded). */
export function sentOn(o: WhaleOracle, address: string, day: string): bigint {
  const d = o.e.daily.get(address)?.get(day);
  return d ? d.sentWithFees - d.fees : 0n;
}

/** The window's days: `days` ending with the tip's day, from the first indexed day at the earliest. */
export function windowDays(o: WhaleOracle, days: number): string[] {
  const start = shiftDay(o.tipDay, 1 - days);
  return daysBetween(start < o.firstDay ? o.firstDay : start, o.tipDay);
}

export function netOver(o: WhaleOracle, address: string, days: string[]): bigint {
  return days.reduce((sum, day) => sum + netOn(o, address, day), 0n);
}

export interface BigTx {
  tx_hash: string;
  height: number;
  from_addr: string;
  to_addr: string | null;
  value: string;
  timestamp: string;
  tx_type: string;
}

/** The largest user transactions of the days, largest first, ties in chain order. */
export function biggestOf(o: WhaleOracle, days: string[], limit: number): BigTx[] {
  const inWindow = new Set(days);
  const all: (BigTx & { v: bigint; index: number })[] = [];
  for (const b of o.blocks) {
    if (!inWindow.has(utcDay(b.timestamp))) continue;
    for (const t of b.transactions) {
      const user = !['coinbase', 'latticePK', 'slave'].includes(t.type) && t.migration?.role !== 'mint' && t.status !== 0;
      if (!user || t.value <= 0n) continue;
      all.push({
        tx_hash: t.hash, height: b.height, from_addr: t.from, to_addr: t.to ?? t.contractAddress, value: t.value.toString(),
        timestamp: whaleTs(b.timestamp), tx_type: t.type, v: t.value, index: t.index,
      });
    }
  }
  all.sort((a, b) => (a.v === b.v ? a.height - b.height || a.index - b.index : a.v > b.v ? -1 : 1));
  return all.slice(0, limit).map(({ v: _v, index: _i, ...tx }) => tx);
}
