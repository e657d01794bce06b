/**
 * The relevance order of a search's hits (docs/api-search.md, "Relevance"): what `q` names
 * exactly before what starts with it, kinds in a fixed order, then each kind's own order; one hit
 * per thing, at most MAX_PER_KIND of each kind.
 */
import type { HitKind, SearchRow } from './search.read.ts';

export const MAX_PER_KIND = 10;

const KIND_ORDER: readonly HitKind[] = ['block', 'transaction', 'address', 'token', 'label'];
/** pos first, the spec's default chain, where nothing else tells two hits apart. */
const CHAIN_ORDER = ['pos', 'pow'];

/** 0: an identifier (a hash, an address, a token's id); 1: a height; 2: a whole text; 3: the start of a text. */
function tier(row: SearchRow): number {
  if (row.match === 'height') return 1;
  if (row.matched === null) return 0;
  return row.exact ? 2 : 3;
}

const byNumber = (a: number, b: number) => a - b;
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Within a kind and tier: labels by activity then length, tokens by length then symbol before name; then the text, chain, id. */
function compare(a: SearchRow, b: SearchRow): number {
  return (
    byNumber(tier(a), tier(b)) ||
    byNumber(KIND_ORDER.indexOf(a.kind), KIND_ORDER.indexOf(b.kind)) ||
    (a.kind === 'label' ? byNumber(b.tx_count ?? -1, a.tx_count ?? -1) : 0) ||
    byNumber(a.text_length ?? 0, b.text_length ?? 0) ||
    (a.kind === 'token' ? byNumber(a.match === 'symbol' ? 0 : 1, b.match === 'symbol' ? 0 : 1) : 0) ||
    byText(a.matched ?? '', b.matched ?? '') ||
    byNumber(CHAIN_ORDER.indexOf(a.chain), CHAIN_ORDER.indexOf(b.chain)) ||
    byText(a.id, b.id)
  );
}

/** The hits in relevance order: each thing (kind, chain, id) once at its best place, at most MAX_PER_KIND per kind. */
export function rankHits(rows: readonly SearchRow[]): SearchRow[] {
  const seen = new Set<string>();
  const perKind = new Map<HitKind, number>();
  const out: SearchRow[] = [];
  for (const row of [...rows].sort(compare)) {
    const thing = `${row.kind}|${row.chain}|${row.id}`;
    if (seen.has(thing)) continue;
    seen.add(thing);
    const n = perKind.get(row.kind) ?? 0;
    if (n >= MAX_PER_KIND) continue;
    perKind.set(row.kind, n + 1);
    out.push(row);
  }
  return out;
}
