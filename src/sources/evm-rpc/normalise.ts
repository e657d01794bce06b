/**
 * Pure functions from decoded node records (./decode.ts) to the canonical model. No I/O here:
 * the source fetches, these decide. The rules are documented in docs/indexing-pos.md.
 */
import {
  emptyBlock,
  emptyTx,
  type CanonicalBlock,
  type CanonicalTx,
  type ContractCreation,
  type DeadLetterItem,
  type GenesisAllocation,
  type InternalTransfer,
  type PosTxType,
  type TokenInfo,
  type TokenTransfer,
} from '../../chain/model.ts';
import type { CallFrame, NodeBlock, NodeLog, NodeReceipt, NodeTx, ParityTrace } from './decode.ts';
import { addressFromTopic, PLANCK_PER_GWEI } from './format.ts';

/** keccak256("Transfer(address,address,uint256)"). */
export const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

/**
 * The same event's topic on a VM64 network (64-byte topics): the 32-byte hash in the high half
 * (go-qrl fork `common.HashToLogTopic`, what its `abi.MakeTopics` filters and `bind.UnpackLog`
 * expect), or in the low half (the fork's own log fixtures, and its `BytesToEventSignatureLogTopic`
 * for a while). Both are taken: a 32-byte hash beside 32 zero bytes names this event either way.
 */
export const TRANSFER_TOPICS_VM64: readonly string[] = [TRANSFER_TOPIC + '0'.repeat(64), '0x' + '0'.repeat(64) + TRANSFER_TOPIC.slice(2)];

const MAX_UINT256 = (1n << 256n) - 1n;

/** What the type rule reads of a transaction: a block's, or one of the node's pool. */
export type TypedTx = Pick<NodeTx, 'to' | 'input' | 'accessListAddresses' | 'accessListKeys'>;

/** Gas every transaction pays before any code runs, for a transaction with empty input. */
function intrinsicGas(tx: TypedTx): number {
  // 21000 base, EIP-2930: 2400 per access-list address, 1900 per storage key. Input bytes add
  // gas too, but this is only asked of transactions with empty input.
  return 21_000 + tx.accessListAddresses * 2_400 + tx.accessListKeys * 1_900;
}

/**
 * The tx type rule:
 * - `contract_create` when `to` is null;
 * - `contract_call` when the input is non-empty, or when code ran (gas used above the
 *   intrinsic gas, which only code execution can cause), or when `to` had code before the
 *   transaction (`targetHasCode`: asked only when neither of the cheaper signs settled it);
 * - `transfer` otherwise.
 */
export function txType<T extends TypedTx>(tx: T, receipt: NodeReceipt | undefined, targetHasCode: (tx: T) => boolean): PosTxType {
  if (tx.to === null) return 'contract_create';
  if (tx.input !== '0x') return 'contract_call';
  if (receipt && receipt.gasUsed > intrinsicGas(tx)) return 'contract_call';
  return targetHasCode(tx) ? 'contract_call' : 'transfer';
}

/** Whether the type of `tx` needs to know if its target has code (see `txType`). */
export function needsCodeCheck(tx: NodeTx, receipt: NodeReceipt | undefined): boolean {
  return tx.to !== null && tx.input === '0x' && !(receipt && receipt.gasUsed > intrinsicGas(tx));
}

/** Frame types that move value from `from` to `to` (DELEGATECALL/CALLCODE/STATICCALL do not). */
const VALUE_FRAMES = new Set(['CALL', 'CREATE', 'CREATE2', 'SELFDESTRUCT']);

export interface TraceResult {
  internal: InternalTransfer[];
  /** Contracts created by this transaction's frames (below the top level, with or without value), with their creator. */
  creations: ContractCreation[];
}

/**
 * Internal transfers of one transaction from its `callTracer` frame: frames below the top level
 * that move value and did not fail, nor sit below a frame that failed (a reverted frame's value
 * moves are undone). A reverted transaction moves nothing.
 */
export function fromCallFrame(top: CallFrame, status: 0 | 1 | null): TraceResult {
  const result: TraceResult = { internal: [], creations: [] };
  const walk = (frame: CallFrame, path: number[], failedAbove: boolean) => {
    frame.calls.forEach((child, i) => {
      const childPath = [...path, i];
      const failed = failedAbove || child.error !== null;
      if (!failed && child.from !== null && child.to !== null) {
        if (child.value > 0n && VALUE_FRAMES.has(child.type)) {
          result.internal.push({ traceAddress: childPath.join('.'), callType: child.type.toLowerCase(), from: child.from, to: child.to, value: child.value });
        }
        if (child.type === 'CREATE' || child.type === 'CREATE2') result.creations.push({ traceAddress: childPath.join('.'), address: child.to, creator: child.from });
      }
      walk(child, childPath, failed);
    });
  };
  walk(top, [], status === 0 || top.error !== null);
  return result;
}

/** The same from parity-style traces of one transaction (`trace_block` entries sharing a tx). */
export function fromParityTraces(traces: ParityTrace[], status: 0 | 1 | null): TraceResult {
  const result: TraceResult = { internal: [], creations: [] };
  const failedPaths = new Set(traces.filter((t) => t.error !== null).map((t) => t.traceAddress.join('.')));
  const failed = (path: number[]) => {
    for (let n = 0; n <= path.length; n++) if (failedPaths.has(path.slice(0, n).join('.'))) return true;
    return false;
  };
  for (const trace of traces) {
    if (trace.traceAddress.length === 0 || status === 0 || failed(trace.traceAddress)) continue;
    if (trace.from === null || trace.to === null) continue;
    const callType = trace.type === 'call' ? (trace.callType ?? 'call') : trace.type === 'create' ? (trace.callType ?? 'create') : 'selfdestruct';
    if (trace.type === 'create') result.creations.push({ traceAddress: trace.traceAddress.join('.'), address: trace.to, creator: trace.from });
    if (trace.value > 0n && (callType === 'call' || callType === 'create' || callType === 'create2' || callType === 'selfdestruct')) {
      result.internal.push({ traceAddress: trace.traceAddress.join('.'), callType, from: trace.from, to: trace.to, value: trace.value });
    }
  }
  return result;
}

/**
 * ERC-20 transfers: `Transfer(address indexed, address indexed, uint256)` logs, which have exactly
 * three topics and one ABI word of data. ERC-721 uses the same signature with the token id as a
 * fourth topic and is left out by that rule. `width` is the network's address width:
 * - 20 bytes: 32-byte topics (the address in the low 20 bytes, the rest zero) and a 32-byte word;
 * - 64 bytes (VM64): 64-byte topics that are the addresses themselves (go-qrl fork
 *   `common.AddressToLogTopic`) and a 64-byte word holding the amount right-aligned.
 * A log of that signature whose topics are not addresses of the width, or whose amount does not fit
 * a uint256, is not an ERC-20 transfer and is left out (nothing is cut to fit).
 */
export function tokenTransfersFromLogs(logs: NodeLog[], width: number): TokenTransfer[] {
  const vm64 = width === 64;
  const wordChars = 2 + (vm64 ? 128 : 64);
  const transfers: TokenTransfer[] = [];
  for (const log of logs) {
    if (log.removed || log.topics.length !== 3 || log.data.length !== wordChars) continue;
    if (vm64 ? !TRANSFER_TOPICS_VM64.includes(log.topics[0]!) : log.topics[0] !== TRANSFER_TOPIC) continue;
    const from = addressFromTopic(log.topics[1]!, width);
    const to = addressFromTopic(log.topics[2]!, width);
    const amount = BigInt(log.data);
    if (from === null || to === null || amount > MAX_UINT256) continue;
    transfers.push({ logIndex: log.logIndex, contract: log.address, from, to, amount });
  }
  return transfers;
}

/** What the node charges per gas when a receipt does not say (pre-London receipts, some nodes). */
export function effectiveGasPrice(tx: NodeTx, receipt: NodeReceipt | undefined, baseFee: bigint | null): bigint | null {
  if (receipt?.effectiveGasPrice != null) return receipt.effectiveGasPrice;
  if (tx.maxFeePerGas !== null && tx.maxPriorityFeePerGas !== null && baseFee !== null) {
    const capped = baseFee + tx.maxPriorityFeePerGas;
    return capped < tx.maxFeePerGas ? capped : tx.maxFeePerGas;
  }
  return tx.gasPrice;
}

export interface BlockInputs {
  block: NodeBlock;
  /** Receipts by transaction hash. */
  receipts: Map<string, NodeReceipt>;
  /** Trace results by transaction hash; absent when the node offers no traces. */
  traces: Map<string, TraceResult> | null;
  targetHasCode: (tx: NodeTx) => boolean;
  allocations?: GenesisAllocation[];
  tokens?: TokenInfo[];
  /** Dead letters found while fetching (receipts, traces). */
  deadLetters?: DeadLetterItem[];
  /** Bytes in the network's addresses (20 unless told; token transfer logs follow it). */
  addressBytes?: number;
}

/** Builds the canonical block. Fees: fee = gasUsed × effectiveGasPrice; burned = gasUsed × baseFee. */
export function normaliseBlock(inputs: BlockInputs): CanonicalBlock {
  const { header } = inputs.block;
  const deadLetters: DeadLetterItem[] = [...(inputs.deadLetters ?? [])];

  const transactions: CanonicalTx[] = inputs.block.transactions.map((tx) => {
    const receipt = inputs.receipts.get(tx.hash);
    const status = receipt?.status ?? null;
    const gasUsed = receipt?.gasUsed ?? null;
    const price = receipt ? effectiveGasPrice(tx, receipt, header.baseFeePerGas) : null;
    const trace = inputs.traces?.get(tx.hash);
    return emptyTx({
      hash: tx.hash,
      index: tx.index,
      type: txType(tx, receipt, inputs.targetHasCode),
      typeEvm: tx.type,
      from: tx.from,
      to: tx.to,
      value: tx.value,
      fee: gasUsed !== null && price !== null ? BigInt(gasUsed) * price : 0n,
      nonce: tx.nonce,
      gas: tx.gas,
      gasUsed,
      gasPrice: tx.gasPrice,
      effectiveGasPrice: price,
      maxFeePerGas: tx.maxFeePerGas,
      maxPriorityFeePerGas: tx.maxPriorityFeePerGas,
      burned: gasUsed !== null && header.baseFeePerGas !== null ? BigInt(gasUsed) * header.baseFeePerGas : 0n,
      status,
      // Nodes report the would-be address of a failed creation too; nothing was created.
      contractAddress: status === 0 ? null : (receipt?.contractAddress ?? null),
      input: tx.input,
      internal: trace?.internal ?? [],
      creations: trace?.creations ?? [],
      tokenTransfers: receipt && status !== 0 ? tokenTransfersFromLogs(receipt.logs, inputs.addressBytes ?? 20) : [],
    });
  });

  return emptyBlock({
    chain: 'pos',
    height: header.number,
    hash: header.hash,
    parentHash: header.parentHash,
    timestamp: header.timestamp,
    size: header.size,
    miner: header.miner,
    gasUsed: header.gasUsed,
    gasLimit: header.gasLimit,
    baseFeePerGas: header.baseFeePerGas,
    transactions,
    withdrawals: inputs.block.withdrawals.map((w) => ({
      index: w.index,
      validatorIndex: w.validatorIndex,
      address: w.address,
      amount: w.amountGwei * PLANCK_PER_GWEI,
    })),
    allocations: inputs.allocations ?? [],
    tokens: inputs.tokens ?? [],
    deadLetters,
  });
}
