/**
 * The token routes' answers computed from canonical blocks (the generator's or the chain
 * builder's), never from the store: each token's metadata and creation, its transfers summed into
 * balances, holders, supply and days, in the orders the routes list them.
 */
import { SENTINELS, type ChainId } from '../../../src/chain/chains.ts';
import type { CanonicalBlock, TokenInfo } from '../../../src/chain/model.ts';
import { isoSeconds as iso } from '../../support/expected-transaction.ts';
import { utcDay } from '../../support/utc-day.ts';

export interface TransferLine {
  height: number;
  blockHash: string;
  ts: number;
  txHash: string;
  txIndex: number;
  logIndex: number;
  from: string;
  to: string;
  amount: bigint;
}

export interface TokenFacts {
  id: string;
  info: TokenInfo | null;
  created: { height: number; ts: number } | null;
  transfers: TransferLine[];
  balances: Map<string, bigint>;
  /** Per holder: transfers touching it (a self-transfer once) and the latest one's time. */
  touches: Map<string, { count: number; last: number }>;
  supply: bigint;
  /** Per UTC day with a transfer: how many, and the holders at the day's end. */
  days: Map<string, { transfers: number; holders: number }>;
}

const holdersOf = (balances: Map<string, bigint>) => [...balances.values()].filter((b) => b > 0n).length;

/** Every token of `blocks` that moved or was created, by id. Transfers of reverted transactions move nothing. */
export function tokenFacts(chain: ChainId, blocks: CanonicalBlock[]): Map<string, TokenFacts> {
  const sentinel = (address: string) => SENTINELS[chain].includes(address);
  const tokens = new Map<string, TokenFacts>();
  const of = (id: string) => {
    let t = tokens.get(id);
    if (!t) tokens.set(id, (t = { id, info: null, created: null, transfers: [], balances: new Map(), touches: new Map(), supply: 0n, days: new Map() }));
    return t;
  };
  const txAt = new Map<string, { height: number; ts: number }>();
  for (const block of blocks) for (const tx of block.transactions) txAt.set(tx.hash, { height: block.height, ts: block.timestamp });
  for (const block of blocks) {
    const day = utcDay(block.timestamp);
    for (const info of block.tokens) {
      const t = of(info.contract);
      t.info ??= info;
    }
    const moved = new Set<TokenFacts>();
    for (const tx of block.transactions) {
      if (tx.status === 0) continue;
      for (const x of tx.tokenTransfers) {
        const t = of(x.contract);
        moved.add(t);
        t.transfers.push({ height: block.height, blockHash: block.hash, ts: block.timestamp, txHash: tx.hash, txIndex: tx.index, logIndex: x.logIndex, from: x.from, to: x.to, amount: x.amount });
        if (sentinel(x.from)) t.supply += x.amount;
        if (sentinel(x.to)) t.supply -= x.amount;
        for (const [holder, delta] of [[x.to, x.amount], [x.from, -x.amount]] as const) {
          if (sentinel(holder)) continue;
          t.balances.set(holder, (t.balances.get(holder) ?? 0n) + delta);
          const touch = t.touches.get(holder) ?? { count: 0, last: 0 };
          if (!(holder === x.to && holder === x.from && delta < 0n)) touch.count++;
          touch.last = Math.max(touch.last, block.timestamp);
          t.touches.set(holder, touch);
        }
        const d = t.days.get(day) ?? { transfers: 0, holders: 0 };
        d.transfers++;
        t.days.set(day, d);
      }
    }
    for (const t of moved) t.days.get(day)!.holders = holdersOf(t.balances);
  }
  for (const t of tokens.values()) t.created = t.info?.createdTx ? (txAt.get(t.info.createdTx) ?? null) : null;
  return tokens;
}

/** Raw amount shifted by `decimals` (0 when unknown), without trailing zeros. */
export function display(raw: bigint, decimals: number | null): string {
  const places = decimals ?? 0;
  if (places === 0) return raw.toString();
  const unit = 10n ** BigInt(places);
  const fraction = (raw % unit).toString().padStart(places, '0').replace(/0+$/, '');
  return `${raw / unit}${fraction ? `.${fraction}` : ''}`;
}

const descending = (a: string, b: string) => (a < b ? 1 : a > b ? -1 : 0);

export function expectedSummary(t: TokenFacts) {
  const decimals = t.info?.decimals ?? null;
  const first = t.transfers[0];
  return {
    token: t.id,
    name: t.info?.name ?? null,
    symbol: t.info?.symbol ?? null,
    decimals,
    total_supply: t.supply.toString(),
    total_supply_display: display(t.supply, decimals),
    holders: holdersOf(t.balances),
    transfers: t.transfers.length,
    first_transfer_height: first?.height ?? null,
    first_transfer_at: first ? iso(first.ts) : null,
  };
}

export function expectedDetail(chain: ChainId, network: string, t: TokenFacts) {
  return {
    chain,
    network,
    ...expectedSummary(t),
    creator: t.info?.creator ?? null,
    created_tx: t.info?.createdTx ?? null,
    created_height: t.created?.height ?? null,
    created_at: t.created ? iso(t.created.ts) : null,
  };
}

/** The list in one of its orders: descending by the sort, ties by id descending. */
export function expectedList(tokens: Map<string, TokenFacts>, sort: 'holders' | 'transfers' | 'newest', keep: (t: TokenFacts) => boolean = () => true) {
  const key = (t: TokenFacts) => (sort === 'holders' ? holdersOf(t.balances) : sort === 'transfers' ? t.transfers.length : t.transfers[0]!.height);
  return [...tokens.values()]
    .filter((t) => t.transfers.length > 0 && keep(t))
    .sort((a, b) => key(b) - key(a) || descending(a.id, b.id))
    .map(expectedSummary);
}

/** Positive balances, richest first, equal ones by address descending; the share of the supply as a number. */
export function expectedHolders(t: TokenFacts) {
  return [...t.balances]
    .filter(([, balance]) => balance > 0n)
    .sort(([a, x], [b, y]) => (y > x ? 1 : y < x ? -1 : descending(a, b)))
    .map(([address, balance]) => ({
      address,
      balance: balance.toString(),
      balance_display: display(balance, t.info?.decimals ?? null),
      share: t.supply > 0n ? { num: balance * 100n, den: t.supply } : null,
      transfer_count: t.touches.get(address)!.count,
      last_activity: iso(t.touches.get(address)!.last),
    }));
}

/** Newest first: height, position in the block, log index, descending. */
export function expectedTransfers(t: TokenFacts) {
  return [...t.transfers]
    .sort((a, b) => b.height - a.height || b.txIndex - a.txIndex || b.logIndex - a.logIndex)
    .map((x) => ({
      tx_hash: x.txHash,
      height: x.height,
      block_hash: x.blockHash,
      timestamp: iso(x.ts),
      tx_index: x.txIndex,
      log_index: x.logIndex,
      from_addr: x.from,
      to_addr: x.to,
      amount: x.amount.toString(),
      amount_display: display(x.amount, t.info?.decimals ?? null),
    }));
}

/** Every day from the later of `from` and the token's first day to `tip`: transfers (0 on a quiet day) and holders at its end. */
export function expectedDays(t: TokenFacts, tip: string, from: string | null) {
  const first = utcDay(t.transfers[0]!.ts);
  const start = from === null || from < first ? first : from;
  const out: { day: string; transfers: number; holders: number }[] = [];
  let holders = 0;
  for (let ms = Date.parse(`${start}T00:00:00Z`); utcDay(ms / 1000) <= tip; ms += 86_400_000) {
    const day = utcDay(ms / 1000);
    // The holders before the window's first day: those at the end of the latest day with a transfer before it.
    if (out.length === 0) for (const [d, v] of t.days) if (d < day) holders = v.holders;
    const d = t.days.get(day);
    if (d) holders = d.holders;
    out.push({ day, transfers: d?.transfers ?? 0, holders });
  }
  return out;
}
