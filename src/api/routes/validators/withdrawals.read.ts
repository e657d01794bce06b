/** The read of GET /pos/validators/{validator}/withdrawals: the withdrawals paid from a validator, newest first. */
import sql, { empty } from 'sql-template-tag';
import type { Db } from '../../../store/store.ts';

export interface ValidatorWithdrawalRow {
  withdrawal_index: number;
  height: number;
  position: number;
  block_hash: string;
  ts: number;
  address: string;
  amount: string;
}

/**
 * `limit` of the validator's withdrawals below (height, position) `below` (null: from the newest),
 * with their blocks' hashes, and their count, in one statement: the validator's range of
 * withdrawals_validator (migration 0099) and a primary-key probe of blocks per row.
 */
export async function readValidatorWithdrawals(db: Db, index: number, below: readonly [number, number] | null, limit: number): Promise<{ rows: ValidatorWithdrawalRow[]; total: number }> {
  const found = await db.query<ValidatorWithdrawalRow & { total: number }>(
    below === null ? 'validators.withdrawals.first' : 'validators.withdrawals.after',
    sql`SELECT counted.total, p.*
        FROM (SELECT count(*)::int AS total FROM withdrawals WHERE chain = 'pos' AND validator_index = ${index}) AS counted
        LEFT JOIN LATERAL (
          SELECT w.withdrawal_index, w.height, w.position, b.hash AS block_hash, w.ts, w.address, w.amount::text AS amount
          FROM withdrawals w
          JOIN blocks b ON b.chain = w.chain AND b.height = w.height
          WHERE w.chain = 'pos' AND w.validator_index = ${index}
            ${below === null ? empty : sql`AND (w.height, w.position) < (${below[0]}::bigint, ${below[1]}::int)`}
          ORDER BY w.height DESC, w.position DESC
          LIMIT ${limit}
        ) AS p ON true`,
    { reusePlan: true }, // the validator's index range read backwards under a limit
  );
  return { rows: found.filter((r) => r.address !== null), total: found[0]?.total ?? 0 };
}
