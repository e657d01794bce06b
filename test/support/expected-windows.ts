/**
 * Oracles for windows ending at the latest block (docs/metrics.md, "Windows ending at the latest
 * block"), computed straight from the canonical blocks: a window of L seconds holds the blocks with
 * a time t in (T − L, T], T the latest block's time.
 */
import type { CanonicalBlock } from '../../src/chain/model.ts';
import { SENTINELS, type ChainId } from '../../src/chain/chains.ts';
import type { Expected } from './expected.ts';

export interface SecondsWindow {
  after: number;
  upTo: number;
}

/** The `seconds` ending at the latest block's time. */
export function lastSeconds(blocks: CanonicalBlock[], seconds: number): SecondsWindow {
  const tip = blocks.at(-1)!.timestamp;
  return { after: tip - seconds, upTo: tip };
}

const inside = (w: SecondsWindow, ts: number) => ts > w.after && ts <= w.upTo;

/** EIP-1559 burn of the window's blocks: Σ base fee per gas × gas used. */
export function burnedIn(blocks: CanonicalBlock[], w: SecondsWindow): bigint {
  let burned = 0n;
  for (const b of blocks) if (inside(w, b.timestamp)) burned += (b.baseFeePerGas ?? 0n) * BigInt(b.gasUsed ?? 0);
  return burned;
}

/** Per sender of the window's transactions: fees, gas used and transactions sent (reverted ones too); only those whose fees are positive. */
export function feePayersIn(blocks: CanonicalBlock[], w: SecondsWindow): { address: string; fees: bigint; gas: number; txs: number }[] {
  const by = new Map<string, { address: string; fees: bigint; gas: number; txs: number }>();
  for (const b of blocks) {
    if (!inside(w, b.timestamp)) continue;
    for (const tx of b.transactions) {
      const p = by.get(tx.from) ?? { address: tx.from, fees: 0n, gas: 0, txs: 0 };
      p.fees += tx.fee;
      p.gas += tx.gasUsed ?? 0;
      p.txs += 1;
      by.set(tx.from, p);
    }
  }
  return [...by.values()].filter((p) => p.fees > 0n);
}

/** Addresses whose latest transaction is in the window. */
export function activeIn(e: Expected, w: SecondsWindow): number {
  let n = 0;
  for (const a of e.addresses.values()) if (a.lastSeen !== null && inside(w, a.lastSeen)) n++;
  return n;
}

/** Total supply (docs/metrics.md, "Total supply"): the positive balances, sentinels excluded. */
export function totalSupplyOf(chain: ChainId, e: Expected): bigint {
  let supply = 0n;
  for (const [address, a] of e.addresses) if (a.balance > 0n && !SENTINELS[chain].includes(address)) supply += a.balance;
  return supply;
}
