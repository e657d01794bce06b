/**
 * The timeline's expected series, computed from a chain's canonical blocks by each metric's
 * definition (docs/metrics.md, "Timeline"), without the code under test: per UTC day, counts,
 * means, running totals and end-of-day balances walked block by block.
 */
import type { ChainId } from '../../src/chain/chains.ts';
import type { CanonicalBlock } from '../../src/chain/model.ts';
import { daysBetween } from './analytics-world.ts';
import { utcDay } from './utc-day.ts';
import { powGenesisDebitOf } from './expected.ts';

export type Metric =
  | 'transactions' | 'blocks' | 'gas' | 'wallets' | 'active-wallets' | 'active-wallets-100' | 'active-wallets-1000'
  | 'supply' | 'block_time' | 'block_size' | 'active-addresses' | 'active-addresses-excl-payouts';

export const METRICS: readonly Metric[] = [
  'transactions', 'blocks', 'gas', 'wallets', 'active-wallets', 'active-wallets-100', 'active-wallets-1000', 'supply',
  'block_time', 'block_size', 'active-addresses', 'active-addresses-excl-payouts',
];

const SENTINEL: Record<ChainId, string> = { pow: 'Q' + '0'.repeat(64), pos: 'Q' + '0'.repeat(40) };
const DECIMALS: Record<ChainId, number> = { pow: 9, pos: 18 };

/** A coin amount as a JSON number: the exact decimal, converted once. */
function coins(chain: ChainId, raw: bigint): number {
  const unit = 10n ** BigInt(DECIMALS[chain]);
  return Number(`${raw / unit}.${(raw % unit).toString().padStart(DECIMALS[chain], '0')}`);
}

export interface ChainTimeline {
  first: string;
  tip: string;
  /** metric → day → value, for every day of the chain's history. */
  values: Record<Metric, Map<string, number>>;
}

export function expectedChainTimeline(chain: ChainId, blocks: CanonicalBlock[]): ChainTimeline {
  const unit = 10n ** BigInt(DECIMALS[chain]);
  const first = utcDay(blocks[0]!.timestamp);
  const tip = utcDay(blocks.at(-1)!.timestamp);
  const days = daysBetween(first, tip);
  const values = Object.fromEntries(METRICS.map((m) => [m, new Map(days.map((d) => [d, 0]))])) as Record<Metric, Map<string, number>>;

  const balance = new Map<string, bigint>();
  const credit = (address: string, amount: bigint) => balance.set(address, (balance.get(address) ?? 0n) + amount);
  const everActive = new Set<string>();
  let minted = 0n;
  let previousTs: number | null = null;
  const perDay = new Map<string, { sizes: number[]; intervals: number[]; gas: number; txs: number; users: Set<string>; any: Set<string>; nonPayout: Set<string> }>();

  blocks.forEach((block, index) => {
    const day = utcDay(block.timestamp);
    if (!perDay.has(day)) perDay.set(day, { sizes: [], intervals: [], gas: 0, txs: 0, users: new Set(), any: new Set(), nonPayout: new Set() });
    const d = perDay.get(day)!;
    d.sizes.push(block.size);
    if (previousTs !== null) d.intervals.push(block.timestamp - previousTs);
    previousTs = block.timestamp;
    d.gas += block.gasUsed ?? 0;
    minted += block.reward;
    for (const a of block.allocations) {
      credit(a.address, a.amount);
      // A sentinel's allocation (pow: the reserve rewards are paid from) is not supply.
      if (a.address !== SENTINEL[chain]) minted += a.amount;
      if (a.amount > 0n) d.any.add(a.address);
    }
    let tips = 0n;
    for (const tx of block.transactions) {
      d.txs++;
      const ok = tx.status !== 0;
      const mint = tx.type === 'coinbase' || tx.migration?.role === 'mint';
      const senders = [tx.from, ...(tx.signer ? [tx.signer] : [])];
      const receivers = [...(tx.to ?? tx.contractAddress ? [(tx.to ?? tx.contractAddress)!] : []), ...(tx.recipients ?? []).map((r) => r.to)];
      const user = !['coinbase', 'latticePK', 'slave'].includes(tx.type);
      const payout = tx.type === 'transfer' && (tx.recipients?.length ?? 0) >= 2;
      for (const a of [...senders, ...receivers]) {
        d.any.add(a);
        if (user) d.users.add(a);
      }
      if (user) {
        for (const a of senders) d.nonPayout.add(a);
        if (!payout) for (const a of receivers) d.nonPayout.add(a);
      }
      // Value: the fee always, the value unless reverted; a mint's sender creates what it sends.
      credit(tx.from, -tx.fee);
      tips += tx.fee - tx.burned;
      if (ok && !mint) credit(tx.from, -tx.value);
      // The pow coinbase sentinel pays the block's reward (at genesis the node's formula's).
      if (chain === 'pow' && tx.type === 'coinbase') credit(tx.from, -(block.height === 0 ? powGenesisDebitOf(block.parentHash) : block.reward));
      if (tx.recipients) for (const r of tx.recipients) credit(r.to, r.amount);
      else if (ok && (tx.to ?? tx.contractAddress)) credit((tx.to ?? tx.contractAddress)!, tx.value);
      if (mint && ok && tx.type !== 'coinbase') minted += tx.value;
      for (const frame of tx.internal) {
        credit(frame.from, -frame.value);
        credit(frame.to, frame.value);
        if (frame.value > 0n) {
          d.any.add(frame.from).add(frame.to);
          d.nonPayout.add(frame.from);
        }
      }
    }
    for (const w of block.withdrawals) {
      credit(w.address, w.amount);
      minted += w.amount;
      if (w.amount > 0n) d.any.add(w.address);
    }
    if (chain === 'pos' && block.miner && tips > 0n) {
      credit(block.miner, tips);
      d.any.add(block.miner);
    }
    // At the day's last block: the day's figures, with balances as the day ends.
    const next = blocks[index + 1];
    if (!next || utcDay(next.timestamp) !== day) {
      const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
      values.transactions.set(day, d.txs);
      values.blocks.set(day, d.sizes.length);
      values.gas.set(day, d.gas);
      values.block_size.set(day, sum(d.sizes) / d.sizes.length);
      values.block_time.set(day, d.intervals.length ? sum(d.intervals) / d.intervals.length : 0);
      values['active-wallets'].set(day, d.users.size);
      for (const a of d.users) everActive.add(a);
      const wallets = [...d.users].filter((a) => a !== SENTINEL[chain]);
      values['active-wallets-100'].set(day, wallets.filter((a) => (balance.get(a) ?? 0n) >= 100n * unit).length);
      values['active-wallets-1000'].set(day, wallets.filter((a) => (balance.get(a) ?? 0n) >= 1000n * unit).length);
      values['active-addresses'].set(day, [...d.any].filter((a) => a !== SENTINEL[chain]).length);
      values['active-addresses-excl-payouts'].set(day, [...d.nonPayout].filter((a) => a !== SENTINEL[chain]).length);
    }
    values.wallets.set(day, everActive.size);
    values.supply.set(day, coins(chain, minted));
  });
  // Days without blocks keep the running totals.
  for (let i = 1; i < days.length; i++) {
    if (!perDay.has(days[i]!)) {
      values.wallets.set(days[i]!, values.wallets.get(days[i - 1]!)!);
      values.supply.set(days[i]!, values.supply.get(days[i - 1]!)!);
    }
  }
  return { first, tip, values };
}

export interface Point {
  date: string;
  value: number;
  chain: ChainId;
}

function pointsOf(t: ChainTimeline, chain: ChainId, metric: Metric, from: string, to: string): Point[] {
  const start = from < t.first ? t.first : from;
  const end = to > t.tip ? t.tip : to;
  return start > end ? [] : daysBetween(start, end).map((date) => ({ date, value: t.values[metric].get(date)!, chain }));
}

const minusDays = (day: string, n: number) => utcDay(Date.parse(`${day}T00:00:00Z`) / 1000 - n * 86_400);

/**
 * The expected `points` and `preview`: without a cutover each chain's last `days` days; with one,
 * the window ends with the later tip's day, pow before the cutover's day, pos from it.
 */
export function expectedTimeline(t: Record<ChainId, ChainTimeline>, metric: Metric, days: number, cutoverDay: string | null): { points: Point[]; preview: Point[] } {
  if (cutoverDay === null) {
    return {
      points: pointsOf(t.pow, 'pow', metric, minusDays(t.pow.tip, days - 1), t.pow.tip),
      preview: pointsOf(t.pos, 'pos', metric, minusDays(t.pos.tip, days - 1), t.pos.tip),
    };
  }
  const end = t.pow.tip > t.pos.tip ? t.pow.tip : t.pos.tip;
  const start = minusDays(end, days - 1);
  const startPos = start > cutoverDay ? start : cutoverDay;
  return { points: [...pointsOf(t.pow, 'pow', metric, start, minusDays(cutoverDay, 1)), ...pointsOf(t.pos, 'pos', metric, startPos, end)], preview: [] };
}
