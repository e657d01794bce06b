/** The reads of GET /pos/blocks/{id}/withdrawals: a block's withdrawals in block order. */
import sql, { empty } from 'sql-template-tag';
import type { ChainId } from '../../../chain/chains.ts';
import type { Db } from '../../../store/store.ts';

export interface WithdrawalRow {
  position: number;
  withdrawal_index: number;
  validator_index: number;
  address: string;
  amount: string;
}

/** `limit` withdrawals of the block after `afterPosition` (null: from the first), and the block's count, in one statement. */
export async function readWithdrawals(db: Db, chain: ChainId, height: number, afterPosition: number | null, limit: number): Promise<{ rows: WithdrawalRow[]; total: number }> {
  const found = await db.query<WithdrawalRow & { total: number }>(
    'blocks.withdrawals.page',
    sql`SELECT counted.total, p.*
        FROM (SELECT count(*)::int AS total FROM withdrawals WHERE chain = ${chain} AND height = ${height}) AS counted
        LEFT JOIN LATERAL (
          SELECT position, withdrawal_index, validator_index, address, amount::text AS amount
          FROM withdrawals
          WHERE chain = ${chain} AND height = ${height} ${afterPosition === null ? empty : sql`AND position > ${afterPosition}`}
          ORDER BY position
          LIMIT ${limit}
        ) AS p ON true`,
    { reusePlan: true }, // the block's primary-key range
  );
  return { rows: found.filter((r) => r.address !== null), total: found[0]?.total ?? 0 };
}
