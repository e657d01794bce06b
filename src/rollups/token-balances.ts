/**
 * token_balances: per holder and token, the balance from transfers (the zero address and the pow
 * sentinel mint and burn, so they hold nothing), the transfers touching the holder, and the last one.
 */
import sql from 'sql-template-tag';
import { SENTINELS, type ChainId } from '../chain/chains.ts';
import type { Db } from '../store/store.ts';
import type { Scope } from './scope.ts';

function tokenDelta(scope: Scope) {
  const mintBurn = SENTINELS[scope.chain as ChainId] as string[];
  return sql`
    SELECT ${scope.chain} AS chain, address, contract, sum(delta) AS balance, count(DISTINCT (height, tx_index, log_index))::int AS transfer_count,
           max(ts) AS last_ts
    FROM (
      SELECT to_addr AS address, contract, amount AS delta, height, tx_index, log_index, ts FROM token_transfers
      WHERE chain = ${scope.chain} AND height BETWEEN ${scope.fromHeight} AND ${scope.toHeight}
      UNION ALL
      SELECT from_addr, contract, -amount, height, tx_index, log_index, ts FROM token_transfers
      WHERE chain = ${scope.chain} AND height BETWEEN ${scope.fromHeight} AND ${scope.toHeight}
    ) moves
    WHERE address <> ALL (${mintBurn}::text[])
    GROUP BY address, contract`;
}

export async function applyTokenBalances(db: Db, scope: Scope): Promise<void> {
  await db.query(
    'rollups.tokens.apply',
    sql`INSERT INTO token_balances AS b (chain, address, contract, balance, transfer_count, last_ts)
        ${tokenDelta(scope)}
        ON CONFLICT (chain, address, contract) DO UPDATE SET
          balance = b.balance + excluded.balance, transfer_count = b.transfer_count + excluded.transfer_count,
          last_ts = greatest(b.last_ts, excluded.last_ts)`,
  );
}

export async function revertTokenBalances(db: Db, scope: Scope): Promise<void> {
  await db.query('rollups.tokens.drop_delta', sql`DROP TABLE IF EXISTS scope_token_delta`);
  await db.query('rollups.tokens.delta', sql`CREATE TEMP TABLE scope_token_delta ON COMMIT DROP AS ${tokenDelta(scope)}`);
  await db.query(
    'rollups.tokens.revert',
    sql`UPDATE token_balances b SET balance = b.balance - d.balance, transfer_count = b.transfer_count - d.transfer_count
        FROM scope_token_delta d WHERE b.chain = d.chain AND b.address = d.address AND b.contract = d.contract`,
  );
}

/** After the raw rows are deleted: the last transfer of each touched holding, and empty holdings removed. */
export async function repairTokenBalances(db: Db, _scope: Scope): Promise<void> {
  await db.query(
    'rollups.tokens.remove_empty',
    sql`DELETE FROM token_balances b USING scope_token_delta d
        WHERE b.chain = d.chain AND b.address = d.address AND b.contract = d.contract AND b.transfer_count = 0`,
  );
  await db.query(
    'rollups.tokens.repair_last',
    sql`UPDATE token_balances b SET last_ts = (
          SELECT max(ts) FROM (
            SELECT ts FROM token_transfers t WHERE t.chain = b.chain AND t.to_addr = b.address AND t.contract = b.contract
            UNION ALL
            SELECT ts FROM token_transfers t WHERE t.chain = b.chain AND t.from_addr = b.address AND t.contract = b.contract
          ) remaining)
        FROM scope_token_delta d
        WHERE b.chain = d.chain AND b.address = d.address AND b.contract = d.contract`,
  );
}
