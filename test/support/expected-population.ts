/**
 * The holder population's oracle (docs/metrics.md, "Holder population"), from the canonical blocks:
 * balances at each day's end and last-activity days from expectedFromBlocks, and the figures by
 * their textbook definitions over exact integers (Gini by the sorted formula, Lorenz by sorting,
 * Nakamoto by counting), converted to numbers last.
 */
import assert from 'node:assert/strict';
import type { CanonicalBlock } from '../../src/chain/model.ts';
import { SENTINELS, type ChainId } from '../../src/chain/chains.ts';
import sql from 'sql-template-tag';
import type { Store } from '../../src/store/store.ts';
import { expectedFromBlocks } from './expected.ts';
import { utcDay } from './utc-day.ts';

const cmp = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);
const sum = (xs: bigint[]) => xs.reduce((a, b) => a + b, 0n);
/** a / b as a double, from 30 significant digits of the exact quotient. */
export function ratio(a: bigint, b: bigint): number {
  if (b <= 0n) return 0;
  const scale = 10n ** 30n;
  return Number((a * scale) / b) / 1e30;
}
export const pct = (a: bigint, b: bigint) => 100 * ratio(a, b);

export const AGE_LABELS = ['<1m', '1m-1y', '1-2y', '2-5y', '>5y'];
export function ageLabel(days: number): string {
  return days < 30 ? '<1m' : days < 365 ? '1m-1y' : days < 730 ? '1-2y' : days < 1825 ? '2-5y' : '>5y';
}
export const dayDiff = (a: string, b: string) => (Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000;

export interface Holder {
  address: string;
  balance: bigint;
  lastDay: string;
}

/** Holders at the end of each day of the chain (and their last-activity days), oldest day first. */
export function holdersByDay(chain: ChainId, blocks: CanonicalBlock[]): Map<string, Holder[]> {
  const e = expectedFromBlocks(chain, blocks);
  const days = [...new Set(blocks.map((b) => utcDay(b.timestamp)))].sort();
  const out = new Map<string, Holder[]>();
  for (const day of days) {
    const holders: Holder[] = [];
    for (const [address, byDay] of e.daily) {
      if (SENTINELS[chain].includes(address)) continue;
      let balance = 0n;
      let lastDay = '';
      for (const [d, f] of byDay) {
        if (d > day) continue;
        balance += f.received - f.sentWithFees;
        if (f.txIn + f.txOut > 0 || f.received > 0n || f.sentWithFees > 0n || f.fees > 0n) lastDay = d > lastDay ? d : lastDay;
      }
      if (balance > 0n) holders.push({ address, balance, lastDay });
    }
    out.set(day, holders);
  }
  // The oracle's own check: the day sums end at the balances.
  const last = out.get(days.at(-1)!) ?? [];
  for (const h of last) assert.equal(h.balance, e.addresses.get(h.address)!.balance);
  return out;
}

export interface Figures {
  holders: number;
  supply: bigint;
  sorted: bigint[];
  top: (k: number) => bigint;
  gini: number;
  nakamoto: number;
  hhi: number;
  palma: number;
}

export function figures(balances: bigint[]): Figures {
  const sorted = [...balances].sort(cmp);
  const n = sorted.length;
  const supply = sum(sorted);
  const top = (k: number) => sum(sorted.slice(Math.max(0, n - k)));
  let pairs = 0n;
  sorted.forEach((x, i) => (pairs += BigInt(2 * (i + 1) - n - 1) * x));
  let nakamoto = 0;
  let acc = 0n;
  while (nakamoto < n && 2n * acc <= supply) acc += sorted[n - 1 - nakamoto++]!;
  const bottom = sum(sorted.slice(0, Math.floor((4 * n) / 10)));
  return {
    holders: n,
    supply,
    sorted,
    top,
    gini: ratio(pairs, BigInt(n) * supply),
    nakamoto,
    hhi: ratio(sum(sorted.map((x) => x * x)), supply * supply),
    palma: bottom > 0n ? ratio(top(Math.ceil(n / 10)), bottom) : 0,
  };
}

/** Numbers equal to 12 significant digits (the API converts exact ratios; the oracle its own way). */
export function close(actual: number, expected: number, what: string): void {
  assert.ok(Math.abs(actual - expected) <= 1e-12 * Math.max(1, Math.abs(expected)), `${what}: ${actual} vs ${expected}`);
}

/** Entities by the curated data and the blocks: curated exchange wallets and confirmed relays, primary labels, contracts. */
export async function entitySet(store: Store, chain: ChainId, blocks: CanonicalBlock[]): Promise<Set<string>> {
  const exchange = await store.query<{ address: string; entity: boolean }>(
    'test.exchange', sql`SELECT address, (role <> 'deposit_relay' OR confirmed) AS entity FROM exchange_wallets WHERE chain = ${chain}`);
  const labelled = await store.query<{ address: string }>('test.labels', sql`SELECT address FROM labels WHERE chain = ${chain} AND is_primary`);
  const e = expectedFromBlocks(chain, blocks);
  const curated = new Map(exchange.map((r) => [r.address, r.entity]));
  const labels = new Set(labelled.map((r) => r.address));
  const set = new Set<string>();
  for (const [address, a] of e.addresses) {
    const entity = curated.has(address) ? curated.get(address)! : labels.has(address) || a.isContract;
    if (entity) set.add(address);
  }
  return set;
}

