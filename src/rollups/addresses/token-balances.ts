/**
 * token_balances: per holder and token, the balance from transfers (the zero address and the pow
 * sentinel mint and burn, so they hold nothing), the transfers touching the holder, and the
 * last one; merged from delta_tokens.
 */
import sql from 'sql-template-tag';
import { isSentinel, type ChainId } from '../../chain/chains.ts';
import type { Db } from '../../store/store.ts';
import { nestedRowsOf } from '../engine/delta-tables.ts';
import { entryOf, type DeltaReducer, type StepScope } from '../engine/reducer.ts';
import type { Rollup } from '../engine/rollup.ts';

interface TokenDelta {
  balance: bigint;
  transferCount: number;
  lastTs: number;
}

// lastTs starts below any block time: the reducer raises it to the transfer's.
const emptyToken = (): TokenDelta => ({ balance: 0n, transferCount: 0, lastTs: 0 });

/** address → token contract → figures, of the kept addresses (StepScope.keeps). */
interface Holdings {
  scope: StepScope;
  byAddress: Map<string, Map<string, TokenDelta>>;
  entries: number;
}

/** The token transfers of the transactions that did not revert, per holder (not a sentinel) and token. */
const tokensReducer: DeltaReducer<Holdings> = {
  start: (scope) => ({ scope, byAddress: new Map(), entries: 0 }),
  tx(acc, { tx, ts, ok }) {
    if (!ok) return;
    for (const t of tx.tokenTransfers) {
      for (const [holder, delta] of [[t.to, t.amount], [t.from, -t.amount]] as const) {
        if (isSentinel(acc.scope.chain, holder)) continue;
        const token = entryOf(acc.byAddress, holder, t.contract, emptyToken, acc.scope.keeps(holder), () => acc.entries++);
        token.lastTs = Math.max(token.lastTs, ts);
        token.balance += delta;
        if (!(holder === t.to && holder === t.from && delta < 0n)) token.transferCount++;
      }
    }
  },
  size: (acc) => acc.entries,
};

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

export const tokenBalances: Rollup<Holdings> = {
  name: 'token_balances',
  part: 'addresses',
  tables: ['token_balances'],
  deltas: tokensReducer,
  deltaTables: [
    {
      name: 'delta_tokens',
      columns: 'address text, contract text, balance numeric, transfer_count int, last_ts bigint',
      rows: (acc) => nestedRowsOf(acc.byAddress, (address, contract, t) => [address, contract, t.balance, t.transferCount, t.lastTs]),
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
