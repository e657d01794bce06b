/**
 * The holder population of each closed day (docs/metrics.md, "Holder population"): distribution
 * figures over every holder at the day's end and holders per last-activity age bucket, in
 * chain_supply_daily. holder_state, kept with the blocks (holderState below), holds each address's
 * current state and its state before its last active day; a day's close reads from it the state
 * before and after the day of each address active that day: only those change, the sorted
 * balances are updated by one merge, and the figures are read off them. The balances of
 * address_summary are never read. */
import { randomUUID } from 'node:crypto';
import sql, { bulk, raw, type Sql } from 'sql-template-tag';
import { SENTINELS, type ChainId } from '../../../chain/chains.ts';
import type { Db, Store } from '../../../store/store.ts';
import { percentOf } from '../../../chain/amounts.ts';
import { addDays, dayIndex, dayName, dayNumber, dayStart, eachDay } from '../../../time.ts';
import { DAILY_DELTAS } from '../../addresses/address-activity.ts';
import { chartSeries, type ClosedChart, type Rollup } from '../../engine/rollup.ts';
import { addLimbs, compareLimbs, isPositive, limbsToBigInt, parseLimbs, SortedBalances, type Limbs } from '../../shared/balances.ts';
import { AGE_BUCKETS, ageBucketOf, ageBuckets, distributionInputs, figuresOf, type DistributionInputs } from './population.ts';
import { openDays, type Days } from '../days.ts';

/** Days of moves read per statement (their text is held in memory at once). */
const CHUNK_DAYS = 16;

interface AgeCell {
  holders: number;
  balance: Limbs;
}

/** A row (alias `row`, of address_daily or delta_daily) of an active day: it moved something. */
const activeRow = (row: string) => raw(`(${row}.tx_count > 0 OR ${row}.received > 0 OR ${row}.sent > 0 OR ${row}.fees > 0)`);

/**
 * A row (alias `row`) whose address can hold: not a sentinel, and not an address whose balance is
 * unknown (docs/indexing-pow.md: no holder of any size).
 */
const holderRow = (chain: ChainId, row: string) =>
  sql`${raw(row)}.address <> ALL(${[...SENTINELS[chain]]}::text[])
      AND NOT EXISTS (SELECT 1 FROM opening_balances o WHERE o.chain = ${chain} AND o.address = ${raw(row)}.address AND o.amount IS NULL)`;

/** The rows of address_daily (alias `a`) that move a holder: an active day of an address that can hold. */
function movedRows(chain: ChainId, days: Sql): Sql {
  return sql`FROM address_daily a WHERE a.chain = ${chain} AND ${days} AND ${activeRow('a')} AND ${holderRow(chain, 'a')}`;
}

/** The last active day of `address` before `day` (both SQL expressions). */
const lastActiveBefore = (chain: ChainId, address: Sql, day: Sql) =>
  sql`(SELECT max(p.day) FROM address_daily p WHERE p.chain = ${chain} AND p.address = ${address} AND p.day < ${day} AND ${activeRow('p')})`;

/**
 * Each row of holder_state as at the end of `day` (address, balance, last_day): its own when it did
 * not move after `day`; else its balance less what it moved since, and its last active day up to
 * `day` (none: it had none then). Columns a reader leaves unused are not computed.
 */
const stateAt = (chain: ChainId, day: string) =>
  sql`SELECT h.address, h.balance - coalesce(l.moved, 0) AS balance,
             CASE WHEN l.address IS NULL THEN h.last_day ELSE ${lastActiveBefore(chain, sql`h.address`, sql`${addDays(day, 1)}::date`)} END AS last_day
      FROM holder_state h
      LEFT JOIN (SELECT a.address, sum(a.received - a.sent - a.fees) AS moved ${movedRows(chain, sql`a.day > ${day}::date`)} GROUP BY a.address) l
        ON l.address = h.address
      WHERE h.chain = ${chain}`;

/** Whether holder_state holds rows of the chain: the rollup keeps it only then. */
const stateKept = (chain: ChainId) => sql`EXISTS (SELECT 1 FROM holder_state WHERE chain = ${chain})`;

/** holder_state_ages as the state at the end of `day`, and `day` the state's: returns the state's new token. */
async function moveStateDay(db: Db, chain: ChainId, day: string): Promise<string> {
  await db.query('rollups.charts.population.ages_clear', sql`DELETE FROM holder_state_ages WHERE chain = ${chain}`);
  await db.query(
    'rollups.charts.population.ages_at',
    sql`INSERT INTO holder_state_ages (chain, last_day, holders, balance)
        SELECT ${chain}, last_day, count(*), sum(balance) FROM (${stateAt(chain, day)}) s
        WHERE balance > 0 AND last_day IS NOT NULL
        GROUP BY last_day`,
  );
  return setStateDay(db, chain, day);
}

/**
 * Builds holder_state from address_daily (the first close, a refresh, or a server crash emptied
 * it), its age cells as at the end of `day`; returns the state's new token.
 */
async function rebuildState(db: Db, chain: ChainId, day: string): Promise<string> {
  await db.query('rollups.charts.population.clear_state', sql`DELETE FROM holder_state WHERE chain = ${chain}`);
  await db.query(
    'rollups.charts.population.rebuild_state',
    sql`INSERT INTO holder_state (chain, address, balance, last_day, prev_balance, prev_last_day)
        SELECT ${chain}, address, sum(net), max(day), sum(net) FILTER (WHERE day < last), max(day) FILTER (WHERE day < last)
        FROM (SELECT a.address, a.day, a.received - a.sent - a.fees AS net, max(a.day) OVER (PARTITION BY a.address) AS last
              ${movedRows(chain, sql`true`)}) d
        GROUP BY address`,
  );
  // Statistics of the rows just written, for the closes and rewinds that read them next.
  await db.query('rollups.charts.population.rebuild_analyze', sql`ANALYZE holder_state`);
  return moveStateDay(db, chain, day);
}

/**
 * holder_state, kept with the blocks: each address's current balance and last active day, and its
 * state at the end of the day before that last active day (prev_balance, prev_last_day; none when
 * it has no earlier active day). Both are functions of address_daily alone, so a batch changes the
 * rows of its own addresses only and a day's close reads, never writes, the state: the close of a
 * followed chain's midnight reads the moved addresses' state before the day in prev_* (their last
 * active day is the day closed). The table is kept only while it holds rows of the chain: empty
 * (before the first close, after a refresh, or after a server crash: it is unlogged), the next
 * close builds it from address_daily (rebuildState).
 */
export const holderState: Rollup = {
  name: 'holder_state',
  part: 'supply',
  tables: ['holder_state'],
  // The step's days of address_daily's deltas; on a revert, address_daily as the revert left it.
  reads: [DAILY_DELTAS],
  after: ['address_daily'],
  async apply(db, { chain, partial, rowsOf }) {
    if (partial) return; // a refresh of a range empties the state (clearTouched)
    await db.query(
      'rollups.holder_state.apply',
      sql`WITH days AS (
            SELECT address, day, received - sent - fees AS net, max(day) OVER (PARTITION BY address) AS last
            FROM ${rowsOf(DAILY_DELTAS)} d
            WHERE ${stateKept(chain)} AND ${activeRow('d')} AND ${holderRow(chain, 'd')}),
          batch AS (
            SELECT address, sum(net) AS net, max(day) AS last, sum(net) FILTER (WHERE day < last) AS net_before, max(day) FILTER (WHERE day < last) AS day_before
            FROM days GROUP BY address ORDER BY address),
          updated AS (
            -- The state before the last active day: a batch whose last day is later than the
            -- address's has it as the row was plus the batch's earlier days; one on the same day
            -- adds its earlier days to it; one all before it (a block timestamped earlier) adds all.
            UPDATE holder_state h SET
              prev_balance = CASE WHEN b.last > h.last_day THEN h.balance + coalesce(b.net_before, 0)
                                  WHEN b.last = h.last_day THEN CASE WHEN b.day_before IS NULL THEN h.prev_balance ELSE coalesce(h.prev_balance, 0) + b.net_before END
                                  ELSE coalesce(h.prev_balance, 0) + b.net END,
              prev_last_day = CASE WHEN b.last > h.last_day THEN greatest(h.last_day, b.day_before)
                                   WHEN b.last = h.last_day THEN greatest(h.prev_last_day, b.day_before)
                                   ELSE greatest(h.prev_last_day, b.last) END,
              balance = h.balance + b.net, last_day = greatest(h.last_day, b.last)
            FROM batch b WHERE h.chain = ${chain} AND h.address = b.address
            RETURNING h.address)
          INSERT INTO holder_state (chain, address, balance, last_day, prev_balance, prev_last_day)
          SELECT ${chain}, address, net, last, net_before, day_before FROM batch WHERE address NOT IN (SELECT address FROM updated)`,
    );
  },
  // After address_daily's revert: each reverted address's row from its remaining days (its last two
  // active days), or none when it has none left.
  async repair(db, { chain, rowsOf }) {
    await db.query(
      'rollups.holder_state.repair',
      sql`WITH reverted AS (
            SELECT d.address, sum(d.received - d.sent - d.fees) AS net FROM ${rowsOf(DAILY_DELTAS)} d
            WHERE ${stateKept(chain)} AND ${holderRow(chain, 'd')}
            GROUP BY d.address),
          state AS (
            SELECT r.address, r.net, l.day AS last, l.net AS last_net, ${lastActiveBefore(chain, sql`r.address`, sql`l.day`)} AS day_before
            FROM reverted r
            LEFT JOIN LATERAL (
              SELECT a.day, a.received - a.sent - a.fees AS net FROM address_daily a
              WHERE a.chain = ${chain} AND a.address = r.address AND ${activeRow('a')}
              ORDER BY a.day DESC LIMIT 1) l ON true),
          gone AS (DELETE FROM holder_state h USING state s WHERE h.chain = ${chain} AND h.address = s.address AND s.last IS NULL)
          UPDATE holder_state h SET balance = h.balance - s.net, last_day = s.last,
            prev_balance = CASE WHEN s.day_before IS NULL THEN NULL ELSE h.balance - s.net - s.last_net END, prev_last_day = s.day_before
          FROM state s WHERE h.chain = ${chain} AND h.address = s.address AND s.last IS NOT NULL`,
    );
  },
  async clearTouched(db, chain) {
    await db.query('rollups.holder_state.clear', sql`DELETE FROM holder_state WHERE chain = ${chain}`);
  },
};

async function setStateDay(db: Db, chain: ChainId, day: string): Promise<string> {
  const token = randomUUID();
  await db.query(
    'rollups.charts.population.meta',
    sql`INSERT INTO holder_state_meta (chain, day, token) VALUES (${chain}, ${day}::date, ${token})
        ON CONFLICT (chain) DO UPDATE SET day = excluded.day, token = excluded.token`,
  );
  return token;
}

async function stateMeta(db: Db, chain: ChainId): Promise<{ day: string; token: string; rows: boolean } | null> {
  const [row] = await db.query<{ day: string; token: string; rows: boolean }>(
    'rollups.charts.population.state_day',
    sql`SELECT day::text AS day, token, EXISTS (SELECT 1 FROM holder_state h WHERE h.chain = m.chain) AS rows FROM holder_state_meta m WHERE chain = ${chain}`,
  );
  return row ?? null;
}

/**
 * The state the close may start from: none when holder_state has no row of the chain while its
 * day is recorded. holder_state is unlogged (migration 0079), and a server crash empties it; a
 * state without any address is rebuilt as cheaply.
 */
async function startingState(db: Db, chain: ChainId): Promise<{ day: string; token: string } | null> {
  const meta = await stateMeta(db, chain);
  return meta?.rows ? meta : null;
}

/**
 * The day holder_state_ages (logged) describes the end of, or null: the API's starting point. It
 * reads holder_state_meta alone: a query that names holder_state (unlogged) fails on a streaming
 * replica, where the API may run.
 */
export async function stateDay(db: Db, chain: ChainId): Promise<string | null> {
  const [row] = await db.query<{ day: string }>('rollups.charts.population.day', sql`SELECT day::text AS day FROM holder_state_meta WHERE chain = ${chain}`);
  return row?.day ?? null;
}

/**
 * The sorted balances and age cells of the last close in this process (the indexer closes one day
 * after another), by the token of the state they match: reading a million balances back costs
 * seconds, the next day's moves a few milliseconds. Taken out while a close runs; a close whose
 * transaction does not commit leaves a token the store does not have, so the copy is not used.
 */
const memory = new Map<ChainId, { token: string; sorted: SortedBalances; ages: Map<number, AgeCell> }>();

/** The sorted balances at the end of the state's `day` (holder_state less what moved after it), and its age cells. */
async function readState(db: Db, chain: ChainId, day: string): Promise<{ sorted: SortedBalances; ages: Map<number, AgeCell> }> {
  const balances = await db.query<{ b: string }>(
    'rollups.charts.population.balances',
    sql`SELECT balance::text AS b FROM (${stateAt(chain, day)}) s WHERE balance > 0 ORDER BY balance`,
  );
  const ages = new Map<number, AgeCell>();
  for (const r of await db.query<{ d: string; h: number; b: string }>(
    'rollups.charts.population.ages',
    sql`SELECT last_day::text AS d, holders AS h, balance::text AS b FROM holder_state_ages WHERE chain = ${chain}`,
  )) {
    ages.set(dayIndex(r.d), { holders: Number(r.h), balance: parseLimbs(r.b) });
  }
  return { sorted: SortedBalances.of(balances.map((r) => parseLimbs(r.b))), ages };
}

/**
 * Before a run follows the chain: the state's balances read into the process now, unless they are
 * there already, so that the first midnight's close is warm too (reading them back is most of a
 * cold close). A state whose rows a server crash took (holder_state is unlogged) is rebuilt at its
 * day first, here rather than inside the first midnight's block.
 */
async function warmPopulation(store: Store, chain: ChainId): Promise<void> {
  const meta = await stateMeta(store, chain);
  if (!meta || (meta.rows && memory.get(chain)?.token === meta.token)) return;
  const token = meta.rows ? meta.token : await store.transaction('rollups.charts.population.restore', (tx) => rebuildState(tx, chain, meta.day));
  memory.set(chain, { token, ...(await readState(store, chain, meta.day)) });
}

async function closePopulation(db: Db, chain: ChainId, fromDay: string, toDay: string): Promise<void> {
  const before = addDays(fromDay, -1);
  const meta = await startingState(db, chain);
  const kept = memory.get(chain);
  memory.delete(chain);
  let sorted: SortedBalances;
  let ages: Map<number, AgeCell>;
  if (meta?.day === before && kept?.token === meta.token) {
    ({ sorted, ages } = kept);
  } else {
    // A state of another day (a reorg reopened closed days) only moves its age cells: holder_state
    // is current whatever the day. None (the first close, a refresh, a crash) is built.
    if (!meta) await rebuildState(db, chain, before);
    else if (meta.day !== before) await moveStateDay(db, chain, before);
    ({ sorted, ages } = await readState(db, chain, before));
  }

  const rows: unknown[][] = [];
  const zero: Limbs = [0, 0, 0, 0];
  /** One moved address on day `d`: from the state it had (none: it held nothing) to `balance`. */
  const move = (old: { balance: Limbs; last: number } | undefined, balance: Limbs, d: number, removed: Limbs[], added: Limbs[]) => {
    if (old && isPositive(old.balance)) {
      removed.push(old.balance);
      const cell = ages.get(old.last)!;
      cell.holders--;
      cell.balance = addLimbs(cell.balance, [-old.balance[0], -old.balance[1], -old.balance[2], -old.balance[3]]);
      if (cell.holders === 0) ages.delete(old.last);
    }
    if (isPositive(balance)) {
      added.push(balance);
      const cell = ages.get(d) ?? { holders: 0, balance: zero };
      ages.set(d, { holders: cell.holders + 1, balance: addLimbs(cell.balance, balance) });
    }
  };
  /** The day's figures, once its moves are in: the sorted balances updated by one merge. */
  const closeDay = (day: string, d: number, removed: Limbs[], added: Limbs[]) => {
    removed.sort(compareLimbs);
    added.sort(compareLimbs);
    sorted = sorted.update(removed, added);
    const f = distributionInputs(sorted);
    const ageHolders = AGE_BUCKETS.map(() => 0);
    const ageBalance = AGE_BUCKETS.map(() => [0, 0, 0, 0] as Limbs);
    for (const [last, cell] of ages) {
      const b = ageBucketOf(d - last);
      ageHolders[b]! += cell.holders;
      ageBalance[b] = addLimbs(ageBalance[b]!, cell.balance);
    }
    rows.push([
      chain, day, f.holders, f.supply.toString(), f.top10.toString(), f.top100.toString(), f.pairDiff.toString(), f.sumSq.toString(),
      f.nakamoto, f.palmaTop.toString(), f.palmaBottom.toString(),
      `{${ageHolders.join(',')}}`, `{${ageBalance.map((b) => limbsToBigInt(b).toString()).join(',')}}`,
    ]);
  };

  if (fromDay === toDay) {
    // One day (a followed chain's midnight): the addresses active that day, their state before it
    // and after it read from holder_state, which the day's blocks kept current. One that did not
    // move after the day has it as it is, found by its last active day (before the day: prev_*);
    // one that did (the next day's first blocks came first: a few) less what it moved since, with
    // its last active day before the day looked up. The day's count of moved addresses in
    // address_daily checks that every one of them was found. The answer is one text rather than a
    // row per address, which the driver would build an object for.
    const d = dayIndex(fromDay);
    const removed: Limbs[] = [];
    const added: Limbs[] = [];
    const [answer] = await db.query<{ moves: string | null; found: number; moved: number }>(
      'rollups.charts.population.movers',
      // The later movers' rows of the day are looked up by key: planned with a new day's statistics
      // (a few rows), a join would scan the whole day.
      sql`WITH later AS (
            SELECT l.address, l.moved,
                   (SELECT a.received - a.sent - a.fees FROM address_daily a
                    WHERE a.chain = ${chain} AND a.address = l.address AND a.day = ${fromDay}::date AND ${activeRow('a')}) AS net
            FROM (SELECT a.address, sum(a.received - a.sent - a.fees) AS moved ${movedRows(chain, sql`a.day > ${fromDay}::date`)} GROUP BY a.address) l),
          states AS (
            SELECT h.prev_last_day AS d, h.prev_balance AS p, h.balance AS b
            FROM holder_state h WHERE h.chain = ${chain} AND h.last_day = ${fromDay}::date
            UNION ALL
            SELECT ${lastActiveBefore(chain, sql`l.address`, sql`${fromDay}::date`)}, h.balance - l.moved - l.net, h.balance - l.moved
            FROM later l JOIN holder_state h ON h.chain = ${chain} AND h.address = l.address
            WHERE l.net IS NOT NULL)
          SELECT string_agg(coalesce(d::text, '') || ',' || coalesce(p::text, '') || ',' || b::text, ' ') AS moves, count(*)::int AS found,
                 (SELECT count(*)::int ${movedRows(chain, sql`a.day = ${fromDay}::date`)}) AS moved
          FROM states`,
    );
    if (answer && answer.found !== answer.moved) {
      throw new Error(`holder population of ${chain}: ${answer.moved - answer.found} of the ${answer.moved} addresses active on ${fromDay} have no state`);
    }
    for (const m of answer?.moves?.split(' ') ?? []) {
      const [last, p, b] = m.split(',') as [string, string, string];
      move(last === '' ? undefined : { balance: parseLimbs(p), last: dayIndex(last) }, parseLimbs(b), d, removed, added);
    }
    closeDay(fromDay, d, removed, added);
  } else {
    // Several days: their moves, once, indexed by day (address_daily's own index is dropped in a bulk load).
    await db.query('rollups.charts.population.moves_drop', sql`DROP TABLE IF EXISTS population_moves`);
    await db.query(
      'rollups.charts.population.moves',
      sql`CREATE TEMP TABLE population_moves ON COMMIT DROP AS
          SELECT a.day, a.address, (a.received - a.sent - a.fees)::text AS net ${movedRows(chain, sql`a.day BETWEEN ${fromDay}::date AND ${toDay}::date`)}`,
    );
    await db.query('rollups.charts.population.moves_index', sql`CREATE INDEX ON population_moves (day)`);
    // A new table has no statistics: the statements below plan their grouping of the day's moves with them.
    await db.query('rollups.charts.population.moves_analyze', sql`ANALYZE population_moves`);
    // The moved addresses' state at the end of the day before: their balance now less what they
    // moved since, their last active day before it (none: no state then). A chain with no day
    // before (a first close, a refresh) has none to look up.
    const state = new Map<string, { balance: Limbs; last: number }>();
    const [earlier] = await db.query<{ yes: boolean }>(
      'rollups.charts.population.earlier',
      sql`SELECT EXISTS (SELECT 1 ${movedRows(chain, sql`a.day < ${fromDay}::date`)}) AS yes`,
    );
    if (earlier?.yes) {
      for (const r of await db.query<{ a: string; b: string; d: string }>(
        'rollups.charts.population.movers',
        sql`WITH since AS (
              SELECT a.address, sum(a.received - a.sent - a.fees) AS moved ${movedRows(chain, sql`a.day >= ${fromDay}::date`)}
              GROUP BY a.address HAVING bool_or(a.day <= ${toDay}::date))
            SELECT * FROM (
              SELECT s.address AS a, (h.balance - s.moved)::text AS b, ${lastActiveBefore(chain, sql`s.address`, sql`${fromDay}::date`)}::text AS d
              FROM since s JOIN holder_state h ON h.chain = ${chain} AND h.address = s.address) old
            WHERE d IS NOT NULL`,
      )) {
        state.set(r.a, { balance: parseLimbs(r.b), last: dayIndex(r.d) });
      }
    }
    for (let chunk = fromDay; chunk <= toDay; chunk = addDays(chunk, CHUNK_DAYS)) {
      const chunkEnd = addDays(chunk, CHUNK_DAYS - 1) < toDay ? addDays(chunk, CHUNK_DAYS - 1) : toDay;
      const moves = new Map<string, string>();
      for (const r of await db.query<{ d: string; m: string }>(
        'rollups.charts.population.day_moves',
        sql`SELECT day::text AS d, string_agg(address || ' ' || net, ' ') AS m FROM population_moves
            WHERE day BETWEEN ${chunk}::date AND ${chunkEnd}::date GROUP BY day`,
      )) {
        moves.set(r.d, r.m);
      }
      for (const day of eachDay(chunk, chunkEnd)) {
        const d = dayIndex(day);
        const removed: Limbs[] = [];
        const added: Limbs[] = [];
        const parts = moves.get(day)?.split(' ') ?? [];
        for (let i = 0; i < parts.length; i += 2) {
          const address = parts[i]!;
          const old = state.get(address);
          const balance = addLimbs(old?.balance ?? zero, parseLimbs(parts[i + 1]!));
          move(old, balance, d, removed, added);
          state.set(address, { balance, last: d });
        }
        closeDay(day, d, removed, added);
      }
    }
  }

  for (let i = 0; i < rows.length; i += 1000) {
    await db.query(
      'rollups.charts.population.write',
      sql`INSERT INTO chain_supply_daily (chain, day, holders, supply, top10, top100, pair_diff, sum_sq, nakamoto, palma_top, palma_bottom, age_holders, age_balance)
          SELECT chain, day::date, holders::int, supply::numeric, top10::numeric, top100::numeric, pair_diff::numeric, sum_sq::numeric, nakamoto::int,
                 palma_top::numeric, palma_bottom::numeric, age_holders::int[], age_balance::numeric[]
          FROM (VALUES ${bulk(rows.slice(i, i + 1000))}) AS v(chain, day, holders, supply, top10, top100, pair_diff, sum_sq, nakamoto, palma_top, palma_bottom, age_holders, age_balance)
          ON CONFLICT (chain, day) DO UPDATE SET holders = excluded.holders, supply = excluded.supply, top10 = excluded.top10,
            top100 = excluded.top100, pair_diff = excluded.pair_diff, sum_sq = excluded.sum_sq, nakamoto = excluded.nakamoto,
            palma_top = excluded.palma_top, palma_bottom = excluded.palma_bottom, age_holders = excluded.age_holders, age_balance = excluded.age_balance`,
    );
  }

  // The state's day is toDay now: its age cells (holder_state itself is current).
  await db.query('rollups.charts.population.ages_clear', sql`DELETE FROM holder_state_ages WHERE chain = ${chain}`);
  const cells = [...ages.entries()];
  if (cells.length > 0) {
    await db.query(
      'rollups.charts.population.ages_write',
      sql`INSERT INTO holder_state_ages (chain, last_day, holders, balance)
          SELECT ${chain}, d, h, b FROM unnest(${cells.map(([d]) => dayName(d))}::date[], ${cells.map(([, c]) => c.holders)}::int[],
                                              ${cells.map(([, c]) => limbsToBigInt(c.balance).toString())}::numeric[]) AS u(d, h, b)`,
    );
  }
  memory.set(chain, { token: await setStateDay(db, chain, toDay), sorted, ages });
}

/** A closed day's row of chain_supply_daily: the distribution's exact inputs and the holders and balances per age bucket. */
export interface SupplyDay {
  day: string;
  inputs: DistributionInputs;
  ages: { holders: number; balance: bigint }[];
}

/**
 * The closed days of `range` (charts/days.ts) from chain_supply_daily, by day, and the open days
 * after them. The figures of an open day need every holder's balance as it stands, which the API
 * keeps for the spec's cache time: it computes the latest day's (the population is known only as
 * it is now).
 */
async function supplyDays(db: Db, chain: ChainId, range: Days): Promise<{ closed: Map<string, SupplyDay>; open: Days | null }> {
  const rows = await db.query<{ day: string; holders: number; supply: string; top10: string; top100: string; pair_diff: string; sum_sq: string; nakamoto: number; palma_top: string; palma_bottom: string; h: number[]; b: string[] }>(
    'charts.supply_distribution.closed',
    sql`SELECT day::text AS day, holders, supply::text, top10::text, top100::text, pair_diff::text, sum_sq::text, nakamoto,
               palma_top::text, palma_bottom::text, age_holders AS h, age_balance::text[] AS b
        FROM chain_supply_daily WHERE chain = ${chain} AND day BETWEEN ${range.from}::date AND ${range.to}::date ORDER BY day`,
    { reusePlan: true }, // a primary-key range
  );
  const closed = new Map(rows.map((r) => [r.day, {
    day: r.day,
    inputs: {
      holders: Number(r.holders), supply: BigInt(r.supply), top10: BigInt(r.top10), top100: BigInt(r.top100), pairDiff: BigInt(r.pair_diff),
      sumSq: BigInt(r.sum_sq), nakamoto: Number(r.nakamoto), palmaTop: BigInt(r.palma_top), palmaBottom: BigInt(r.palma_bottom),
    },
    ages: r.h.map((h, i) => ({ holders: Number(h), balance: BigInt(r.b[i]!) })),
  }]));
  return { closed, open: openDays(range, rows.at(-1)?.day ?? null) };
}

type Figures = { day: string } & ReturnType<typeof figuresOf>;
type AgeCells = { day: string; cells: { holders: number; balance: bigint }[] };

export const supplyDistribution: ClosedChart = {
  name: 'supply_distribution',
  part: 'supply',
  table: 'chain_supply_daily',
  close: closePopulation,
  warm: warmPopulation,
  series: [
    chartSeries<Figures>({
      path: '/analytics/supply/distribution-timeline',
      operationId: 'getSupplyDistributionTimeline',
      summary: 'Top-10 and top-100 shares, Gini, Nakamoto, holders, HHI and Palma ratio per day (cached 10 minutes)',
      window: '90d',
      fields: {
        top10_pct: { kind: 'number' },
        top100_pct: { kind: 'number' },
        gini: { kind: 'number' },
        nakamoto: { kind: 'number' },
        holders: { kind: 'number' },
        hhi: { kind: 'number', description: 'Σ (balance / supply)², 0 to 1.' },
        palma: { kind: 'number', description: 'Share of the richest 10% of holders ÷ share of the poorest 40%.' },
      },
      itemsDescription: 'One item per UTC day, oldest first; the latest block’s day as it stands.',
      envelope: { count: true, chain: true, network: true, days: true },
      cacheSeconds: 600,
      // The latest day as it stands, from every holder's balance now.
      read: async ({ db, chain, range, live }) => {
        const { closed, open } = await supplyDays(db, chain, range);
        const byDay = new Map<string, Figures>([...closed].map(([day, r]) => [day, { day, ...figuresOf(r.inputs) }]));
        if (open) byDay.set(open.to, { day: open.to, ...figuresOf(distributionInputs(await live.holderBalances())) });
        return byDay;
      },
      missingDay: 'zero',
    }),
    chartSeries<AgeCells, { day: string; bucket: string; balance_pct: number; holders: number }>({
      path: '/analytics/supply/age-daily',
      operationId: 'getSupplyAgeDaily',
      summary: 'Holders and supply share by time since their last activity, per day',
      window: '365d',
      fields: {
        bucket: { kind: 'string', description: 'Days since the last activity: <1m, 1m-1y, 1-2y, 2-5y, >5y.' },
        balance_pct: { kind: 'number', description: 'The bucket’s balances as a percentage of all holders’ at the day’s end.' },
        holders: { kind: 'integer' },
      },
      itemsDescription: 'Five items per UTC day (one per bucket), oldest day first; the latest block’s day as it stands.',
      envelope: { count: true, chain: true, network: true, window_days: true, buckets: { kind: 'list', of: { kind: 'string' } } },
      // The latest day as it stands: the holders per last-activity day now, by age on that day.
      read: async ({ db, chain, range, live }) => {
        const [{ closed, open }, now] = await Promise.all([supplyDays(db, chain, range), live.holdersByLastDay()]);
        const byDay = new Map<string, AgeCells>([...closed].map(([day, r]) => [day, { day, cells: r.ages }]));
        if (open) byDay.set(open.to, { day: open.to, cells: ageBuckets(now, dayNumber(dayStart(open.to))) });
        return byDay;
      },
      missingDay: { zero: (day) => ({ day, cells: AGE_BUCKETS.map(() => ({ holders: 0, balance: 0n })) }) },
      items: (rows) =>
        rows.flatMap(({ day, cells }) => {
          const supply = cells.reduce((s, c) => s + c.balance, 0n);
          return cells.map((c, b) => ({ day, bucket: AGE_BUCKETS[b]!.label, balance_pct: percentOf(c.balance, supply), holders: c.holders }));
        }),
      extra: () => ({ buckets: AGE_BUCKETS.map((b) => b.label) }),
    }),
  ],
};
