/**
 * The holder population of each closed day (docs/metrics.md, "Holder population"): distribution
 * figures over every holder at the day's end and holders per last-activity age bucket, in
 * chain_supply_daily. Each day is computed from the state at the previous day's end (holder_state)
 * and the day's address_daily rows: only the addresses that moved change, the sorted balances are
 * updated by one merge, and the figures are read off them. The balances of address_summary are
 * never read, so a batch that reaches past the days it closes changes nothing.
 */
import { randomUUID } from 'node:crypto';
import sql, { bulk, type Sql } from 'sql-template-tag';
import { SENTINELS, type ChainId } from '../../../chain/chains.ts';
import type { Db, Store } from '../../../store/store.ts';
import { addDays, eachDay, dayIndex, dayName } from '../../../time.ts';
import type { Chart } from '../../engine/rollup.ts';
import { addLimbs, compareLimbs, isPositive, limbsToBigInt, parseLimbs, SortedBalances, type Limbs } from './balances.ts';
import { AGE_BUCKETS, ageBucketOf, distributionInputs } from './population.ts';

/** Days of moves read per statement (their text is held in memory at once). */
const CHUNK_DAYS = 16;
/** A state at most this many days ahead is taken back (a reorg); further (a refresh) it is built afresh. */
const REWIND_DAYS = 31;

interface AgeCell {
  holders: number;
  balance: Limbs;
}

/**
 * Makes holder_state the state at the end of `day`, from address_daily (a reorg or refresh reopened
 * closed days, or a server crash emptied it); returns the state's new token.
 */
async function rebuildState(db: Db, chain: ChainId, day: string): Promise<string> {
  await db.query('rollups.charts.population.clear_state', sql`DELETE FROM holder_state WHERE chain = ${chain}`);
  await db.query('rollups.charts.population.clear_ages', sql`DELETE FROM holder_state_ages WHERE chain = ${chain}`);
  await db.query(
    'rollups.charts.population.rebuild_state',
    sql`INSERT INTO holder_state (chain, address, balance, last_day)
        SELECT ${chain}, address, sum(received - sent - fees), max(day)
        FROM address_daily
        WHERE chain = ${chain} AND day <= ${day}::date AND address <> ALL(${[...SENTINELS[chain]]}::text[])
          AND (tx_count > 0 OR received > 0 OR sent > 0 OR fees > 0)
          AND NOT EXISTS (SELECT 1 FROM opening_balances o WHERE o.chain = ${chain} AND o.address = address_daily.address AND o.amount IS NULL)
        GROUP BY address`,
  );
  await db.query(
    'rollups.charts.population.rebuild_ages',
    sql`INSERT INTO holder_state_ages (chain, last_day, holders, balance)
        SELECT ${chain}, last_day, count(*), sum(balance) FROM holder_state WHERE chain = ${chain} AND balance > 0 GROUP BY last_day`,
  );
  // Statistics of the rows just written, for the closes and rewinds that read them next.
  await db.query('rollups.charts.population.rebuild_analyze', sql`ANALYZE holder_state`);
  return setStateDay(db, chain, day);
}

/**
 * Takes holder_state back from the end of a later day to the end of `day`, when closed days after
 * it were reopened. Only the addresses active after `day` (in the blocks now indexed, or in the
 * state's own last-activity days) change: their balance then is the current balance less what
 * their later days moved, their last activity the latest active day up to `day`.
 */
async function rewindState(db: Db, chain: ChainId, day: string): Promise<void> {
  const sentinels = [...SENTINELS[chain]];
  await db.query('rollups.charts.population.rewind_drop', sql`DROP TABLE IF EXISTS population_rewind`);
  await db.query(
    'rollups.charts.population.rewind',
    // What the later days moved is summed in one pass over their rows: per address, the planner
    // read them through the day index, all of them for each address (minutes on M). The moved
    // and the state's later addresses meet in a full join, which no plan can make a nested loop:
    // with the statistics of a table just rebuilt or of a day just indexed (one row expected), a
    // left join to the sums scanned all of them for each address (166 s for a pos day on M).
    sql`CREATE TEMP TABLE population_rewind ON COMMIT DROP AS
        WITH later AS (
          SELECT address, sum(received - sent - fees) AS moved FROM address_daily
          WHERE chain = ${chain} AND day > ${day}::date AND address <> ALL(${sentinels}::text[])
          GROUP BY address),
        affected AS (
          SELECT coalesce(l.address, h.address) AS address, coalesce(l.moved, 0) AS moved
          FROM later l
          FULL JOIN (SELECT address FROM holder_state WHERE chain = ${chain} AND last_day > ${day}::date) h ON h.address = l.address)
        SELECT a.address,
               coalesce(s.balance, 0) - a.moved AS balance,
               (SELECT max(day) FROM address_daily d WHERE d.chain = ${chain} AND d.address = a.address AND d.day <= ${day}::date
                  AND (tx_count > 0 OR received > 0 OR sent > 0 OR fees > 0)) AS last_day
        FROM affected a
        LEFT JOIN address_summary s ON s.chain = ${chain} AND s.address = a.address
        WHERE NOT EXISTS (SELECT 1 FROM opening_balances o WHERE o.chain = ${chain} AND o.address = a.address AND o.amount IS NULL)`,
  );
  await db.query(
    'rollups.charts.population.rewind_remove',
    sql`DELETE FROM holder_state h USING population_rewind r WHERE h.chain = ${chain} AND h.address = r.address`,
  );
  await db.query(
    'rollups.charts.population.rewind_write',
    sql`INSERT INTO holder_state (chain, address, balance, last_day)
        SELECT ${chain}, address, balance, last_day FROM population_rewind WHERE last_day IS NOT NULL`,
  );
  await db.query('rollups.charts.population.rewind_ages_clear', sql`DELETE FROM holder_state_ages WHERE chain = ${chain}`);
  await db.query(
    'rollups.charts.population.rewind_ages',
    sql`INSERT INTO holder_state_ages (chain, last_day, holders, balance)
        SELECT ${chain}, last_day, count(*), sum(balance) FROM holder_state WHERE chain = ${chain} AND balance > 0 GROUP BY last_day`,
  );
  await setStateDay(db, chain, day);
}

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

/** The day holder_state_ages (logged) describes the end of, or null: the API's starting point. */
export async function stateDay(db: Db, chain: ChainId): Promise<string | null> {
  return (await stateMeta(db, chain))?.day ?? null;
}

/**
 * The sorted balances and age cells of the last close in this process (the indexer closes one day
 * after another), by the token of the state they match: reading a million balances back costs
 * seconds, the next day's moves a few milliseconds. Taken out while a close runs; a close whose
 * transaction does not commit leaves a token the store does not have, so the copy is not used.
 */
const memory = new Map<ChainId, { token: string; sorted: SortedBalances; ages: Map<number, AgeCell> }>();

/** The state's sorted balances and age cells, read back from holder_state and holder_state_ages. */
async function readState(db: Db, chain: ChainId): Promise<{ sorted: SortedBalances; ages: Map<number, AgeCell> }> {
  const balances = await db.query<{ b: string }>(
    'rollups.charts.population.balances',
    sql`SELECT balance::text AS b FROM holder_state WHERE chain = ${chain} AND balance > 0 ORDER BY balance`,
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
  memory.set(chain, { token, ...(await readState(store, chain)) });
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
    // A later state goes back by the days reopened; none (or an earlier one) is built afresh.
    if (meta && meta.day > before && meta.day <= addDays(before, REWIND_DAYS)) await rewindState(db, chain, before);
    else if (meta?.day !== before) await rebuildState(db, chain, before);
    ({ sorted, ages } = await readState(db, chain));
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

  // The addresses that moved: their rows of address_daily, less the sentinels and the addresses
  // whose balance is unknown (docs/indexing-pow.md: no holder of any size).
  const moved = (days: Sql) => sql`FROM address_daily
        WHERE chain = ${chain} AND ${days} AND address <> ALL(${[...SENTINELS[chain]]}::text[])
          AND (tx_count > 0 OR received > 0 OR sent > 0 OR fees > 0)
          AND NOT EXISTS (SELECT 1 FROM opening_balances o WHERE o.chain = ${chain} AND o.address = address_daily.address AND o.amount IS NULL)`;
  // Their state at the end of the last day closed (the balance plus what the days moved, the last
  // activity their last day with a move), written in one upsert that returns the state it replaced
  // (kept in prev_balance and prev_last_day: migration 0077; none for an address new to the
  // state). In key order: each probe of the key's index then continues where the last one ended,
  // faster than in the aggregate's hash order (bench/results/M_population-close.txt).
  const upsert = (rowsOf: Sql) => sql`INSERT INTO holder_state AS h (chain, address, balance, last_day) ${rowsOf}
          ON CONFLICT (chain, address) DO UPDATE SET prev_balance = h.balance, prev_last_day = h.last_day,
            balance = h.balance + excluded.balance, last_day = excluded.last_day`;

  if (fromDay === toDay) {
    // One day (a followed chain's midnight): each moved address's state before and after comes
    // back from the statement that writes it, with no table of the moves in between. An UPDATE of
    // the addresses the state holds (a key probe each) and an INSERT of the others: an upsert
    // probes each key twice and locks each row before updating it, a quarter slower when the pages
    // are in shared buffers (when they are not, reading them back costs both alike). The answer is
    // one text rather than a row per address, which the driver would build an object for
    // (bench/results/M_population-close.txt).
    const d = dayIndex(fromDay);
    const removed: Limbs[] = [];
    const added: Limbs[] = [];
    const [answer] = await db.query<{ moves: string | null }>(
      'rollups.charts.population.movers',
      sql`WITH moves AS MATERIALIZED (SELECT address, received - sent - fees AS net ${moved(sql`day = ${fromDay}::date`)} ORDER BY address),
          updated AS (
            UPDATE holder_state h SET prev_balance = h.balance, prev_last_day = h.last_day, balance = h.balance + m.net, last_day = ${fromDay}::date
            FROM moves m WHERE h.chain = ${chain} AND h.address = m.address
            RETURNING h.address, h.prev_balance, h.prev_last_day, h.balance),
          inserted AS (
            INSERT INTO holder_state (chain, address, balance, last_day)
            SELECT ${chain}, address, net, ${fromDay}::date FROM moves WHERE address NOT IN (SELECT address FROM updated)
            RETURNING balance)
          SELECT string_agg(m, ' ') AS moves FROM (
            SELECT prev_balance::text || ',' || prev_last_day::text || ',' || balance::text AS m FROM updated
            UNION ALL SELECT ',,' || balance::text FROM inserted) written`,
    );
    for (const m of answer?.moves?.split(' ') ?? []) {
      const [p, last, b] = m.split(',') as [string, string, string];
      move(p === '' ? undefined : { balance: parseLimbs(p), last: dayIndex(last) }, parseLimbs(b), d, removed, added);
    }
    closeDay(fromDay, d, removed, added);
  } else {
    // Several days: their moves, once, indexed by day (address_daily's own index is dropped in a bulk load).
    await db.query('rollups.charts.population.moves_drop', sql`DROP TABLE IF EXISTS population_moves`);
    await db.query(
      'rollups.charts.population.moves',
      sql`CREATE TEMP TABLE population_moves ON COMMIT DROP AS
          SELECT day, address, (received - sent - fees)::text AS net ${moved(sql`day BETWEEN ${fromDay}::date AND ${toDay}::date`)}`,
    );
    await db.query('rollups.charts.population.moves_index', sql`CREATE INDEX ON population_moves (day)`);
    // A new table has no statistics: the statements below plan their grouping of the day's moves with them.
    await db.query('rollups.charts.population.moves_analyze', sql`ANALYZE population_moves`);
    const state = new Map<string, { balance: Limbs; last: number }>();
    for (const r of await db.query<{ a: string; b: string; d: string }>(
      'rollups.charts.population.movers',
      sql`WITH written AS (${upsert(sql`SELECT ${chain}, address, sum(net::numeric), max(day) FROM population_moves GROUP BY address ORDER BY address`)}
            RETURNING address, prev_balance, prev_last_day)
          SELECT address AS a, prev_balance::text AS b, prev_last_day::text AS d FROM written WHERE prev_balance IS NOT NULL`,
    )) {
      state.set(r.a, { balance: parseLimbs(r.b), last: dayIndex(r.d) });
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

  // The state at the end of toDay: the moved addresses' rows are written (movers, above); the age cells.
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

export const supplyDistribution: Chart = {
  name: 'supply_distribution',
  part: 'supply',
  table: 'chain_supply_daily',
  close: closePopulation,
  warm: warmPopulation,
};
