/**
 * The exchange oracle: venues, relay confirmation, flows and the largest transfers computed in
 * plain TypeScript from the canonical blocks and the curated venue addresses, by the definitions
 * of docs/metrics.md ("Exchanges"), independently of Quarry's SQL.
 */
import type { CanonicalBlock } from '../../src/chain/model.ts';
import type { ChainId } from '../../src/chain/chains.ts';
import { utcDay } from './utc-day.ts';

export interface CuratedWallet {
  chain: ChainId;
  address: string;
  exchange: string;
  role: 'hot' | 'cold' | 'deposit_relay';
}

export interface Move {
  height: number;
  txIndex: number;
  recipientIndex: number;
  hash: string;
  ts: number;
  from: string;
  to: string;
  value: bigint;
}

export interface Flow extends Move {
  fromVenue: string | null;
  toVenue: string | null;
  fromRelay: boolean;
  toRelay: boolean;
  day: string;
}

/** Every native value transfer: top-level value > 0 to a recipient, not reverted, not a mint; one per pow recipient. */
export function movesOf(blocks: CanonicalBlock[]): Move[] {
  const moves: Move[] = [];
  for (const block of blocks) {
    for (const tx of block.transactions) {
      if (tx.status === 0 || tx.type === 'coinbase' || tx.migration?.role === 'mint') continue;
      const base = { height: block.height, txIndex: tx.index, hash: tx.hash, ts: block.timestamp, from: tx.from };
      if (tx.recipients) {
        tx.recipients.forEach((r, i) => {
          if (r.amount > 0n) moves.push({ ...base, recipientIndex: i, to: r.to, value: r.amount });
        });
      } else if (tx.to && tx.value > 0n) {
        moves.push({ ...base, recipientIndex: -1, to: tx.to, value: tx.value });
      }
    }
  }
  return moves;
}

/** Per curated relay that sent any move: how many went to a hot or cold wallet of its venue (forwards), how many elsewhere (strays). */
export function relayEvidence(wallets: CuratedWallet[], moves: Move[]): Map<string, { forwards: number; strays: number }> {
  const byAddress = new Map(wallets.map((w) => [w.address, w]));
  const evidence = new Map<string, { forwards: number; strays: number }>();
  for (const m of moves) {
    const relay = byAddress.get(m.from);
    if (relay?.role !== 'deposit_relay') continue;
    const e = evidence.get(m.from) ?? { forwards: 0, strays: 0 };
    const to = byAddress.get(m.to);
    if (to && to.role !== 'deposit_relay' && to.exchange === relay.exchange) e.forwards++;
    else e.strays++;
    evidence.set(m.from, e);
  }
  return evidence;
}

/** The venue of each confirmed address: curated hot/cold wallets, and relays that sent only to their venue's wallets (at least once). */
export function confirmedVenues(wallets: CuratedWallet[], moves: Move[]): Map<string, { exchange: string; relay: boolean }> {
  const evidence = relayEvidence(wallets, moves);
  const venues = new Map<string, { exchange: string; relay: boolean }>();
  for (const w of wallets) {
    const e = evidence.get(w.address);
    if (w.role !== 'deposit_relay' || (e && e.forwards > 0 && e.strays === 0)) venues.set(w.address, { exchange: w.exchange, relay: w.role === 'deposit_relay' });
  }
  return venues;
}

/** The moves that are flows: a venue on one side, not the same venue on the other. */
export function flowsOf(moves: Move[], venues: Map<string, { exchange: string; relay: boolean }>): Flow[] {
  const flows: Flow[] = [];
  for (const m of moves) {
    const f = venues.get(m.from);
    const t = venues.get(m.to);
    if (!f && !t) continue;
    if (f && t && f.exchange === t.exchange) continue;
    flows.push({ ...m, fromVenue: f?.exchange ?? null, toVenue: t?.exchange ?? null, fromRelay: f?.relay ?? false, toRelay: t?.relay ?? false, day: utcDay(m.ts) });
  }
  return flows;
}

/** Units as coins, an exact decimal string without trailing zeros (signed). */
export function asQuanta(units: bigint, decimals: number): string {
  const negative = units < 0n;
  const magnitude = negative ? -units : units;
  const scale = 10n ** BigInt(decimals);
  const fraction = (magnitude % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  const text = `${magnitude / scale}${fraction ? `.${fraction}` : ''}`;
  return negative && text !== '0' ? `-${text}` : text;
}
