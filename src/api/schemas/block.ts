/** The block shapes of the block routes (docs/api-blocks.md): a list's summary and a block page's header. */
import { Type, type Static } from 'typebox';
import { DEFAULT_MAX_REORG_DEPTH } from '../../ingest/indexer.ts';
import { Nullable, NullableAmount, Timestamp } from './common.ts';

const PosInteger = (description: string) => Nullable(Type.Integer({ description: `${description} Null on pow.` }));
const PosAmount = (description: string) => ({ ...NullableAmount, description: `${description} Null on pow.` });

/** What a list of blocks shows of each. */
export const BlockSummaryFields = {
  height: Type.Integer({ description: 'Block height.' }),
  hash: Type.String({ description: 'Block hash: pos 0x + 64 hex, pow 64 hex (lowercase).' }),
  timestamp: Timestamp,
  tx_count: Type.Integer({ description: 'Transactions in the block (pow: the coinbase included).' }),
  producer: Nullable(Type.String({ description: 'pow: the coinbase recipient (the miner); pos: the fee recipient. Canonical Q form.' })),
  size: Type.Integer({ description: 'Serialized size in bytes.' }),
  reward: { ...NullableAmount, description: 'Newly minted by the block: the pow block reward without fees; 0 on pos (consensus rewards are not in execution blocks).' },
  fees: { ...NullableAmount, description: 'Fees paid by the block\'s transactions (pos: burned and priority parts together).' },
  gas_used: PosInteger('Gas used by the block\'s transactions.'),
  gas_limit: PosInteger('Gas limit of the block.'),
  base_fee_per_gas: PosAmount('Base fee per gas (planck).'),
  burned: PosAmount('Base fee x gas used: destroyed (planck).'),
};

export const BlockSummary = Type.Object(BlockSummaryFields, { description: 'A block as a list shows it.' });
export type BlockSummaryType = Static<typeof BlockSummary>;

export const BlockDetail = Type.Object(
  {
    chain: Type.String(),
    network: Type.String(),
    ...BlockSummaryFields,
    parent_hash: Type.String({ description: 'Hash of the parent block.' }),
    priority_fees: PosAmount('Tips paid to the fee recipient: fees minus burned.'),
    withdrawals_count: PosInteger('Consensus-layer withdrawals credited in the block.'),
    withdrawals_total: PosAmount('Sum of those withdrawals (planck).'),
    confirmations: Type.Integer({ description: 'Blocks stored above this one: the latest stored height minus this height (0 for the tip).' }),
    finalized: Nullable(
      Type.Boolean({
        description:
          `Whether the block can no longer change. pow: deeper than the reorg limit (confirmations >= ${DEFAULT_MAX_REORG_DEPTH.pow}, a week of blocks) or at or below a recorded finalized height (the end of an archive's chain). ` +
          'pos: at or below the node\'s finalized block as the indexer last recorded it. Null on pos when nothing recorded one (a generated chain, a node without the finalized tag).',
      }),
    ),
    proposer_index: Nullable(
      Type.Integer({
        description:
          'pos: index of the validator that proposed the block, as the beacon node gives it (its block rewards for the slot at the block\'s time, read by the staking sync for finalized epochs). ' +
          'Null on pow, and on pos where it is not recorded: without a beacon node (--beacon; a generated chain), or for a block of an epoch the staking sync has not read yet (newer than the finalized checkpoint at its last run).',
      }),
    ),
  },
  { description: 'A block header with what a block page shows.' },
);
export type BlockDetailType = Static<typeof BlockDetail>;

export const Withdrawal = Type.Object(
  {
    index: Type.Integer({ description: 'Global withdrawal index (the consensus layer\'s).' }),
    validator_index: Type.Integer({ description: 'Index of the validator withdrawn from.' }),
    address: Type.String({ description: 'Credited address (Q form).' }),
    amount: { ...NullableAmount, description: 'Credited amount (planck).' },
  },
  { description: 'A consensus-layer withdrawal credited in a pos block.' },
);
