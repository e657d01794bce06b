/**
 * token_stats and token_daily: per token, its holders, transfers, supply and first block; per token
 * and day, its transfers and the holders it gained less those it lost. The token routes read them
 * (docs/api-tokens.md): a token's holder count and the list's orders without counting balances, and
 * its daily series from its own days.
 *
 * A holder is an address with a positive balance in token_balances (sentinels hold nothing: they
 * mint and burn). Holder transitions come from each address's running balance through the step's
 * days, starting from token_balances as the token_balances rollup leaves it (this rollup follows
 * it): after an apply the balance includes the step, so the start is the balance less the step's
 * net; after a revert's subtraction it is the balance itself. Only transactions that did not revert
 * move tokens, as in token_balances.
 */
import sql, { type Sql } from 'sql-template-tag';
import { SENTINELS, isSentinel, type ChainId } from '../../chain/chains.ts';
import type { CopyValue } from '../../store/copy.ts';
import type { Db } from '../../store/store.ts';
import { dayName } from '../../time.ts';
import { rowsOf } from '../engine/delta-tables.ts';
import type { DeltaReducer } from '../engine/reducer.ts';
import type { DeltaTable, Rollup, RollupStep } from '../engine/rollup.ts';

interface TokenFigures {
  transfers: number;
  /** Minted (from a sentinel) less burned (to a sentinel). */
  supply: bigint;
  firstHeight: number;
}

/** The step's token movements: per token, per token and day (transfers), per holder, token and day (net amount). */
interface TokenActivity {
  chain: ChainId;
  byToken: Map<string, TokenFigures>;
  byTokenDay: Map<string, Map<number, number>>;
  byHolder: Map<string, Map<string, Map<number, bigint>>>;
  entries: number;
}

function inner<K, V>(map: Map<string, Map<K, V>>, key: string): Map<K, V> {
  let found = map.get(key);
  if (!found) map.set(key, (found = new Map()));
  return found;
}

const tokenActivity: DeltaReducer<TokenActivity> = {
  start: (scope) => ({ chain: scope.chain, byToken: new Map(), byTokenDay: new Map(), byHolder: new Map(), entries: 0 }),
  tx(acc, { tx, height, day, ok }) {
    if (!ok) return;
    const { chain } = acc;
    for (const t of tx.tokenTransfers) {
      let token = acc.byToken.get(t.contract);
      if (!token) {
        acc.byToken.set(t.contract, (token = { transfers: 0, supply: 0n, firstHeight: height }));
        acc.entries++;
      }
      token.transfers++;
      if (height < token.firstHeight) token.firstHeight = height;
      const days = inner(acc.byTokenDay, t.contract);
      days.set(day, (days.get(day) ?? 0) + 1);
      for (const [holder, delta] of [[t.to, t.amount], [t.from, -t.amount]] as const) {
        if (isSentinel(chain, holder)) {
          token.supply -= delta;
          continue;
        }
        const net = inner(inner(acc.byHolder, holder), t.contract);
        if (!net.has(day)) acc.entries++;
        net.set(day, (net.get(day) ?? 0n) + delta);
      }
    }
  },
  size: (acc) => acc.entries,
};

export const TOKEN_DELTAS: DeltaTable<TokenActivity> = {
  name: 'delta_token_stats',
  columns: 'contract text, transfers int, supply numeric, first_height bigint',
  rows: (acc) => rowsOf(acc.byToken, (contract, t) => [contract, t.transfers, t.supply, t.firstHeight]),
};

export const TOKEN_DAY_DELTAS: DeltaTable<TokenActivity> = {
  name: 'delta_token_days',
  columns: 'contract text, day date, transfers int',
  *rows(acc) {
    for (const [contract, days] of acc.byTokenDay) for (const [day, transfers] of days) yield [contract, dayName(day), transfers];
  },
};

export const HOLDER_DAY_DELTAS: DeltaTable<TokenActivity> = {
  name: 'delta_token_holder_days',
  columns: 'address text, contract text, day date, net numeric',
  *rows(acc): Generator<CopyValue[]> {
    for (const [address, tokens] of acc.byHolder) for (const [contract, days] of tokens) for (const [day, net] of days) yield [address, contract, dayName(day), net];
  },
  analyze: true,
};

/**
 * Adds (`sign` 1) or subtracts (-1) the step's figures: the days' transfers and holder
 * transitions into token_daily, the tokens' into token_stats. One statement, whose CTEs read the
 * delta tables and token_balances as the token_balances rollup left them.
 */
function mergeTokens(step: RollupStep<TokenActivity>, sign: 1 | -1): Sql {
  const { chain } = step;
  const holderDays = step.rowsOf(HOLDER_DAY_DELTAS);
  return sql`WITH running AS (
          SELECT n.contract, n.day, n.net,
                 coalesce(b.balance, 0)
                   - ${sign === 1 ? sql`sum(n.net) OVER (PARTITION BY n.address, n.contract)` : sql`0`}
                   + sum(n.net) OVER (PARTITION BY n.address, n.contract ORDER BY n.day) AS after
          FROM ${holderDays} n
          LEFT JOIN token_balances b ON b.chain = ${chain} AND b.address = n.address AND b.contract = n.contract
        ),
        transitions AS (${transitionsOf(sql`running`)}),
        days AS (
          INSERT INTO token_daily AS d (chain, contract, day, transfers, holders_delta)
          SELECT ${chain}, t.contract, t.day, ${sign} * t.transfers, ${sign} * coalesce(h.delta, 0)
          FROM ${step.rowsOf(TOKEN_DAY_DELTAS)} t LEFT JOIN transitions h ON h.contract = t.contract AND h.day = t.day
          ORDER BY t.contract, t.day
          ON CONFLICT (chain, contract, day) DO UPDATE SET
            transfers = d.transfers + excluded.transfers, holders_delta = d.holders_delta + excluded.holders_delta
        )
        INSERT INTO token_stats AS s (chain, contract, holders, transfers, supply, first_height)
        SELECT ${chain}, t.contract, ${sign} * coalesce(h.delta, 0), ${sign} * t.transfers, ${sign} * t.supply, t.first_height
        FROM ${step.rowsOf(TOKEN_DELTAS)} t
        LEFT JOIN (SELECT contract, sum(delta)::int AS delta FROM transitions GROUP BY contract) h ON h.contract = t.contract
        ORDER BY t.contract
        ON CONFLICT (chain, contract) DO UPDATE SET
          holders = s.holders + excluded.holders, transfers = s.transfers + excluded.transfers,
          supply = s.supply + excluded.supply, first_height = least(s.first_height, excluded.first_height)`;
}

/**
 * Per token and day: holders gained less holders lost, from rows (contract, day, net, after) of
 * each address's running balance (`after`: at the end of the day; `after - net`: before it).
 */
function transitionsOf(running: Sql): Sql {
  return sql`SELECT contract, day,
                    (count(*) FILTER (WHERE after - net <= 0 AND after > 0) - count(*) FILTER (WHERE after - net > 0 AND after <= 0))::int AS delta
             FROM ${running} GROUP BY contract, day`;
}

/** After a revert's raw rows are deleted: the days and tokens left without a transfer go. */
async function removeEmpty(db: Db, step: RollupStep<TokenActivity>): Promise<void> {
  const { chain } = step;
  await db.query(
    'rollups.token_stats.remove_days',
    sql`DELETE FROM token_daily d USING ${step.rowsOf(TOKEN_DAY_DELTAS)} t
        WHERE d.chain = ${chain} AND d.contract = t.contract AND d.day = t.day AND d.transfers = 0`,
  );
  await db.query(
    'rollups.token_stats.remove_tokens',
    sql`DELETE FROM token_stats s USING ${step.rowsOf(TOKEN_DELTAS)} t
        WHERE s.chain = ${chain} AND s.contract = t.contract AND s.transfers = 0`,
  );
}

/**
 * Both tables of `chain` from the raw rows, all at once: after a refresh of a range, which replays
 * the token balances of some addresses only (the step's figures are the whole token's).
 */
async function recomputeTokens(db: Db, chain: ChainId): Promise<void> {
  await db.query('rollups.token_stats.clear_days', sql`DELETE FROM token_daily WHERE chain = ${chain}`);
  await db.query('rollups.token_stats.clear', sql`DELETE FROM token_stats WHERE chain = ${chain}`);
  const sentinels = [...SENTINELS[chain]];
  await db.query(
    'rollups.token_stats.recompute',
    sql`WITH moves AS (
          SELECT x.contract, x.height, DATE '1970-01-01' + (x.ts / 86400)::int AS day, x.from_addr, x.to_addr, x.amount
          FROM token_transfers x
          JOIN transactions t ON t.chain = x.chain AND t.height = x.height AND t.tx_index = x.tx_index
          WHERE x.chain = ${chain} AND t.status IS DISTINCT FROM 0
        ),
        legs AS (
          SELECT contract, to_addr AS address, day, amount AS net FROM moves WHERE to_addr <> ALL(${sentinels}::text[])
          UNION ALL
          SELECT contract, from_addr, day, -amount FROM moves WHERE from_addr <> ALL(${sentinels}::text[])
        ),
        running AS (
          SELECT contract, day, net, sum(net) OVER (PARTITION BY contract, address ORDER BY day) AS after
          FROM (SELECT contract, address, day, sum(net) AS net FROM legs GROUP BY contract, address, day) per_day
        ),
        transitions AS (${transitionsOf(sql`running`)}),
        days AS (
          INSERT INTO token_daily (chain, contract, day, transfers, holders_delta)
          SELECT ${chain}, m.contract, m.day, m.transfers, coalesce(h.delta, 0)
          FROM (SELECT contract, day, count(*)::int AS transfers FROM moves GROUP BY contract, day) m
          LEFT JOIN transitions h ON h.contract = m.contract AND h.day = m.day
        )
        INSERT INTO token_stats (chain, contract, holders, transfers, supply, first_height)
        SELECT ${chain}, m.contract, coalesce(h.delta, 0), m.transfers, m.supply, m.first_height
        FROM (SELECT contract, count(*) AS transfers, min(height) AS first_height,
                     sum(CASE WHEN from_addr = ANY(${sentinels}::text[]) THEN amount ELSE 0 END)
                       - sum(CASE WHEN to_addr = ANY(${sentinels}::text[]) THEN amount ELSE 0 END) AS supply
              FROM moves GROUP BY contract) m
        LEFT JOIN (SELECT contract, sum(delta)::int AS delta FROM transitions GROUP BY contract) h ON h.contract = m.contract`,
  );
}

export const tokenStats: Rollup<TokenActivity> = {
  name: 'token_stats',
  part: 'addresses',
  tables: ['token_stats', 'token_daily'],
  deltas: tokenActivity,
  deltaTables: [TOKEN_DELTAS, TOKEN_DAY_DELTAS, HOLDER_DAY_DELTAS],
  // Its holder transitions start from the balances token_balances leaves.
  after: ['token_balances'],
  async apply(db, step) {
    // A refresh of a range replays some addresses' balances only: the tokens are recomputed after it.
    if (step.partial) return;
    await db.query('rollups.token_stats.apply', mergeTokens(step, 1));
  },
  async revert(db, step) {
    await db.query('rollups.token_stats.revert', mergeTokens(step, -1));
  },
  repair: (db, step) => removeEmpty(db, step),
  async afterRefresh(db, chain, partial) {
    if (partial) await recomputeTokens(db, chain);
  },
};
