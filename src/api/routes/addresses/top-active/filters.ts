/** The leaderboard's filters as SQL conditions on address_summary. */
import sql, { join, type Sql } from 'sql-template-tag';
import type { ChainId } from '../../../../chain/chains.ts';

export interface Filters {
  chain: ChainId;
  /** Lowercase substring (only address characters), or null for none. */
  q: string | null;
  /** Keep balance >= this (smallest units), or null. */
  minBalance: bigint | null;
  /** Canonical addresses left out. */
  excluded: string[];
}

/**
 * How `q` is written: `indexed` lets the trigram index (on lower(address)) find the candidates
 * (and only it: the chain test is written so that no (chain, …) index applies); `scan` checks it
 * row by row on an index read for another reason (the order, or a balance range), where it costs
 * nothing, and is written on the column so that the trigram index cannot apply.
 */
export type QMode = 'indexed' | 'scan';

export function whereOf(f: Filters, q: QMode = 'scan'): Sql {
  const parts: Sql[] = [q === 'indexed' && f.q ? sql`chain || '' = ${f.chain}` : sql`chain = ${f.chain}`];
  if (f.minBalance !== null) parts.push(sql`balance >= ${f.minBalance.toString()}::numeric`);
  if (f.q) parts.push(q === 'indexed' ? sql`lower(address) LIKE ${`%${f.q}%`}` : sql`address ILIKE ${`%${f.q}%`}`);
  if (f.excluded.length > 0) parts.push(sql`address <> ALL(${f.excluded}::text[])`);
  return join(parts, ' AND ');
}

/**
 * The addresses above the threshold, read from the balance index, with the other filters. There are
 * `candidates` of them (the limit leaves room for addresses that crossed it since they were counted).
 */
export function balanceCandidates(f: Filters, columns: Sql, candidates: number): Sql {
  return sql`SELECT ${columns} FROM address_summary WHERE ${whereOf(f, 'scan')} ORDER BY balance DESC LIMIT ${2 * candidates + 100}`;
}
