/**
 * Oracles of the staking and cross-chain tests, from the generator's own data (its staking days and
 * canonical blocks), by the definitions of docs/metrics.md ("Staking", "Cross-chain"), written here
 * without the code under test.
 */
import type { CanonicalBlock } from '../../src/chain/model.ts';
import type { AnalyticsWorld } from './analytics-world.ts';
import { utcDay } from './analytics-world.ts';

/** `amount` / 10^decimals as an exact decimal string without trailing zeros. */
export function coins(amount: bigint, decimals: number): string {
  const negative = amount < 0n;
  const magnitude = negative ? -amount : amount;
  const unit = 10n ** BigInt(decimals);
  const fraction = (magnitude % unit).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${magnitude / unit}${fraction ? `.${fraction}` : ''}`;
}

/** `100 × num / den` to 15 decimal places, as a number (the route converts an exact quotient too). */
export function pct(num: bigint, den: bigint): number {
  if (den === 0n) return 0;
  const scale = 10n ** 15n;
  return Number((num * 100n * scale) / den) / 1e15;
}

/** Equal within rounding of the last digits. */
export function close(actual: number, expected: number): boolean {
  return Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected));
}

/** The generator's staking days of the last `days` days ending with the latest staking day. */
export function stakingWindowDays(w: AnalyticsWorld, days: number) {
  const all = [...w.world.staking.daily].sort((a, b) => (a.day < b.day ? -1 : 1));
  return all.slice(Math.max(0, all.length - days));
}

/** pos execution-layer supply at the end of `day`: genesis allocations + withdrawals + migration mints − burned fees. */
export function executionSupply(blocks: CanonicalBlock[], day: string): bigint {
  let supply = 0n;
  for (const block of blocks) {
    if (utcDay(block.timestamp) > day) break;
    for (const a of block.allocations) supply += a.amount;
    for (const w of block.withdrawals) supply += w.amount;
    for (const tx of block.transactions) {
      supply -= tx.burned;
      if (tx.migration?.role === 'mint' && tx.status !== 0) supply += tx.value;
    }
  }
  return supply;
}

export interface Leg {
  account_id: string;
  chain: 'pow' | 'pos';
  timestamp: string;
  height: number;
  tx_hash: string;
  from_addr: string;
  to_addr: string;
  value_quanta: string;
  tx_type: string;
  migration_role: string;
  index: number;
  ts: number;
}

/** Every migration leg of both chains' blocks. */
export function migrationLegs(w: AnalyticsWorld): Leg[] {
  const legs: Leg[] = [];
  for (const chain of ['pow', 'pos'] as const) {
    for (const block of w.blocks[chain]) {
      for (const tx of block.transactions) {
        if (!tx.migration) continue;
        legs.push({
          account_id: tx.migration.accountId,
          chain,
          timestamp: new Date(block.timestamp * 1000).toISOString().slice(0, 19),
          height: block.height,
          tx_hash: tx.hash,
          from_addr: tx.from,
          to_addr: tx.to ?? tx.recipients?.[0]?.to ?? '',
          value_quanta: coins(tx.value, chain === 'pow' ? 9 : 18),
          tx_type: tx.type,
          migration_role: tx.migration.role,
          index: tx.index,
          ts: block.timestamp,
        });
      }
    }
  }
  return legs;
}

/** The legs of the accounts `address` burned for (pow) or was minted to (pos), newest first, as the API shows them. */
export function historyOf(w: AnalyticsWorld, address: string) {
  const legs = migrationLegs(w);
  const accounts = new Set(legs.filter((l) => (l.migration_role === 'burn' ? l.from_addr : l.to_addr) === address && (l.migration_role === 'burn') === (l.chain === 'pow')).map((l) => l.account_id));
  return legs
    .filter((l) => accounts.has(l.account_id))
    .sort((a, b) => b.ts - a.ts || (a.chain === b.chain ? 0 : a.chain === 'pos' ? -1 : 1) || b.height - a.height || b.index - a.index)
    .map(({ index: _index, ts: _ts, ...item }) => item);
}
