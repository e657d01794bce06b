/** The validator shapes of the validator routes (docs/api-validators.md). */
import { Type, type Static } from 'typebox';
import { Day, Nullable, NullableAmount, Timestamp } from './common.ts';

/** The beacon API's validator statuses, as qrysm names them (consensus-types/validator ValidatorStatusFromString). */
export const VALIDATOR_STATUSES = [
  'pending_initialized', 'pending_queued',
  'active_ongoing', 'active_exiting', 'active_slashed',
  'exited_unslashed', 'exited_slashed',
  'withdrawal_possible', 'withdrawal_done',
] as const;
/** The beacon API's status groups: each status's first word. */
export const VALIDATOR_STATUS_GROUPS = ['pending', 'active', 'exited', 'withdrawal'] as const;

/** A signed amount: an integer in planck as a decimal string, negative where penalties outweigh rewards. */
const SignedAmount = Type.String({ pattern: '^-?[0-9]+$', description: 'Signed integer in planck as a decimal string (negative when penalties outweigh rewards).', examples: ['-1250000000000000000000'] });

const Epoch = (description: string) => Nullable(Type.Integer({ description }));

export const ValidatorSummaryFields = {
  index: Type.Integer({ description: 'The validator\'s index in the beacon state.' }),
  pubkey: Type.String({ description: 'Its public key, 0x + lowercase hex: 2,592 bytes on qrysm (ML-DSA-87), 48 on an Ethereum beacon node (BLS).' }),
  status: Type.String({ description: `Its beacon status at the head the staking sync last read, as qrysm names them: ${VALIDATOR_STATUSES.join(', ')}.` }),
  balance: { ...NullableAmount, description: 'Balance at that head (planck).' },
  effective_balance: { ...NullableAmount, description: 'Effective balance at that head (planck): what its stake and rewards are counted on.' },
  withdrawal_address: Nullable(Type.String({ description: 'The execution address its withdrawals are paid to (Q form); null for BLS (0x00) credentials.' })),
  activation_epoch: Epoch('Epoch it became (or becomes) active; null when none is scheduled.'),
  exit_epoch: Epoch('Epoch it exits; null when no exit is scheduled.'),
  slashed: Type.Boolean({ description: 'Whether it has been slashed.' }),
};

export const ValidatorSummary = Type.Object(ValidatorSummaryFields, { description: 'A validator as the list shows it.' });
export type ValidatorSummaryType = Static<typeof ValidatorSummary>;

export const ValidatorDetail = Type.Object(
  {
    chain: Type.String(),
    network: Type.String(),
    ...ValidatorSummaryFields,
    status_group: Type.String({ description: `The status's group: ${VALIDATOR_STATUS_GROUPS.join(', ')}.` }),
    updated_at: Timestamp,
    proposed_blocks: Type.Integer({ description: 'Blocks it proposed in the epochs the staking sync has read (finalized ones).' }),
    withdrawals_count: Type.Integer({ description: 'Withdrawals paid from it in the stored blocks.' }),
    withdrawals_total: { ...NullableAmount, description: 'Their sum (planck).' },
    days: Type.Integer({ description: 'Days of its history the staking sync has recorded (GET …/daily).' }),
    rewards_total: Nullable({ ...SignedAmount, description: 'Its net consensus rewards over those days (planck, signed); null when none is recorded.' }),
  },
  { description: 'A validator: its state at the head, and what its history holds.' },
);
export type ValidatorDetailType = Static<typeof ValidatorDetail>;

export const ValidatorDay = Type.Object(
  {
    day: Day,
    status: Type.String({ description: 'Its status at the end of the day.' }),
    balance: { ...NullableAmount, description: 'Balance at the end of the day (planck).' },
    effective_balance: { ...NullableAmount, description: 'Effective balance at the end of the day (planck).' },
    rewards: { ...SignedAmount, description: 'Net consensus rewards of the day (planck, signed): attestations, proposals and sync committee, less the initial penalty on the day of a slashing.' },
  },
  { description: 'A validator\'s day, from the beacon node.' },
);

export const ValidatorProposal = Type.Object(
  {
    slot: Type.Integer({ description: 'The beacon slot of the block.' }),
    timestamp: Timestamp,
    proposer_reward: { ...NullableAmount, description: 'The proposer\'s consensus reward for the block (planck), from the beacon node.' },
    height: Nullable(Type.Integer({ description: 'Height of the execution block of the slot; null while it is not stored.' })),
    hash: Nullable(Type.String({ description: 'Its hash (0x + 64 hex); null while it is not stored.' })),
    tx_count: Nullable(Type.Integer({ description: 'Its transactions; null while it is not stored.' })),
    fee_recipient: Nullable(Type.String({ description: 'Its fee recipient (Q form); null while it is not stored.' })),
    priority_fees: { ...NullableAmount, description: 'Tips it paid to the fee recipient (planck); null while it is not stored.' },
  },
  { description: 'A block the validator proposed.' },
);

export const ValidatorWithdrawal = Type.Object(
  {
    index: Type.Integer({ description: 'Global withdrawal index (the consensus layer\'s).' }),
    height: Type.Integer({ description: 'Height of the block that credits it.' }),
    block_hash: Type.String({ description: 'Hash of that block.' }),
    timestamp: Timestamp,
    address: Type.String({ description: 'Credited address (Q form).' }),
    amount: { ...NullableAmount, description: 'Credited amount (planck).' },
  },
  { description: 'A withdrawal paid from the validator.' },
);
