/** The read of GET /pos/validators: one page of validators in index or balance order, within a status or group. */
import sql, { empty, type Sql } from 'sql-template-tag';
import type { Db } from '../../../store/store.ts';

/** The columns of a validator summary (ValidatorSummary). */
export interface ValidatorRow {
  validator_index: number;
  pubkey: string;
  status: string;
  balance: string;
  effective_balance: string;
  withdrawal_address: string | null;
  activation_epoch: number | null;
  exit_epoch: number | null;
  slashed: boolean;
}

export const VALIDATOR_COLUMNS = sql`v.validator_index, v.pubkey, v.status, v.balance::text AS balance, v.effective_balance::text AS effective_balance,
  v.withdrawal_address, v.activation_epoch, v.exit_epoch, v.slashed`;

/** Which validators: one beacon status, one group (a status's first word), or all. */
export type ValidatorFilter = { status: string; group?: undefined } | { group: string; status?: undefined } | null;
export type ValidatorSort = 'index' | '-index' | 'balance' | '-balance';

export interface ValidatorsQuery {
  filter: ValidatorFilter;
  sort: ValidatorSort;
  /** The cursor's position: the last item's balance (balance orders) and index; null = from the start. */
  after: { balance: string; index: number } | null;
  /** Rows read: a page and one more (whether more follow). */
  limit: number;
}

/** The filter on validators (alias v) or validator_counts: each served by an index that leads with it (migration 0099). */
function filterOn(filter: ValidatorFilter, status: Sql): Sql {
  if (filter === null) return empty;
  return filter.status !== undefined ? sql`AND ${status} = ${filter.status}` : sql`AND split_part(${status}, '_', 1) = ${filter.group}`;
}

/** The order and the seek past the cursor, both on one index's columns, in one direction. */
function orderAndSeek(sort: ValidatorSort, after: ValidatorsQuery['after']): { order: Sql; seek: Sql } {
  const desc = sort.startsWith('-');
  if (sort.endsWith('balance')) {
    const order = desc ? sql`v.balance DESC, v.validator_index DESC` : sql`v.balance, v.validator_index`;
    if (after === null) return { order, seek: empty };
    const key = sql`(${after.balance}::numeric, ${after.index}::bigint)`;
    return { order, seek: desc ? sql`AND (v.balance, v.validator_index) < ${key}` : sql`AND (v.balance, v.validator_index) > ${key}` };
  }
  const order = desc ? sql`v.validator_index DESC` : sql`v.validator_index`;
  if (after === null) return { order, seek: empty };
  return { order, seek: desc ? sql`AND v.validator_index < ${after.index}` : sql`AND v.validator_index > ${after.index}` };
}

/**
 * One page of validators after the cursor, read in the order of an index of validators (the primary
 * key, or validators_balance, _status, _status_balance, _group, _group_balance), and the count of
 * the filter's validators from validator_counts (a row per status): the page's cost is its own rows
 * at any depth, the total's the number of statuses.
 */
export async function readValidators(db: Db, q: ValidatorsQuery): Promise<{ rows: ValidatorRow[]; total: number }> {
  const { order, seek } = orderAndSeek(q.sort, q.after);
  const shape = `${q.sort}.${q.filter === null ? 'all' : q.filter.status !== undefined ? 'status' : 'group'}${q.after ? '.after' : ''}`;
  const found = await db.query<ValidatorRow & { total: number }>(
    `validators.list.${shape}`,
    sql`SELECT counted.total, p.*
        FROM (SELECT COALESCE(sum(c.validators), 0)::int AS total FROM validator_counts c WHERE c.chain = 'pos' ${filterOn(q.filter, sql`c.status`)}) AS counted
        LEFT JOIN LATERAL (
          SELECT ${VALIDATOR_COLUMNS}
          FROM validators v
          WHERE v.chain = 'pos' ${filterOn(q.filter, sql`v.status`)} ${seek}
          ORDER BY ${order}
          LIMIT ${q.limit}
        ) AS p ON true`,
    { reusePlan: true }, // an index range read in order under a limit, and a few counts
  );
  return { rows: found.filter((r) => r.pubkey !== null), total: found[0]?.total ?? 0 };
}
