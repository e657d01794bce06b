/**
 * What GET /search must answer, computed from the canonical blocks, the labels the world was given
 * and the documented rules (docs/api-search.md), never from the store: what q names, which entries
 * are candidates, their relevance order and the caps.
 */
import type { ChainId } from '../../../src/chain/chains.ts';
import type { CanonicalBlock } from '../../../src/chain/model.ts';
import { expectedFromBlocks } from '../../support/expected.ts';
import { isoSeconds } from '../../support/expected-transaction.ts';

export interface LabelEntry {
  chain: ChainId;
  address: string;
  label: string;
  category: string;
  primary: boolean;
}

export interface SearchWorld {
  blocks: Record<ChainId, CanonicalBlock[]>;
  labels: LabelEntry[];
  /** bech32 forms of pow addresses the test asks with → their canonical form (the test encoded them). */
  bech32?: Map<string, string>;
}

export interface Hit {
  kind: 'block' | 'transaction' | 'address' | 'token' | 'label';
  chain: ChainId;
  id: string;
  label: string | null;
  path: string;
  match: string;
  exact: boolean;
  height: number | null;
  timestamp: string | null;
  tx_count: number | null;
  symbol: string | null;
  category: string | null;
}

/** The documented bounds. */
export const TEXTS_PER_PREFIX = 20;
export const ENTRIES_PER_TEXT = 10;
export const PER_KIND = 10;

const CHAIN_IDS: ChainId[] = ['pos', 'pow'];

interface Ranked extends Hit {
  tier: number;
  matched: string;
  length: number;
}

/** The world's facts the oracle needs, computed once per world. */
export function searchFacts(w: SearchWorld) {
  const txCounts = { pow: expectedFromBlocks('pow', w.blocks.pow).addresses, pos: expectedFromBlocks('pos', w.blocks.pos).addresses };
  const tokens = CHAIN_IDS.flatMap((chain) => {
    const seen = new Set<string>();
    return w.blocks[chain].flatMap((b) =>
      b.tokens.filter((t) => !seen.has(t.contract) && seen.add(t.contract)).map((t) => ({ chain, ...t, height: b.height, ts: b.timestamp })),
    );
  });
  return { txCounts, tokens };
}

export type SearchFacts = ReturnType<typeof searchFacts>;

const compareBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** What `q` names as an address of `chain`, by the forms docs/api-conventions.md lists (a 20-byte pos network). */
function addressOf(w: SearchWorld, chain: ChainId, q: string): string | null {
  if (chain === 'pos') {
    const m = /^(?:[QqZz]|0[xX])([0-9a-fA-F]{40})$/.exec(q);
    return m ? 'Q' + m[1]!.toLowerCase() : null;
  }
  if (/^[Qq][0-9a-fA-F]{78}$/.test(q)) return 'Q' + q.slice(1).toLowerCase();
  return w.bech32?.get(q) ?? null;
}

export function expectedSearch(w: SearchWorld, facts: SearchFacts, raw: string): { q: string; items: Hit[] } {
  const q = raw.trim();
  const lower = q.toLowerCase();
  const out: Ranked[] = [];
  const base = (chain: ChainId) => `/api/v1/${chain}`;
  const none = { label: null, symbol: null, category: null, tx_count: null, height: null, timestamp: null };
  const hex = /^(0x)?([0-9a-fA-F]{64})$/.exec(q)?.[2]?.toLowerCase();
  const height = /^(0|[1-9][0-9]*)$/.test(q) ? Number(q) : null;
  const txCount = (chain: ChainId, address: string) => facts.txCounts[chain].get(address)?.txCount ?? null;

  for (const chain of CHAIN_IDS) {
    const blocks = w.blocks[chain];
    if (hex !== undefined) {
      const hash = chain === 'pos' ? `0x${hex}` : hex;
      for (const b of blocks) {
        if (b.hash === hash) {
          out.push({ ...none, tier: 0, matched: '', length: 0, kind: 'block', chain, id: b.hash, path: `${base(chain)}/blocks/${b.hash}`, match: 'hash', exact: true, height: b.height, timestamp: isoSeconds(b.timestamp), tx_count: b.transactions.length });
        }
        for (const tx of b.transactions) {
          if (tx.hash === hash) out.push({ ...none, tier: 0, matched: '', length: 0, kind: 'transaction', chain, id: hash, path: `${base(chain)}/transactions/${hash}`, match: 'hash', exact: true, height: b.height, timestamp: isoSeconds(b.timestamp) });
        }
      }
    }
    if (height !== null) {
      const b = blocks.find((x) => x.height === height);
      if (b) out.push({ ...none, tier: 1, matched: '', length: 0, kind: 'block', chain, id: b.hash, path: `${base(chain)}/blocks/${b.hash}`, match: 'height', exact: true, height: b.height, timestamp: isoSeconds(b.timestamp), tx_count: b.transactions.length });
    }
    const address = addressOf(w, chain, q);
    if (address !== null) {
      const primary = w.labels.find((l) => l.chain === chain && l.address === address && l.primary);
      out.push({ ...none, tier: 0, matched: '', length: 0, kind: 'address', chain, id: address, path: `${base(chain)}/addresses/${address}`, match: 'address', exact: true, label: primary?.label ?? null, category: primary?.category ?? null, tx_count: txCount(chain, address) });
    }
  }
  const tokenHit = (t: SearchFacts['tokens'][number]) => ({
    ...none,
    kind: 'token' as const,
    chain: t.chain,
    id: t.contract,
    path: `/api/v1/${t.chain}/tokens/${t.contract}`,
    label: t.name ?? t.symbol,
    symbol: t.symbol,
    height: t.height,
    timestamp: isoSeconds(t.ts),
  });
  for (const t of facts.tokens) {
    const isId = t.chain === 'pos' ? t.contract === addressOf(w, 'pos', q) : hex !== undefined && t.contract === hex;
    if (isId) out.push({ ...tokenHit(t), tier: 0, matched: '', length: 0, match: 'token_id', exact: true });
  }

  // Texts: the first TEXTS_PER_PREFIX distinct lowercase texts in byte order, then each text's
  // first ENTRIES_PER_TEXT entries per chain by address.
  const candidates = <E extends { chain: ChainId }>(entries: E[], text: (e: E) => string | null, address: (e: E) => string) => {
    const texts = [...new Set(entries.map(text).filter((t): t is string => t !== null).map((t) => t.toLowerCase()).filter((t) => t.startsWith(lower)))]
      .sort(compareBytes)
      .slice(0, TEXTS_PER_PREFIX);
    return texts.flatMap((t) =>
      CHAIN_IDS.flatMap((chain) =>
        entries
          .filter((e) => e.chain === chain && text(e)?.toLowerCase() === t)
          .sort((a, b) => compareBytes(address(a), address(b)))
          .slice(0, ENTRIES_PER_TEXT)
          .map((e) => ({ e, t })),
      ),
    );
  };
  for (const { e, t } of candidates(w.labels, (l) => l.label, (l) => l.address)) {
    out.push({ ...none, tier: t === lower ? 2 : 3, matched: t, length: e.label.length, kind: 'label', chain: e.chain, id: e.address, path: `${base(e.chain)}/addresses/${e.address}`, match: 'label', exact: t === lower, label: e.label, category: e.category, tx_count: txCount(e.chain, e.address) });
  }
  for (const field of ['symbol', 'name'] as const) {
    for (const { e, t } of candidates(facts.tokens, (x) => x[field], (x) => x.contract)) {
      out.push({ ...tokenHit(e), tier: t === lower ? 2 : 3, matched: t, length: e[field]!.length, match: field, exact: t === lower });
    }
  }

  const kinds = ['block', 'transaction', 'address', 'token', 'label'];
  out.sort(
    (a, b) =>
      a.tier - b.tier ||
      kinds.indexOf(a.kind) - kinds.indexOf(b.kind) ||
      (a.kind === 'label' ? (b.tx_count ?? -1) - (a.tx_count ?? -1) : 0) ||
      a.length - b.length ||
      (a.kind === 'token' ? Number(a.match === 'name') - Number(b.match === 'name') : 0) ||
      compareBytes(a.matched, b.matched) ||
      CHAIN_IDS.indexOf(a.chain) - CHAIN_IDS.indexOf(b.chain) ||
      compareBytes(a.id, b.id),
  );
  const seen = new Set<string>();
  const perKind = new Map<string, number>();
  const items: Hit[] = [];
  for (const { tier: _tier, matched: _matched, length: _length, ...hit } of out) {
    const key = `${hit.kind} ${hit.chain} ${hit.id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if ((perKind.get(hit.kind) ?? 0) >= PER_KIND) continue;
    perKind.set(hit.kind, (perKind.get(hit.kind) ?? 0) + 1);
    items.push(hit);
  }
  return { q, items };
}
