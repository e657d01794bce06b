/**
 * The canonical block model. Every source (the synthetic generator, an EVM JSON-RPC node, a QRL
 * gRPC node) turns what it reads into these shapes, already normalised: canonical addresses
 * (`Q` + lowercase hex), amounts as bigint in the chain's smallest unit, times in Unix seconds.
 * The ingest pipeline writes nothing else.
 */
import type { ChainId } from './chains.ts';

export const POW_TX_TYPES = [
  'transfer',
  'coinbase',
  'latticePK',
  'message',
  'token',
  'transfer_token',
  'slave',
  'multi_sig_create',
  'multi_sig_spend',
  'multi_sig_vote',
  'proposal_create',
  'proposal_vote',
  // A transaction of a kind the decoder does not know: its sender and fee only.
  'unknown',
] as const;
export const POS_TX_TYPES = ['transfer', 'contract_call', 'contract_create'] as const;
export type PowTxType = (typeof POW_TX_TYPES)[number];
export type PosTxType = (typeof POS_TX_TYPES)[number];
export type TxType = PowTxType | PosTxType;

export const TX_TYPES: Record<ChainId, readonly TxType[]> = { pow: POW_TX_TYPES, pos: POS_TX_TYPES };

/**
 * Transaction types that are not user activity (docs/metrics.md, "Analytics conventions"): block
 * rewards, and the pow key administration that moves no value between people (publishing a lattice
 * key, registering slave keys).
 */
export const NON_USER_TX_TYPES: readonly TxType[] = ['coinbase', 'latticePK', 'slave'];

export interface CanonicalBlock {
  chain: ChainId;
  height: number;
  hash: string;
  parentHash: string;
  /** Unix seconds. */
  timestamp: number;
  /** Serialized size in bytes. */
  size: number;
  /** pow: coinbase recipient; pos: fee recipient. */
  miner: string | null;
  /** Newly minted by this block (pow block reward, without fees). */
  reward: bigint;
  gasUsed: number | null;
  gasLimit: number | null;
  baseFeePerGas: bigint | null;
  transactions: CanonicalTx[];
  /** pos: consensus-layer withdrawals credited in this block. */
  withdrawals: CanonicalWithdrawal[];
  /** Balances that exist without a transaction (only on the genesis block). */
  allocations: GenesisAllocation[];
  /**
   * Indexing from above genesis: what addresses first seen in this block held before the indexed
   * range (set by the ingest pipeline, not by sources). Absent: none.
   */
  openings?: OpeningBalance[];
  /** Tokens first seen in this block, with their metadata. */
  tokens: TokenInfo[];
  /** Parts of this block that could not be decoded; the rest of the block is indexed. */
  deadLetters: DeadLetterItem[];
}

export interface CanonicalTx {
  hash: string;
  /** Position in the block. */
  index: number;
  type: TxType;
  /** pos: EIP-2718 envelope type (2 = dynamic fee). */
  typeEvm: number | null;
  /** Whose balance pays: on pow a slave-signed transaction is from its master. */
  from: string;
  /** The single recipient; null for contract creation and for multi-recipient transfers. */
  to: string | null;
  /** Total native value sent (sum over `recipients` when present). */
  value: bigint;
  /** pow transfer and transfer_token: every recipient, in order (native amount 0 for tokens). */
  recipients: TxRecipient[] | null;
  /** Total fee paid by `from`. */
  fee: bigint;
  nonce: number | null;
  gas: number | null;
  gasUsed: number | null;
  gasPrice: bigint | null;
  effectiveGasPrice: bigint | null;
  maxFeePerGas: bigint | null;
  maxPriorityFeePerGas: bigint | null;
  /** pos: base fee x gas used, destroyed. The rest of the fee goes to the block's miner. */
  burned: bigint;
  /** pos: 1 success, 0 reverted (a reverted transaction moves no value but pays its fee). */
  status: 0 | 1 | null;
  /** pos: the contract this transaction created. */
  contractAddress: string | null;
  /** pow: the master address when a slave key signed (equal to `from`). */
  masterAddr: string | null;
  /** pow: the address of the signing key when it is not `from` (a slave). */
  signer: string | null;
  /** pow: XMSS one-time key index of the signature. */
  otsIndex: number | null;
  /** Hex data (pos input, pow message payload). */
  input: string | null;
  /** pos: value moved by nested call frames. */
  internal: InternalTransfer[];
  /** pos: contracts created by nested call frames (a factory), with or without value. */
  creations: ContractCreation[];
  /** Token movements caused by this transaction. */
  tokenTransfers: TokenTransfer[];
  /** pow: slave keys registered by this transaction. */
  slaves: SlaveRegistration[];
  /** Set when this transaction is one leg of a pow-to-pos migration. */
  migration: MigrationLeg | null;
  /**
   * pow multi_sig_create, multi_sig_spend and multi_sig_vote: the body (absent on every other
   * transaction). A spend moves no value when it is made: its votes decide whether it ever does.
   */
  multiSig?: MultiSigBody;
  /** pow latticePK: the public keys the transaction published (absent on every other transaction). */
  lattice?: LatticeKeys;
}

/**
 * The keys of a pow latticePK transaction, as lowercase hex without 0x (theQRL/QRL
 * LatticeTransaction: pk1 Kyber, pk2 Dilithium, pk3 ECDSA; each may be empty).
 */
export interface LatticeKeys {
  kyberPk: string;
  dilithiumPk: string;
  ecdsaPk: string;
}

/** The body of a pow multi-signature transaction. */
export type MultiSigBody = MultiSigCreate | MultiSigSpend | MultiSigVote;

export interface MultiSigCreate {
  kind: 'create';
  /** The address it makes, derived from the transaction's hash (`multiSigAddress`). */
  address: string;
  signatories: { address: string; weight: number }[];
  /** The sum of approving weights that carries a spend. */
  threshold: number;
}

export interface MultiSigSpend {
  kind: 'spend';
  multiSigAddress: string;
  recipients: TxRecipient[];
  /** No vote counts in a block above this height. */
  expiryHeight: number;
}

export interface MultiSigVote {
  kind: 'vote';
  /** The hash of the spend voted on. */
  sharedKey: string;
  /** The vote withdraws the signatory's approval. */
  unvote: boolean;
}

export interface TxRecipient {
  to: string;
  amount: bigint;
}

export interface InternalTransfer {
  /** Dot-separated path of the call frame, e.g. "0.1". */
  traceAddress: string;
  callType: string;
  from: string;
  to: string;
  value: bigint;
}

export interface ContractCreation {
  /** Dot-separated path of the creating frame, e.g. "0.1". */
  traceAddress: string;
  creator: string;
  address: string;
}

export interface TokenTransfer {
  /** Position among the block's logs (pos) or within the transaction (pow). */
  logIndex: number;
  /** pos: token contract; pow: the token's creation transaction hash. */
  contract: string;
  from: string;
  to: string;
  amount: bigint;
}

export interface SlaveRegistration {
  slave: string;
  accessType: number;
}

export interface MigrationLeg {
  accountId: string;
  role: 'burn' | 'mint';
}

export interface CanonicalWithdrawal {
  /** Global withdrawal index. */
  index: number;
  validatorIndex: number;
  address: string;
  /** Planck (the node reports gwei; sources convert). */
  amount: bigint;
}

export interface GenesisAllocation {
  address: string;
  amount: bigint;
}

export interface OpeningBalance {
  address: string;
  /** The balance at the block below the first indexed one; null when the node cannot tell. */
  amount: bigint | null;
}

export interface TokenInfo {
  contract: string;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  creator: string | null;
  createdTx: string | null;
}

export interface DeadLetterItem {
  /** What failed inside the block (a tx hash, "receipts", "traces"), or null for the block. */
  item: string | null;
  error: string;
  /** The offending data, for diagnosis (truncated on write). */
  payload: unknown;
}

/**
 * What a source yields: a decoded block; a block it could not decode (the pipeline fetches it
 * again with `blockAt`, and stalls the chain at that height if it stays bad: a block is never
 * skipped); or a mark that it has caught up with its node's head for now (the pipeline writes
 * what it holds instead of waiting to fill a batch).
 */
export type SourceItem =
  | { kind: 'block'; block: CanonicalBlock }
  | { kind: 'undecodable'; chain: ChainId; height: number; error: string; payload: unknown }
  | { kind: 'caught-up' };

/** A source of canonical blocks for one chain. */
export interface BlockSource {
  readonly chain: ChainId;
  /** Names the source in checkpoints and dead letters (e.g. "synthetic", "evm-rpc"). */
  readonly name: string;
  /**
   * Yields blocks in height order from `fromHeight`. After a reorg the source may yield a block
   * at a height already yielded. The pipeline then:
   * - skips it when its hash is the one already stored at that height (replays are harmless);
   * - otherwise rolls back to the block's parent when that parent is stored;
   * - otherwise walks back with `hashAt` to the highest height where the stored hash and the
   *   source's agree, rolls back to it, re-fetches the new branch up to the block with `blockAt`,
   *   and goes on.
   * The same happens when a block's parent hash is not the stored tip's hash.
   */
  blocks(fromHeight: number): AsyncIterable<SourceItem>;
  /** The hash of the source's canonical block at `height` (null if none): used to find a common ancestor. */
  hashAt?(height: number): Promise<string | null>;
  /** The source's canonical block at `height`: used to re-fetch a new branch below a reorg, or a block that did not decode. */
  blockAt?(height: number): Promise<SourceItem | null>;
  /** The height below which the source's chain can no longer change (a finalized checkpoint); null when unknown. */
  finalizedHeight?(): Promise<number | null>;
  /**
   * The balances `addresses` held at block `height` (the one below the first indexed block), for
   * the opening balances of addresses first seen when indexing from above genesis; null for an
   * address the node cannot tell about. Without it no opening balance is recorded.
   */
  openingBalances?(addresses: string[], height: number): Promise<Map<string, bigint | null>>;
}

/** One transaction of a node's pool: sent, not mined yet (docs/api-transactions.md, "Pending transactions"). */
export interface PoolTx {
  hash: string;
  /** pos: `pending` (executable now) or `queued` (waits for an earlier nonce); pow: `pending`. */
  pool: 'pending' | 'queued';
  type: TxType;
  typeEvm: number | null;
  from: string;
  /** Null on a pos contract creation and on a pow transfer to several recipients. */
  to: string | null;
  /** The native amount it sends (all recipients' on pow). */
  value: bigint;
  recipientCount: number;
  /** pow: the fee it pays; null on pos (known once mined). */
  fee: bigint | null;
  nonce: number | null;
  gas: number | null;
  gasPrice: bigint | null;
  maxFeePerGas: bigint | null;
  maxPriorityFeePerGas: bigint | null;
}

/** What one read of a node's pool gave. */
export interface PoolRead {
  /** In the node's order; a hash at most once. */
  txs: PoolTx[];
  /**
   * Whether `txs` is the whole pool at one moment: only then is a stored transaction that is not
   * among them dropped. A paged read during which the node's head moved is not.
   */
  complete: boolean;
  /** Transactions the node's pool held, when the read tells; null when it stopped at the cap. */
  poolSize: number | null;
}

/** A node's pool of pending transactions, as one chain's indexer reads it. */
export interface PoolReader {
  readonly chain: ChainId;
  /** The node method it calls (what the poll's status names). */
  readonly method: string;
  /** One read of the pool; a node that pages its pool stops after about `limit` transactions. */
  read(limit: number): Promise<PoolRead>;
}

/**
 * Thrown by a source's `blocks` when it cannot give block `height` or any block above it (a damaged
 * archive, say): the pipeline writes what it holds below `height`, records a stall there with this
 * message as the reason, and ends the run. Nothing at or above `height` is written.
 */
export class SourceHaltError extends Error {
  override name = 'SourceHaltError';
  constructor(
    readonly height: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Who receives a top-level transaction's native value, and how much: the recipients of a pow
 * transfer (whose `to` repeats its only recipient, so it is not counted again), else the single
 * recipient or the created contract.
 */
export function valueLegs(tx: CanonicalTx): TxRecipient[] {
  if (tx.recipients) return tx.recipients;
  const single = tx.to ?? tx.contractAddress;
  return single ? [{ to: single, amount: tx.value }] : [];
}

/** An empty transaction with the given identity; sources fill in the rest. */
export function emptyTx(fields: Pick<CanonicalTx, 'hash' | 'index' | 'type' | 'from'> & Partial<CanonicalTx>): CanonicalTx {
  return {
    typeEvm: null,
    to: null,
    value: 0n,
    recipients: null,
    fee: 0n,
    nonce: null,
    gas: null,
    gasUsed: null,
    gasPrice: null,
    effectiveGasPrice: null,
    maxFeePerGas: null,
    maxPriorityFeePerGas: null,
    burned: 0n,
    status: null,
    contractAddress: null,
    masterAddr: null,
    signer: null,
    otsIndex: null,
    input: null,
    internal: [],
    creations: [],
    tokenTransfers: [],
    slaves: [],
    migration: null,
    ...fields,
  };
}

/** An empty block with the given identity; sources fill in the rest. */
export function emptyBlock(fields: Pick<CanonicalBlock, 'chain' | 'height' | 'hash' | 'parentHash' | 'timestamp'> & Partial<CanonicalBlock>): CanonicalBlock {
  return {
    size: 0,
    miner: null,
    reward: 0n,
    gasUsed: null,
    gasLimit: null,
    baseFeePerGas: null,
    transactions: [],
    withdrawals: [],
    allocations: [],
    openings: [],
    tokens: [],
    deadLetters: [],
    ...fields,
  };
}

/** One row of `staking_daily`: a UTC day of the staking figures, from a beacon node or the generator. */
export interface StakingDayRow {
  chain: ChainId;
  /** YYYY-MM-DD (UTC). */
  day: string;
  activeValidators: number;
  /** Planck: effective balances of the validators active at the end of the day. */
  totalStaked: bigint;
  /** Planck: net consensus rewards of the day (may be < 0). */
  rewards: bigint;
  rewardedValidators: number;
  slashings: number;
  /** Fewest validators holding more than a third of the stake; null when unknown. */
  nakamoto33: number | null;
}

/** One row of `validators`: a validator's latest state. */
export interface ValidatorRow {
  chain: ChainId;
  validatorIndex: number;
  pubkey: string;
  /** Execution address of the withdrawal credentials; null for BLS (0x00) credentials. */
  withdrawalAddress: string | null;
  status: string;
  /** Planck. */
  balance: bigint;
  /** Planck. */
  effectiveBalance: bigint;
  slashed: boolean;
  activationEpoch: number | null;
  exitEpoch: number | null;
  updatedTs: number;
}

/** One row of `validator_days`: a validator's state at the end of a synced day and its net rewards of the day. */
export interface ValidatorDayRow {
  chain: ChainId;
  validatorIndex: number;
  /** YYYY-MM-DD (UTC). */
  day: string;
  status: string;
  /** Planck. */
  balance: bigint;
  /** Planck. */
  effectiveBalance: bigint;
  /** Planck, signed: net consensus rewards of the day. */
  rewards: bigint;
}

/** One row of `slot_proposers`: who proposed the block of a slot, and its consensus reward. */
export interface SlotProposerRow {
  chain: ChainId;
  slot: number;
  /** Unix seconds: the slot's start, the execution payload's timestamp. */
  ts: number;
  proposerIndex: number;
  /** Planck. */
  reward: bigint;
}

/**
 * A transaction as a node's pool shows it before it is mined, from its decoded form: pow with the
 * fee it offers, pos with its gas and fee caps (the fee is known once mined).
 */
export function pooledTx(chain: ChainId, tx: CanonicalTx): PoolTx {
  return {
    hash: tx.hash,
    pool: 'pending',
    type: tx.type,
    typeEvm: tx.typeEvm,
    from: tx.from,
    to: tx.to,
    value: tx.value,
    recipientCount: tx.recipients?.length ?? 1,
    fee: chain === 'pow' ? tx.fee : null,
    nonce: tx.nonce,
    gas: tx.gas,
    gasPrice: tx.gasPrice,
    maxFeePerGas: tx.maxFeePerGas,
    maxPriorityFeePerGas: tx.maxPriorityFeePerGas,
  };
}
