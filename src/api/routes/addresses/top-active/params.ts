/** The leaderboard's sort and filter parameters, parsed into the filters its queries take. */
import { parseAddress } from '../../../../chain/addresses.ts';
import { SENTINELS, type ChainId } from '../../../../chain/chains.ts';
import type { ChainNetwork } from '../../../../chain/network.ts';
import type { Db } from '../../../../store/store.ts';
import { pctThreshold } from '../../../amounts.ts';
import { invalidParam } from '../../../problem.ts';
import { whaleFloor } from '../../../../domain/holder-tiers.ts';
import { totalSupply } from '../../../../domain/supply.ts';
import type { Filters } from './filters.ts';

export const SORT_FIELDS = ['tx_count', 'balance', 'total_received', 'total_sent', 'total_fees_paid', 'first_seen', 'first_seen_asc', 'last_seen_asc'] as const;
export type SortField = (typeof SORT_FIELDS)[number];
export const SORT_VALUES = [...SORT_FIELDS, ...SORT_FIELDS.map((field) => `-${field}` as const)] as const;

/** The order of each field (with the address as tie-break), the same whether `-` is given or not. */
export const ORDER: Record<SortField, { column: string; order: string }> = {
  tx_count: { column: 'tx_count', order: 'tx_count DESC, address' },
  balance: { column: 'balance', order: 'balance DESC, address' },
  total_received: { column: 'total_received', order: 'total_received DESC, address' },
  total_sent: { column: 'total_sent', order: 'total_sent DESC, address' },
  total_fees_paid: { column: 'total_fees_paid', order: 'total_fees_paid DESC, address' },
  first_seen: { column: 'first_seen', order: 'first_seen DESC NULLS LAST, address' },
  first_seen_asc: { column: 'first_seen', order: 'first_seen ASC NULLS LAST, address' },
  last_seen_asc: { column: 'last_seen', order: 'last_seen ASC NULLS LAST, address' },
};

/** The field of a sort value: its order is the same with or without the sign. */
export function sortField(sort: string): SortField {
  return sort.replace(/^-/, '') as SortField;
}

/** The q parameter as a lowercase substring of canonical addresses ('' = no filter). */
function normaliseQ(chain: ChainId, q: string | undefined): string {
  let text = (q ?? '').toLowerCase();
  if (chain === 'pos') {
    if (text.startsWith('0x')) text = 'q' + text.slice(2);
    else if (text.startsWith('z')) text = 'q' + text.slice(1);
  }
  return text;
}

function parseExclude(chain: ChainId, network: ChainNetwork, raw: string | undefined): string[] {
  if (!raw) return [];
  const out = new Set<string>();
  for (const part of raw.split(',')) {
    const text = part.trim();
    if (!text) continue;
    const parsed = parseAddress(chain, text, network);
    if (!parsed.ok) throw invalidParam('exclude', `contains ${JSON.stringify(text.slice(0, 90))}, which is not a ${chain} address: ${parsed.reason}`);
    out.add(parsed.address);
  }
  return [...out];
}

interface FilterParams {
  q?: string;
  exclude?: string;
  excludeSentinel: boolean;
  whaleOnly: boolean;
  minBalancePct?: number;
  positiveOnly: boolean;
}

/** The filters of the parameters; a percent of the total supply (src/domain/supply.ts) is turned into a balance threshold. */
/** `network`: the chain's facts as the request's store state has them (the address width of `exclude`). */
export async function filtersOf(db: Db, chain: ChainId, network: ChainNetwork, p: FilterParams): Promise<Filters> {
  const excluded = parseExclude(chain, network, p.exclude);
  if (p.excludeSentinel) excluded.push(...SENTINELS[chain].filter((s) => !excluded.includes(s)));
  let minBalance: bigint | null = null;
  if (p.whaleOnly) {
    minBalance = whaleFloor(chain);
  } else if (p.minBalancePct !== undefined) {
    minBalance = pctThreshold(p.minBalancePct, await totalSupply(db, chain));
  }
  if (p.positiveOnly && (minBalance === null || minBalance < 1n)) minBalance = 1n;
  return { chain, q: normaliseQ(chain, p.q) || null, minBalance, excluded };
}
