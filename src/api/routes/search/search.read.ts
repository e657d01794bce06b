/**
 * The read of GET /search: every candidate hit of a query in one statement. The identifiers (a
 * hash, a height, an address) are key lookups; the texts (labels, token symbols and names) walk
 * the prefix indexes of migration 0090 (docs/api-search.md, "Bounds and indexes").
 */
import sql, { join, raw, type Sql } from 'sql-template-tag';
import { CHAINS } from '../../../chain/chains.ts';
import type { Db } from '../../../store/store.ts';
import type { SearchTerms } from './terms.ts';

/** Distinct lowercase texts of one kind a prefix reaches, at most, in byte order. */
export const PREFIX_TEXTS = 20;
/** Entries of one text on one chain taken as candidates, at most, by address. */
export const TEXT_ENTRIES = 10;

export type HitKind = 'block' | 'transaction' | 'address' | 'token' | 'label';
/** What `q` matched: an identifier, a height, or a text (exactly or as a prefix). */
export type HitMatch = 'hash' | 'height' | 'address' | 'token_id' | 'symbol' | 'name' | 'label';

export interface SearchRow {
  kind: HitKind;
  chain: string;
  id: string;
  /** Display name: an address's primary label, a token's name, a label's text. */
  label: string | null;
  category: string | null;
  symbol: string | null;
  match: HitMatch;
  exact: boolean;
  height: number | null;
  ts: number | null;
  tx_count: number | null;
  /** Text hits: the lowercase text matched, and the length of the label, symbol or name. */
  matched: string | null;
  text_length: number | null;
}

/** A row of SearchRow's columns, in order, for one identifier hit. */
function hit(kind: HitKind, match: HitMatch, columns: { chain: Sql; id: Sql; label?: Sql; category?: Sql; symbol?: Sql; height?: Sql; ts?: Sql; txCount?: Sql }): Sql {
  const nul = raw('NULL');
  return sql`SELECT ${kind}::text AS kind, ${columns.chain}::text AS chain, ${columns.id}::text AS id, ${columns.label ?? nul}::text AS label,
                    ${columns.category ?? nul}::text AS category, ${columns.symbol ?? nul}::text AS symbol, ${match}::text AS match, true AS exact,
                    ${columns.height ?? nul}::bigint AS height, ${columns.ts ?? nul}::bigint AS ts, ${columns.txCount ?? nul}::bigint AS tx_count,
                    NULL::text AS matched, NULL::int AS text_length`;
}

/** The creation time of the token row aliased `alias`: its block's, by key. */
const createdTs = (alias: string) => raw(`(SELECT b.ts FROM blocks b WHERE b.chain = ${alias}.chain AND b.height = ${alias}.created_height)`);

function identifierHits(terms: SearchTerms): Sql[] {
  const parts: Sql[] = [];
  const { hashes, height, addresses } = terms;
  for (const chain of CHAINS) {
    if (hashes) {
      const hash = hashes[chain];
      parts.push(sql`${hit('block', 'hash', { chain: raw('b.chain'), id: raw('b.hash'), height: raw('b.height'), ts: raw('b.ts'), txCount: raw('b.tx_count') })}
                     FROM blocks b WHERE b.chain = ${chain} AND b.hash = ${hash}`);
      parts.push(sql`${hit('transaction', 'hash', { chain: raw('t.chain'), id: raw('t.tx_hash'), height: raw('t.height'), ts: raw('t.ts') })}
                     FROM transactions t WHERE t.chain = ${chain} AND t.tx_hash = ${hash}`);
    }
    if (height !== null) {
      parts.push(sql`${hit('block', 'height', { chain: raw('b.chain'), id: raw('b.hash'), height: raw('b.height'), ts: raw('b.ts'), txCount: raw('b.tx_count') })}
                     FROM blocks b WHERE b.chain = ${chain} AND b.height = ${height}`);
    }
    const address = addresses[chain];
    if (address !== undefined) {
      parts.push(sql`${hit('address', 'address', { chain: sql`${chain}`, id: sql`${address}`, label: raw('l.label'), category: raw('l.category'), txCount: raw('s.tx_count') })}
                     FROM (SELECT 1) AS one
                     LEFT JOIN address_summary s ON s.chain = ${chain} AND s.address = ${address}
                     LEFT JOIN labels l ON l.chain = ${chain} AND l.address = ${address} AND l.is_primary`);
    }
  }
  // A token by its id: a pos contract address, a pow token's creating transaction.
  const tokenIds = [addresses.pos === undefined ? null : sql`(c.chain = ${'pos'} AND c.address = ${addresses.pos})`, hashes ? sql`(c.chain = ${'pow'} AND c.address = ${hashes.pow})` : null].filter((x) => x !== null);
  if (tokenIds.length > 0) {
    parts.push(sql`${hit('token', 'token_id', { chain: raw('c.chain'), id: raw('c.address'), label: raw('coalesce(c.name, c.symbol)'), symbol: raw('c.symbol'), height: raw('c.created_height'), ts: createdTs('c') })}
                   FROM token_contracts c WHERE ${join(tokenIds, ' OR ')}`);
  }
  return parts;
}

/** A text column searched by prefix: the CTE of its distinct texts, its table and column. */
interface TextColumn {
  cte: string;
  table: 'labels' | 'token_contracts';
  column: 'label' | 'symbol' | 'name';
}

const LABELS: TextColumn = { cte: 'label_texts', table: 'labels', column: 'label' };
const SYMBOLS: TextColumn = { cte: 'symbol_texts', table: 'token_contracts', column: 'symbol' };
const NAMES: TextColumn = { cte: 'name_texts', table: 'token_contracts', column: 'name' };

/** The indexed expression of a text column (labels_text_prefix, token_contracts_*_prefix). */
const key = (alias: string, c: TextColumn) => raw(`lower(${alias}.${c.column}) COLLATE "C"`);
const present = (alias: string, c: TextColumn) => raw(c.table === 'labels' ? 'true' : `${alias}.${c.column} IS NOT NULL`);

/**
 * The keys of `c` that start with `q`: a range of its prefix index (lowercase `q`, up to `q` followed
 * by the highest code point, U+10FFFF, which no UTF-8 continuation of `q` passes), then
 * starts_with for the exact condition: no pattern characters to escape.
 */
function startsWith(alias: string, c: TextColumn, q: string): Sql {
  const k = key(alias, c);
  return sql`${k} >= lower(${q}) AND ${k} < lower(${q}) || ${'\u{10FFFF}'} AND starts_with(${k}, lower(${q}))`;
}

/**
 * The distinct lowercase texts of `c` that start with `q`, in byte order, at most PREFIX_TEXTS: a
 * loose scan of the prefix index, one probe per text, however many entries share a text (an
 * exchange's thousands of deposit addresses share one label).
 */
function distinctTexts(c: TextColumn, q: string): Sql {
  return sql`${raw(c.cte)} (text, n) AS (
    (SELECT ${key('x', c)}, 1 FROM ${raw(c.table)} x WHERE ${present('x', c)} AND ${startsWith('x', c, q)} ORDER BY 1 LIMIT 1)
    UNION ALL
    SELECT (SELECT ${key('x', c)} FROM ${raw(c.table)} x WHERE ${present('x', c)} AND ${startsWith('x', c, q)} AND ${key('x', c)} > t.text ORDER BY 1 LIMIT 1), t.n + 1
      FROM ${raw(c.cte)} t WHERE t.text IS NOT NULL AND t.n < ${PREFIX_TEXTS}
  )`;
}

/** For each text of `c` found (`t`; the scan's last row, null, finds none), its first TEXT_ENTRIES entries on each chain `ch` by address, as `e`. */
function entriesOf(c: TextColumn, columns: string): Sql {
  return sql`FROM ${raw(c.cte)} t
    CROSS JOIN (VALUES (${'pos'}), (${'pow'})) AS ch (chain)
    CROSS JOIN LATERAL (
      SELECT ${raw(columns)} FROM ${raw(c.table)} e
      WHERE ${present('e', c)} AND ${key('e', c)} = t.text AND e.chain = ch.chain
      ORDER BY e.address LIMIT ${TEXT_ENTRIES}
    ) AS e`;
}

function textHits(q: string): Sql[] {
  const exact = sql`(t.text = lower(${q}) COLLATE "C")`;
  const token = (c: TextColumn) =>
    sql`SELECT 'token'::text AS kind, ch.chain, e.address AS id, coalesce(e.name, e.symbol) AS label, NULL::text AS category, e.symbol,
               ${c.column}::text AS match, ${exact} AS exact, e.created_height AS height, ${createdTs('e')} AS ts, NULL::bigint AS tx_count,
               t.text AS matched, char_length(e.${raw(c.column)}) AS text_length
        ${entriesOf(c, 'e.chain, e.address, e.name, e.symbol, e.created_height')}`;
  return [
    sql`SELECT 'label'::text AS kind, ch.chain, e.address AS id, e.label, e.category, NULL::text AS symbol,
               'label'::text AS match, ${exact} AS exact, NULL::bigint AS height, NULL::bigint AS ts, s.tx_count::bigint AS tx_count,
               t.text AS matched, char_length(e.label) AS text_length
        ${entriesOf(LABELS, 'e.address, e.label, e.category')}
        LEFT JOIN address_summary s ON s.chain = ch.chain AND s.address = e.address`,
    token(SYMBOLS),
    token(NAMES),
  ];
}

/** The statement of every candidate hit of `terms`: identifiers by key, texts by prefix. */
export function searchStatement(terms: SearchTerms): Sql {
  const parts = [...identifierHits(terms), ...textHits(terms.text)];
  return sql`WITH RECURSIVE ${distinctTexts(LABELS, terms.text)}, ${distinctTexts(SYMBOLS, terms.text)}, ${distinctTexts(NAMES, terms.text)}
    ${join(parts, ' UNION ALL ')}`;
}

/** Every candidate hit of `terms`, unranked (rank.ts orders and caps them). */
export async function readSearchCandidates(db: Db, terms: SearchTerms): Promise<SearchRow[]> {
  // Planned with its values, not kept: a plan made for any prefix guesses how many entries a range
  // holds, and for a narrow guess it gathers the range and sorts it, every entry of a prefix as
  // common as a single letter. Planned with the prefix, a wide range is walked in index order.
  return db.query<SearchRow>('search.candidates', searchStatement(terms));
}
