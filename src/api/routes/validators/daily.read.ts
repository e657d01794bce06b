/** The read of GET /pos/validators/{validator}/daily: a validator's recorded days, oldest first. */
import sql, { empty } from 'sql-template-tag';
import type { Db } from '../../../store/store.ts';

export interface ValidatorDayRow {
  day: string;
  status: string;
  balance: string;
  effective_balance: string;
  rewards: string;
}

/**
 * The validator's days, oldest first: all of them, or those of the `days` days that end with the
 * latest synced day (staking_daily's last, one key read backwards). A range of the validator_days
 * primary key: one row per recorded day of this validator.
 */
export async function readValidatorDays(db: Db, index: number, days: number | null): Promise<ValidatorDayRow[]> {
  return db.query<ValidatorDayRow>(
    days === null ? 'validators.daily.all' : 'validators.daily.window',
    sql`SELECT d.day::text AS day, d.status, d.balance::text AS balance, d.effective_balance::text AS effective_balance, d.rewards::text AS rewards
        FROM validator_days d
        WHERE d.chain = 'pos' AND d.validator_index = ${index}
          ${days === null ? empty : sql`AND d.day > (SELECT s.day FROM staking_daily s WHERE s.chain = 'pos' ORDER BY s.day DESC LIMIT 1) - ${days}::int`}
        ORDER BY d.day`,
    { reusePlan: true }, // the validator's primary-key range
  );
}
