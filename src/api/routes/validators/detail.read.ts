/** The reads of GET /pos/validators/{validator}: a validator by index or public key, and what its history holds. */
import sql from 'sql-template-tag';
import type { Db } from '../../../store/store.ts';
import type { ValidatorId } from '../../params/validator-id.ts';
import { VALIDATOR_COLUMNS, type ValidatorRow } from './list.read.ts';

export interface ValidatorDetailRow extends ValidatorRow {
  updated_ts: number;
  proposed_blocks: number;
  withdrawals_count: number;
  withdrawals_total: string;
  days: number;
  rewards_total: string | null;
}

/** An index is the primary key; a public key the hash index validators_pubkey (migration 0099). */
const where = (id: ValidatorId) => (id.pubkey === undefined ? sql`v.chain = 'pos' AND v.validator_index = ${id.index}` : sql`v.chain = 'pos' AND v.pubkey = ${id.pubkey}`);
const label = (id: ValidatorId) => (id.pubkey === undefined ? 'index' : 'pubkey');

/**
 * The validator `id` names with its counts, in one statement; null when none is stored. The counts
 * read the validator's own ranges: of slot_proposers_proposer, withdrawals_validator and the
 * validator_days primary key (one row per recorded day).
 */
export async function readValidatorDetail(db: Db, id: ValidatorId): Promise<ValidatorDetailRow | null> {
  const [row] = await db.query<ValidatorDetailRow>(
    `validators.detail.${label(id)}`,
    sql`SELECT ${VALIDATOR_COLUMNS}, v.updated_ts,
               (SELECT count(*)::int FROM slot_proposers p WHERE p.chain = v.chain AND p.proposer_index = v.validator_index) AS proposed_blocks,
               w.withdrawals_count, w.withdrawals_total, d.days, d.rewards_total
        FROM validators v
        CROSS JOIN LATERAL (
          SELECT count(*)::int AS withdrawals_count, COALESCE(sum(w.amount), 0)::text AS withdrawals_total
          FROM withdrawals w WHERE w.chain = v.chain AND w.validator_index = v.validator_index
        ) AS w
        CROSS JOIN LATERAL (
          SELECT count(*)::int AS days, sum(d.rewards)::text AS rewards_total
          FROM validator_days d WHERE d.chain = v.chain AND d.validator_index = v.validator_index
        ) AS d
        WHERE ${where(id)}`,
    { reusePlan: true }, // a key lookup and the validator's index ranges
  );
  return row ?? null;
}

/** The index of the stored validator `id` names; null when none. */
export async function findValidator(db: Db, id: ValidatorId): Promise<number | null> {
  const [row] = await db.query<{ i: number }>(`validators.find.${label(id)}`, sql`SELECT v.validator_index AS i FROM validators v WHERE ${where(id)}`, { reusePlan: true });
  return row?.i ?? null;
}
