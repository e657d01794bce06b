/**
 * token_balances: per holder and token, the balance from transfers (the zero address and the pow
 * sentinel mint and burn, so they hold nothing), the transfers touching the holder, and the
 * last one; merged from delta_tokens.
 */
import sql from 'sql-template-tag';
import type { ChainId } from '../chain/chains.ts';
import type { Db } from '../store/store.ts';
import { nestedRowsOf } from './engine/delta-tables.ts';
import type { Rollup } from './engine/rollup.ts';

async function applyTokenBalances(db: Db, chain: ChainId): Promise<void> {
  await db.query(
    'rollups.tokens.apply',
    sql`INSERT INTO token_balances AS b (chain, address, contract, balance, transfer_count, last_ts)
        SELECT ${chain}, address, contract, balance, transfer_count, last_ts FROM delta_tokens
        ORDER BY address, contract
        ON CONFLICT (chain, address, contract) DO UPDATE SET
          balance = b.balance + excluded.balance, transfer_count = b.transfer_count + excluded.transfer_count,
          last_ts = greatest(b.last_ts, excluded.last_ts)`,
  );
}

async function revertTokenBalances(db: Db, chain: ChainId): Promise<void> {
  await db.query(
    'rollups.tokens.revert',
    sql`UPDATE token_balances b SET balance = b.balance - d.balance, transfer_count = b.transfer_count - d.transfer_count
        FROM delta_tokens d WHERE b.chain = ${chain} AND b.address = d.address AND b.contract = d.contract`,
  );
}

/** After the reverted raw rows are deleted: empty holdings removed, the last transfer of the others. */
async function repairTokenBalances(db: Db, chain: ChainId): Promise<void> {
  await db.query(
    'rollups.tokens.remove_empty',
    sql`DELETE FROM token_balances b USING delta_tokens d
        WHERE b.chain = ${chain} AND b.address = d.address AND b.contract = d.contract AND b.transfer_count = 0`,
  );
  await db.query(
    'rollups.tokens.repair_last',
    sql`UPDATE token_balances b SET last_ts = (
          SELECT max(ts) FROM (
            SELECT ts FROM token_transfers t WHERE t.chain = b.chain AND t.to_addr = b.address AND t.contract = b.contract
            UNION ALL
            SELECT ts FROM token_transfers t WHERE t.chain = b.chain AND t.from_addr = b.address AND t.contract = b.contract
          ) remaining)
        FROM delta_tokens d
        WHERE b.chain = ${chain} AND b.address = d.address AND b.contract = d.contract`,
  );
}

export const tokenBalances: Rollup = {
  name: 'token_balances',
  part: 'addresses',
  tables: ['token_balances'],
  deltaTables: [
    {
      name: 'delta_tokens',
      columns: 'address text, contract text, balance numeric, transfer_count int, last_ts bigint',
      rows: (deltas) => nestedRowsOf(deltas.tokens, (address, contract, t) => [address, contract, t.balance, t.transferCount, t.lastTs]),
      direct: 'token_balances',
      analyze: true,
    },
  ],
  apply: (db, step) => (step.fresh.has('token_balances') ? Promise.resolve() : applyTokenBalances(db, step.chain)),
  revert: (db, step) => revertTokenBalances(db, step.chain),
  repair: (db, step) => repairTokenBalances(db, step.chain),
  async clearTouched(db, chain, { addresses }) {
    await db.query('refresh.clear_tokens', sql`DELETE FROM token_balances WHERE chain = ${chain} AND address = ANY(${addresses}::text[])`);
  },
};
