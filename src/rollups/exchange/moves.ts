/**
 * The native value transfers ("moves") the exchange figures are made of, read from the raw rows,
 * and their classification against the venues' confirmed addresses (docs/metrics.md, "Exchanges").
 * A move is a top-level transfer of value > 0 to a recipient, not reverted and not a mint; each
 * recipient of a multi-recipient pow transfer is one move (`recipient_index`, -1 for the single one).
 */
import sql, { join, raw, type Sql } from 'sql-template-tag';
import type { ChainId } from '../../chain/chains.ts';
import type { Db } from '../../store/store.ts';

/** At most this many deposits and withdrawals are kept per UTC day (the largest-transfers limit). */
export const LARGEST_PER_DAY = 100;

/** Every move of the blocks whose height `height` accepts (a condition on the alias it is given). */
function movesWhere(chain: ChainId, height: (alias: 't' | 'r') => Sql): Sql {
  return sql`SELECT t.height, t.tx_index, -1 AS recipient_index, t.tx_hash, t.ts, t.from_addr, t.to_addr, t.value
             FROM transactions t
             WHERE t.chain = ${chain} AND ${height('t')}
               AND t.to_addr IS NOT NULL AND t.value > 0 AND t.status IS DISTINCT FROM 0 AND NOT t.mints
             UNION ALL
             SELECT r.height, r.tx_index, r.recipient_index, t.tx_hash, t.ts, t.from_addr, r.to_addr, r.amount
             FROM tx_recipients r
             JOIN transactions t ON t.chain = r.chain AND t.height = r.height AND t.tx_index = r.tx_index
             WHERE r.chain = ${chain} AND ${height('r')}
               AND r.amount > 0 AND t.to_addr IS NULL AND t.status IS DISTINCT FROM 0 AND NOT t.mints`;
}

/** Every move with a height in [from, to]: a primary-key range of the raw tables. */
export function movesInRange(chain: ChainId, from: number, to: number): Sql {
  return movesWhere(chain, (alias) => sql`${raw(alias)}.height BETWEEN ${from}::bigint AND ${to}::bigint`);
}

/**
 * Every move of the step's blocks, as the engine selects them (RollupStep.inBlocks: for a kept plan
 * the list of their heights; a range, guessed at thousands of moves by a kept plan, would be joined
 * by scanning every curated wallet).
 */
export function movesOfStep(chain: ChainId, inBlocks: (alias: string) => Sql): Sql {
  return movesWhere(chain, inBlocks);
}

/**
 * Every move up to height `maxHeight` that one of `addresses` (a relation with the column
 * `address`) sent or received, through the per-address indexes.
 */
export function movesTouching(chain: ChainId, addresses: Sql, maxHeight: number): Sql {
  const ok = sql`t.value > 0 AND t.status IS DISTINCT FROM 0 AND NOT t.mints AND t.height <= ${maxHeight}::bigint`;
  const okRecipient = sql`r.amount > 0 AND t.to_addr IS NULL AND t.status IS DISTINCT FROM 0 AND NOT t.mints AND r.height <= ${maxHeight}::bigint`;
  const touched = sql`(${addresses}) AS a(address)`;
  return sql`SELECT t.height, t.tx_index, -1 AS recipient_index, t.tx_hash, t.ts, t.from_addr, t.to_addr, t.value
             FROM ${touched} JOIN transactions t ON t.chain = ${chain} AND t.from_addr = a.address
             WHERE t.to_addr IS NOT NULL AND ${ok}
             UNION
             SELECT t.height, t.tx_index, -1, t.tx_hash, t.ts, t.from_addr, t.to_addr, t.value
             FROM ${touched} JOIN transactions t ON t.chain = ${chain} AND t.to_addr = a.address
             WHERE ${ok}
             UNION
             SELECT r.height, r.tx_index, r.recipient_index, t.tx_hash, t.ts, t.from_addr, r.to_addr, r.amount
             FROM ${touched}
             JOIN transactions t ON t.chain = ${chain} AND t.from_addr = a.address
             JOIN tx_recipients r ON r.chain = t.chain AND r.height = t.height AND r.tx_index = t.tx_index
             WHERE ${okRecipient}
             UNION
             SELECT r.height, r.tx_index, r.recipient_index, t.tx_hash, t.ts, t.from_addr, r.to_addr, r.amount
             FROM ${touched}
             JOIN tx_recipients r ON r.chain = ${chain} AND r.to_addr = a.address
             JOIN transactions t ON t.chain = r.chain AND t.height = r.height AND t.tx_index = r.tx_index
             WHERE ${okRecipient}`;
}

/**
 * Moves to classify and how their flows count: added (`sign` 1) or taken out (-1) in the present
 * state of the venues, or, with `beforeFlips`, in the state before the confirmations of the
 * flipped relays were turned; `reclassify` takes them out in the state before the flips and puts
 * them back in the present one (the moves of the flipped relays themselves).
 */
export type MovesPart = { moves: Sql; sign: 1 | -1; beforeFlips?: boolean } | { moves: Sql; reclassify: true };

/**
 * The moves of `parts` that are flows, with their day, venues and sign: a move with a confirmed
 * address of a venue on one side and not an address of the same venue on the other. `to_ex` is
 * the venue it deposits into, `from_ex` the one it withdraws from (both for a move between two
 * venues). `turning`: the relays whose confirmation the same statement turns (a relation of their
 * addresses; the statement's snapshot holds the flags before the turn), so that each part is
 * classified in the state it asks for, before the flips or after them.
 */
export function classifiedMoves(chain: ChainId, parts: MovesPart[], turning?: Sql): Sql {
  const confirmed = (wallet: 'fw' | 'tw') =>
    turning ? sql`${raw(wallet)}.confirmed <> (NOT s.before AND ${raw(wallet)}.address IN (${turning}))` : sql`${raw(wallet)}.confirmed`;
  const selects = parts.map((part) => {
    const states = 'reclassify' in part ? sql`VALUES (-1, true), (1, false)` : sql`VALUES (${part.sign}::int, ${Boolean(part.beforeFlips)}::boolean)`;
    return sql`SELECT m.height, m.tx_index, m.recipient_index, m.tx_hash, m.ts, m.from_addr, m.to_addr, m.value,
                      DATE '1970-01-01' + (m.ts / 86400)::int AS day,
                      fw.exchange AS from_ex, fw.role = 'deposit_relay' AS from_relay,
                      tw.exchange AS to_ex, tw.role = 'deposit_relay' AS to_relay, s.sign
               FROM (${part.moves}) m
               CROSS JOIN (${states}) AS s(sign, before)
               LEFT JOIN exchange_wallets fw ON fw.chain = ${chain} AND fw.address = m.from_addr AND ${confirmed('fw')}
               LEFT JOIN exchange_wallets tw ON tw.chain = ${chain} AND tw.address = m.to_addr AND ${confirmed('tw')}
               WHERE (fw.exchange IS NOT NULL OR tw.exchange IS NOT NULL) AND fw.exchange IS DISTINCT FROM tw.exchange`;
  });
  return join(selects, ' UNION ALL ');
}

/**
 * The CTEs `venue`, `address` and `largest` that add the flows of the classified
 * moves in the relation `classified` (classifiedMoves' columns), each with its sign, to the
 * per-venue days and to the per-address days of the side that is not an exchange address (the
 * sender of a deposit, the recipient of a withdrawal; a transfer between two venues has no such
 * side), and put the moves added that can be among a day's largest into exchange_largest (`rebuild`:
 * into a chain whose exchange tables were just cleared). `venue` and `address` return the rows
 * they leave at zero as `emptied`, `largest` the direction and day of the rows it put in.
 */
export function flowWrites(chain: ChainId, classified: Sql, options: { rebuild?: boolean } = {}): Sql {
  const signed = (column: string) => sql`sum(sign * ${raw(column)})`;
  return sql`venue AS (
          INSERT INTO exchange_flow_daily AS f (chain, exchange, day, deposits, withdrawals, deposit_txs, withdrawal_txs)
          SELECT ${chain}, exchange, day, ${signed('dep')}, ${signed('wd')}, ${signed('dc')}, ${signed('wc')}
          FROM (SELECT to_ex AS exchange, day, sign, value AS dep, 0 AS wd, 1 AS dc, 0 AS wc FROM ${classified} WHERE to_ex IS NOT NULL
                UNION ALL
                SELECT from_ex, day, sign, 0, value, 0, 1 FROM ${classified} WHERE from_ex IS NOT NULL) x
          GROUP BY exchange, day
          ON CONFLICT (chain, exchange, day) DO UPDATE SET deposits = f.deposits + excluded.deposits, withdrawals = f.withdrawals + excluded.withdrawals,
            deposit_txs = f.deposit_txs + excluded.deposit_txs, withdrawal_txs = f.withdrawal_txs + excluded.withdrawal_txs
          RETURNING day, deposit_txs = 0 AND withdrawal_txs = 0 AS emptied),
        address AS (
          INSERT INTO exchange_address_flow_daily AS f (chain, address, day, deposits, withdrawals, deposit_txs, withdrawal_txs)
          SELECT ${chain}, address, day, ${signed('dep')}, ${signed('wd')}, ${signed('dc')}, ${signed('wc')}
          FROM (SELECT from_addr AS address, day, sign, value AS dep, 0 AS wd, 1 AS dc, 0 AS wc FROM ${classified} WHERE to_ex IS NOT NULL AND from_ex IS NULL
                UNION ALL
                SELECT to_addr, day, sign, 0, value, 0, 1 FROM ${classified} WHERE from_ex IS NOT NULL AND to_ex IS NULL) x
          GROUP BY address, day
          ON CONFLICT (chain, address, day) DO UPDATE SET deposits = f.deposits + excluded.deposits, withdrawals = f.withdrawals + excluded.withdrawals,
            deposit_txs = f.deposit_txs + excluded.deposit_txs, withdrawal_txs = f.withdrawal_txs + excluded.withdrawal_txs
          RETURNING address, day, deposit_txs = 0 AND withdrawal_txs = 0 AS emptied)
        , largest AS (${largestInsert(chain, classified, { empty: options.rebuild })} RETURNING direction, day)`;
}

/** A row of flowOutcome: a flow row left at zero (`venue`: its day; `address`), or a day left overfull. */
export interface FlowOutcome {
  kind: string;
  address: string | null;
  day: string | null;
}

/** The SELECT after flowWrites that reports the rows it left at zero and the days it left overfull. */
export function flowOutcome(chain: ChainId): Sql {
  // Only a move taken out can leave a row at zero.
  return sql`SELECT DISTINCT 'venue' AS kind, NULL AS address, day::text AS day FROM venue WHERE emptied
             UNION ALL
             SELECT 'address', address, day::text FROM address WHERE emptied
             UNION ALL
             SELECT 'overfull', NULL, day FROM (${overfullDays(chain)}) o`;
}

/** Deletes the flow rows `rows` (flowOutcome's) report at zero; returns the days reported overfull. */
export async function settleFlowOutcome(db: Db, chain: ChainId, rows: FlowOutcome[]): Promise<string[]> {
  const emptiedDays = rows.filter((r) => r.kind === 'venue').map((r) => r.day);
  const emptied = rows.filter((r) => r.kind === 'address');
  if (emptiedDays.length > 0) {
    await db.query(
      'rollups.exchange.flows.prune',
      sql`DELETE FROM exchange_flow_daily WHERE chain = ${chain} AND day = ANY(${emptiedDays}::date[]) AND deposit_txs = 0 AND withdrawal_txs = 0`,
    );
  }
  if (emptied.length > 0) {
    await db.query(
      'rollups.exchange.address_flows.prune',
      sql`DELETE FROM exchange_address_flow_daily f USING unnest(${emptied.map((r) => r.address)}::text[], ${emptied.map((r) => r.day)}::date[]) AS k(address, day)
          WHERE f.chain = ${chain} AND f.address = k.address AND f.day = k.day AND f.deposit_txs = 0 AND f.withdrawal_txs = 0`,
    );
  }
  return [...new Set(rows.filter((r) => r.kind === 'overfull').map((r) => r.day!))];
}

/**
 * The deposits and withdrawals of `classified` (classifiedMoves' columns) that can be among their day's largest, into
 * exchange_largest: at most LARGEST_PER_DAY per day and direction, and on a day already holding
 * that many, only those not below its smallest kept row (an equal one may rank above it: trimLargest
 * decides). Into days known to be empty (cleared by a rebuild or a recomputation) the floor is not
 * looked for: per candidate it cost more than the rest of the statement.
 */
function largestInsert(chain: ChainId, classified: Sql, options: { empty?: boolean } = {}): Sql {
  const candidates = sql`SELECT day, 'deposit' AS direction, height, tx_index, recipient_index, value, tx_hash, ts, from_addr, to_addr, to_ex AS exchange, to_relay AS via_relay
                         FROM ${classified} WHERE to_ex IS NOT NULL AND sign > 0
                         UNION ALL
                         SELECT day, 'withdrawal', height, tx_index, recipient_index, value, tx_hash, ts, from_addr, to_addr, from_ex, from_relay
                         FROM ${classified} WHERE from_ex IS NOT NULL AND sign > 0`;
  // Each day and direction's smallest kept row, looked up once for all of its candidates (OFFSET 0:
  // merged into the join, the lookup would run once per candidate).
  const floors = sql`SELECT p.direction, p.day,
                            (SELECT k.value FROM exchange_largest k WHERE k.chain = ${chain} AND k.direction = p.direction AND k.day = p.day
                             ORDER BY k.value DESC, k.height, k.tx_index, k.recipient_index OFFSET ${LARGEST_PER_DAY - 1} LIMIT 1) AS floor
                     FROM (SELECT DISTINCT direction, day FROM (${candidates}) c) p
                     OFFSET 0`;
  return sql`INSERT INTO exchange_largest (chain, day, direction, height, tx_index, recipient_index, value, tx_hash, ts, from_addr, to_addr, exchange, via_relay)
             SELECT ${chain}, x.day, x.direction, height, tx_index, recipient_index, value, tx_hash, ts, from_addr, to_addr, exchange, via_relay
             FROM (
               SELECT m.*, row_number() OVER (PARTITION BY direction, day ORDER BY value DESC, height, tx_index, recipient_index) AS r
               FROM (${candidates}) m
             ) x
             ${options.empty ? sql`` : sql`JOIN (${floors}) f ON f.direction = x.direction AND f.day = x.day AND x.value >= coalesce(f.floor, 0)`}
             WHERE x.r <= ${LARGEST_PER_DAY}
             ON CONFLICT DO NOTHING`;
}

/**
 * Of the rows `largest` (largestInsert's CTE, returning their direction and day) inserted, the
 * days now holding more than LARGEST_PER_DAY in their direction.
 */
function overfullDays(chain: ChainId): Sql {
  return sql`SELECT DISTINCT day::text AS day FROM (
               SELECT l.direction, l.day FROM largest l GROUP BY l.direction, l.day
               HAVING count(*) + (SELECT count(*) FROM exchange_largest k WHERE k.chain = ${chain} AND k.direction = l.direction AND k.day = l.day) > ${LARGEST_PER_DAY}
             ) o`;
}

/** Keeps, on each of `days` and direction, the LARGEST_PER_DAY largest (the earliest on a tie). */
async function trimLargest(db: Db, chain: ChainId, days: string[]): Promise<void> {
  if (days.length === 0) return;
  // Both directions named, so that the days are found through the key (chain, direction, day, …).
  const which = sql`AND direction IN ('deposit', 'withdrawal') AND day = ANY(${days}::date[])`;
  await db.query(
    'rollups.exchange.largest.trim',
    sql`DELETE FROM exchange_largest l USING (
          SELECT direction, day, height, tx_index, recipient_index,
                 row_number() OVER (PARTITION BY direction, day ORDER BY value DESC, height, tx_index, recipient_index) AS rn
          FROM exchange_largest WHERE chain = ${chain} ${which}
        ) r
        WHERE l.chain = ${chain} AND l.direction = r.direction AND l.day = r.day AND l.height = r.height
          AND l.tx_index = r.tx_index AND l.recipient_index = r.recipient_index AND r.rn > ${LARGEST_PER_DAY}`,
  );
}

/**
 * After a step's flows: the days of moves taken out (`full`: a transfer held back there may now
 * belong) recomputed from the raw rows up to `maxHeight`, the other `overfull` days trimmed back
 * to LARGEST_PER_DAY.
 */
export async function settleLargest(db: Db, chain: ChainId, { full, overfull }: { full: string[]; overfull: string[] }, maxHeight: number): Promise<void> {
  await recomputeLargestDays(db, chain, full, maxHeight);
  await trimLargest(db, chain, overfull.filter((day) => !full.includes(day)));
}

/** Recomputes `days` of exchange_largest from the raw rows up to `maxHeight`, in the present state of the venues. */
async function recomputeLargestDays(db: Db, chain: ChainId, days: string[], maxHeight: number): Promise<void> {
  if (days.length === 0) return;
  await db.query('rollups.exchange.largest.clear_days', sql`DELETE FROM exchange_largest WHERE chain = ${chain} AND direction IN ('deposit', 'withdrawal') AND day = ANY(${days}::date[])`);
  for (const day of days) {
    const [range] = await db.query<{ lo: string | number | null; hi: string | number | null }>(
      'rollups.exchange.largest.day_heights',
      sql`SELECT min(height) AS lo, max(height) AS hi FROM blocks
          WHERE chain = ${chain} AND height <= ${maxHeight}::bigint
            AND ts >= (${day}::date - DATE '1970-01-01')::bigint * 86400 AND ts < (${day}::date - DATE '1970-01-01' + 1)::bigint * 86400`,
    );
    if (range?.lo == null || range.hi == null) continue;
    const classified = classifiedMoves(chain, [{ moves: movesInRange(chain, Number(range.lo), Number(range.hi)), sign: 1 }]);
    await db.query('rollups.exchange.largest.insert', sql`WITH classified AS MATERIALIZED (${classified}) ${largestInsert(chain, raw('classified'), { empty: true })}`);
  }
  await trimLargest(db, chain, days);
}
