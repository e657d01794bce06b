/**
 * Oracle of the network-status endpoints (tps, reorgs, health, dashboard, highlights), computed
 * from the canonical blocks (and the items a source yielded) by each figure's definition in
 * docs/metrics.md, "Network status", without any of Quarry's code.
 */
import type { ChainId } from '../../src/chain/chains.ts';
import type { CanonicalBlock, SourceItem } from '../../src/chain/model.ts';

export const TARGET_BLOCK_SECONDS: Record<ChainId, number> = { pow: 60, pos: 12 };

/** `YYYY-MM-DDTHH:MM:SS` of a Unix time. */
export const isoSeconds = (ts: number): string => new Date(ts * 1000).toISOString().slice(0, 19);

/** Blocks and transactions with a time in (after, upTo]. */
export function windowOf(blocks: CanonicalBlock[], after: number, upTo: number): { blocks: number; txs: number } {
  const inside = blocks.filter((b) => b.timestamp > after && b.timestamp <= upTo);
  return { blocks: inside.length, txs: inside.reduce((n, b) => n + b.transactions.length, 0) };
}

export function expectedTps(blocks: CanonicalBlock[]): { tps_1h: number; tps_24h: number; tps_7d: number } {
  const tip = blocks.at(-1);
  if (!tip) return { tps_1h: 0, tps_24h: 0, tps_7d: 0 };
  const rate = (seconds: number) => windowOf(blocks, tip.timestamp - seconds, tip.timestamp).txs / seconds;
  return { tps_1h: rate(3600), tps_24h: rate(86_400), tps_7d: rate(604_800) };
}

export interface ExpectedReorg {
  height: number;
  prev_hash: string;
  new_hash: string;
  depth: number;
}

/**
 * The reorganisations a follower of `items` meets, in the order it meets them: a block that does
 * not extend its tip replaces everything above the highest height it shares with the final chain.
 */
export function expectedReorgs(items: SourceItem[], canonical: CanonicalBlock[]): ExpectedReorg[] {
  const finalHash = new Map(canonical.map((b) => [b.height, b.hash]));
  const held = new Map<number, string>();
  let tip = -1;
  const out: ExpectedReorg[] = [];
  for (const item of items) {
    if (item.kind === 'undecodable') {
      if (item.height > tip) {
        held.set(item.height, '');
        tip = item.height;
      }
      continue;
    }
    if (item.kind !== 'block') continue;
    const b = item.block;
    const extendsTip = tip < 0 || (b.height === tip + 1 && (held.get(tip) === '' || held.get(tip) === b.parentHash));
    if (extendsTip) {
      held.set(b.height, b.hash);
      tip = b.height;
      continue;
    }
    if (b.height <= tip && held.get(b.height) === b.hash) continue; // a replay
    let ancestor = b.height - 1;
    if (held.get(ancestor) !== b.parentHash) {
      ancestor--;
      while (ancestor >= 0 && held.get(ancestor) !== finalHash.get(ancestor)) ancestor--;
    }
    const first = ancestor + 1 < b.height ? finalHash.get(ancestor + 1)! : b.hash;
    out.push({ height: ancestor + 1, prev_hash: held.get(ancestor + 1) ?? '', new_hash: first, depth: tip - ancestor });
    for (let h = ancestor + 1; h <= tip; h++) held.delete(h);
    for (let h = ancestor + 1; h < b.height; h++) held.set(h, finalHash.get(h)!);
    held.set(b.height, b.hash);
    tip = b.height;
  }
  return out;
}

/** The user transaction that moved the most native value in blocks of [fromDay, toDay], first in chain order on a tie. */
export function expectedBiggest(blocks: CanonicalBlock[], fromDay: string, toDay: string) {
  let best: { value: bigint; tx_hash: string; from_addr: string; to_addr: string | null; ts: number } | null = null;
  for (const b of blocks) {
    const day = isoSeconds(b.timestamp).slice(0, 10);
    if (day < fromDay || day > toDay) continue;
    for (const t of b.transactions) {
      const user = !['coinbase', 'latticePK', 'slave'].includes(t.type) && t.migration?.role !== 'mint' && t.status !== 0;
      if (!user || t.value <= 0n) continue;
      if (!best || t.value > best.value) best = { value: t.value, tx_hash: t.hash, from_addr: t.from, to_addr: t.to ?? t.contractAddress, ts: b.timestamp };
    }
  }
  return best;
}

/** The UTC hour of the tip's day with the most transactions (the earliest on a tie). */
export function expectedBusiestHour(blocks: CanonicalBlock[]) {
  const tip = blocks.at(-1);
  if (!tip) return null;
  const day = isoSeconds(tip.timestamp).slice(0, 10);
  const hours = new Map<string, { tx_count: number; block_count: number }>();
  for (const b of blocks) {
    const stamp = isoSeconds(b.timestamp);
    if (stamp.slice(0, 10) !== day) continue;
    const hour = `${stamp.slice(0, 13)}:00:00`;
    const h = hours.get(hour) ?? { tx_count: 0, block_count: 0 };
    h.tx_count += b.transactions.length;
    h.block_count++;
    hours.set(hour, h);
  }
  const [hour, h] = [...hours.entries()].sort((a, b) => b[1].tx_count - a[1].tx_count || a[0].localeCompare(b[0]))[0]!;
  return { hour, ...h };
}
