/**
 * Decoders of the node's JSON objects (blocks, transactions, receipts, logs, withdrawals, call
 * traces) into typed records, built on the formatters in ./format.ts. They validate every field
 * they read and ignore the rest. Each throws `NodeDataError` on the first field that does not fit.
 * `width` is the node's address width in bytes (20, or 64 on go-qrllib's 64-byte networks): every
 * address read must have it, and log topics have the matching ABI word (format.ts `topicBytes`).
 */
import { NodeDataError } from './errors.ts';
import {
  address,
  array,
  data,
  hash,
  object,
  optionalAddress,
  optionalQuantity,
  optionalSmallQuantity,
  quantity,
  smallQuantity,
  topic,
  topicBytes,
  type Json,
} from './format.ts';

export interface NodeBlockHeader {
  number: number;
  hash: string;
  parentHash: string;
  timestamp: number;
  size: number;
  miner: string | null;
  gasUsed: number | null;
  gasLimit: number | null;
  baseFeePerGas: bigint | null;
}

export interface NodeTx {
  hash: string;
  index: number;
  from: string;
  to: string | null;
  value: bigint;
  nonce: number;
  gas: number;
  input: `0x${string}`;
  type: number;
  gasPrice: bigint | null;
  maxFeePerGas: bigint | null;
  maxPriorityFeePerGas: bigint | null;
  /** Addresses and storage keys of the EIP-2930 access list (they add to intrinsic gas). */
  accessListAddresses: number;
  accessListKeys: number;
}

export interface NodeLog {
  address: string;
  topics: string[];
  data: `0x${string}`;
  logIndex: number;
  removed: boolean;
}

export interface NodeReceipt {
  transactionHash: string;
  transactionIndex: number;
  blockHash: string | null;
  status: 0 | 1;
  gasUsed: number;
  effectiveGasPrice: bigint | null;
  contractAddress: string | null;
  logs: NodeLog[];
}

export interface NodeWithdrawal {
  index: number;
  validatorIndex: number;
  address: string;
  /** Gwei, as the node reports it. */
  amountGwei: bigint;
}

/** A block with its transactions and withdrawals, every field checked. */
export interface NodeBlock {
  header: NodeBlockHeader;
  transactions: NodeTx[];
  withdrawals: NodeWithdrawal[];
}

/** One frame of a `callTracer` trace, reduced to what value accounting needs. */
export interface CallFrame {
  type: string;
  from: string | null;
  to: string | null;
  value: bigint;
  error: string | null;
  calls: CallFrame[];
}

/** One entry of a parity-style `trace_block` answer. */
export interface ParityTrace {
  type: string;
  callType: string | null;
  from: string | null;
  to: string | null;
  value: bigint;
  traceAddress: number[];
  transactionHash: string | null;
  transactionPosition: number | null;
  error: string | null;
}

function decodeHeader(raw: unknown, width: number): NodeBlockHeader {
  const block = object(raw, 'block');
  return {
    number: smallQuantity(block.number, 'block.number'),
    hash: hash(block.hash, 'block.hash'),
    parentHash: hash(block.parentHash, 'block.parentHash'),
    timestamp: smallQuantity(block.timestamp, 'block.timestamp'),
    size: optionalSmallQuantity(block.size, 'block.size') ?? 0,
    miner: optionalAddress(block.miner ?? block.coinbase, 'block.miner', width),
    gasUsed: optionalSmallQuantity(block.gasUsed, 'block.gasUsed'),
    gasLimit: optionalSmallQuantity(block.gasLimit, 'block.gasLimit'),
    baseFeePerGas: optionalQuantity(block.baseFeePerGas, 'block.baseFeePerGas'),
  };
}

/**
 * Decodes a block fetched with full transactions. A transaction or withdrawal that does not fit
 * makes the whole block bad (a NodeDataError naming the field): each moves value, so none is left out.
 */
export function decodeBlock(raw: unknown, width: number): NodeBlock {
  const header = decodeHeader(raw, width);
  const block = raw as Json;
  const rawTxs = block.transactions === undefined ? [] : array(block.transactions, 'block.transactions');
  const transactions = rawTxs.map((rawTx, position) => {
    const tx = decodeTx(rawTx, `transactions[${position}]`, width);
    if (tx.index !== position) throw new NodeDataError(`transactions[${position}].transactionIndex`, `is ${tx.index}`, rawTx);
    return tx;
  });
  const rawWithdrawals = block.withdrawals === undefined || block.withdrawals === null ? [] : array(block.withdrawals, 'block.withdrawals');
  const withdrawals = rawWithdrawals.map((rawWithdrawal, position): NodeWithdrawal => {
    const w = object(rawWithdrawal, `withdrawals[${position}]`);
    return {
      index: smallQuantity(w.index, `withdrawals[${position}].index`),
      validatorIndex: smallQuantity(w.validatorIndex, `withdrawals[${position}].validatorIndex`),
      address: address(w.address, `withdrawals[${position}].address`, width),
      amountGwei: quantity(w.amount, `withdrawals[${position}].amount`),
    };
  });
  return { header, transactions, withdrawals };
}

function decodeTx(raw: unknown, path: string, width: number): NodeTx {
  const tx = object(raw, path);
  const hashValue = hash(tx.hash, `${path}.hash`);
  return { hash: hashValue, index: smallQuantity(tx.transactionIndex, `${path}.transactionIndex`), ...txBody(tx, path, width) };
}

/** A transaction's fields besides its hash and position in the block. */
function txBody(tx: Json, path: string, width: number): Omit<NodeTx, 'hash' | 'index'> {
  let accessListAddresses = 0;
  let accessListKeys = 0;
  if (tx.accessList !== undefined && tx.accessList !== null) {
    for (const [i, entry] of array(tx.accessList, `${path}.accessList`).entries()) {
      const item = object(entry, `${path}.accessList[${i}]`);
      accessListAddresses++;
      accessListKeys += array(item.storageKeys ?? [], `${path}.accessList[${i}].storageKeys`).length;
    }
  }
  return {
    from: address(tx.from, `${path}.from`, width),
    to: optionalAddress(tx.to, `${path}.to`, width),
    value: quantity(tx.value, `${path}.value`),
    nonce: smallQuantity(tx.nonce, `${path}.nonce`),
    gas: smallQuantity(tx.gas, `${path}.gas`),
    input: data(tx.input ?? tx.data ?? '0x', `${path}.input`),
    type: optionalSmallQuantity(tx.type, `${path}.type`) ?? 0,
    gasPrice: optionalQuantity(tx.gasPrice, `${path}.gasPrice`),
    maxFeePerGas: optionalQuantity(tx.maxFeePerGas, `${path}.maxFeePerGas`),
    maxPriorityFeePerGas: optionalQuantity(tx.maxPriorityFeePerGas, `${path}.maxPriorityFeePerGas`),
    accessListAddresses,
    accessListKeys,
  };
}

/** A transaction of the node's pool: in no block yet, so without a position. */
export type NodePoolTx = Omit<NodeTx, 'index'> & { pool: 'pending' | 'queued' };

/**
 * A `txpool_content` answer: `pending` and `queued`, each keyed by sender and nonce, flattened in
 * that order (senders and nonces as the node lists them). A transaction that does not fit throws,
 * naming its path (`pending.<sender>.<nonce>.value`): the caller decides what a bad pool means.
 */
export function decodeTxpoolContent(raw: unknown, width: number): NodePoolTx[] {
  const content = object(raw, 'txpool_content');
  const out: NodePoolTx[] = [];
  for (const pool of ['pending', 'queued'] as const) {
    if (content[pool] === undefined || content[pool] === null) continue;
    for (const [sender, byNonce] of Object.entries(object(content[pool], pool))) {
      for (const [nonce, rawTx] of Object.entries(object(byNonce, `${pool}.${sender}`))) {
        const path = `${pool}.${sender}.${nonce}`;
        const tx = object(rawTx, path);
        out.push({ hash: hash(tx.hash, `${path}.hash`), ...txBody(tx, path, width), pool });
      }
    }
  }
  return out;
}

export function decodeReceipt(raw: unknown, path: string, width: number): NodeReceipt {
  const receipt = object(raw, path);
  // A receipt without a status is not a success: every block of the pos chain is post-Byzantium.
  if (receipt.status === undefined || receipt.status === null) throw new NodeDataError(`${path}.status`, 'missing', receipt.status);
  const status = smallQuantity(receipt.status, `${path}.status`);
  if (status !== 0 && status !== 1) throw new NodeDataError(`${path}.status`, 'expected 0x0 or 0x1', receipt.status);
  return {
    transactionHash: hash(receipt.transactionHash, `${path}.transactionHash`),
    transactionIndex: smallQuantity(receipt.transactionIndex, `${path}.transactionIndex`),
    blockHash: receipt.blockHash === undefined || receipt.blockHash === null ? null : hash(receipt.blockHash, `${path}.blockHash`),
    status,
    gasUsed: smallQuantity(receipt.gasUsed, `${path}.gasUsed`),
    effectiveGasPrice: optionalQuantity(receipt.effectiveGasPrice, `${path}.effectiveGasPrice`),
    contractAddress: optionalAddress(receipt.contractAddress, `${path}.contractAddress`, width),
    logs: array(receipt.logs ?? [], `${path}.logs`).map((rawLog, i) => decodeLog(rawLog, `${path}.logs[${i}]`, width)),
  };
}

function decodeLog(raw: unknown, path: string, width: number): NodeLog {
  const log = object(raw, path);
  const bytes = topicBytes(width);
  return {
    address: address(log.address, `${path}.address`, width),
    topics: array(log.topics, `${path}.topics`).map((t, i) => topic(t, `${path}.topics[${i}]`, bytes)),
    data: data(log.data, `${path}.data`),
    logIndex: smallQuantity(log.logIndex, `${path}.logIndex`),
    removed: log.removed === true,
  };
}

/**
 * Decodes `debug_traceBlockByNumber(n, {tracer: "callTracer"})`: one `{txHash?, result}` per
 * transaction, in block order. An entry with `error` instead of `result` (the tracer failed on
 * that transaction) decodes to null.
 */
export function decodeCallTraces(raw: unknown, width: number): { txHash: string | null; frame: CallFrame | null; error: string | null }[] {
  return array(raw, 'traces').map((entry, i) => {
    const item = object(entry, `traces[${i}]`);
    const txHash = item.txHash === undefined || item.txHash === null ? null : hash(item.txHash, `traces[${i}].txHash`);
    if (item.result === undefined || item.result === null) {
      return { txHash, frame: null, error: typeof item.error === 'string' ? item.error : 'no result' };
    }
    return { txHash, frame: decodeFrame(item.result, `traces[${i}].result`, width), error: null };
  });
}

function decodeFrame(raw: unknown, path: string, width: number): CallFrame {
  const frame = object(raw, path);
  if (typeof frame.type !== 'string') throw new NodeDataError(`${path}.type`, 'expected a string', frame.type);
  return {
    type: frame.type.toUpperCase(),
    from: optionalAddress(frame.from, `${path}.from`, width),
    // A failed CREATE has no `to`; a frame to the zero address is still a frame.
    to: optionalAddress(frame.to, `${path}.to`, width),
    value: optionalQuantity(frame.value, `${path}.value`) ?? 0n,
    error: typeof frame.error === 'string' ? frame.error : null,
    calls: frame.calls === undefined || frame.calls === null ? [] : array(frame.calls, `${path}.calls`).map((c, i) => decodeFrame(c, `${path}.calls[${i}]`, width)),
  };
}

/** Decodes `trace_block` (OpenEthereum/Erigon/Nethermind/reth/Anvil). Reward entries are skipped. */
export function decodeParityTraces(raw: unknown, width: number): ParityTrace[] {
  const traces: ParityTrace[] = [];
  for (const [i, entry] of array(raw, 'traces').entries()) {
    const path = `traces[${i}]`;
    const trace = object(entry, path);
    if (typeof trace.type !== 'string') throw new NodeDataError(`${path}.type`, 'expected a string', trace.type);
    const type = trace.type.toLowerCase();
    if (type === 'reward') continue;
    const action = object(trace.action, `${path}.action`);
    const result = trace.result === undefined || trace.result === null ? null : object(trace.result, `${path}.result`);
    let from: string | null;
    let to: string | null;
    let value: bigint;
    let callType: string | null = null;
    if (type === 'suicide' || type === 'selfdestruct') {
      from = optionalAddress(action.address, `${path}.action.address`, width);
      to = optionalAddress(action.refundAddress, `${path}.action.refundAddress`, width);
      value = optionalQuantity(action.balance, `${path}.action.balance`) ?? 0n;
    } else if (type === 'create') {
      from = optionalAddress(action.from, `${path}.action.from`, width);
      to = result ? optionalAddress(result.address, `${path}.result.address`, width) : null;
      value = optionalQuantity(action.value, `${path}.action.value`) ?? 0n;
      callType = typeof action.creationMethod === 'string' ? action.creationMethod.toLowerCase() : 'create';
    } else {
      from = optionalAddress(action.from, `${path}.action.from`, width);
      to = optionalAddress(action.to, `${path}.action.to`, width);
      value = optionalQuantity(action.value, `${path}.action.value`) ?? 0n;
      callType = typeof action.callType === 'string' ? action.callType.toLowerCase() : 'call';
    }
    traces.push({
      type,
      callType,
      from,
      to,
      value,
      traceAddress: array(trace.traceAddress, `${path}.traceAddress`).map((n, j) => {
        if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) throw new NodeDataError(`${path}.traceAddress[${j}]`, 'expected an index', n);
        return n;
      }),
      transactionHash: trace.transactionHash === undefined || trace.transactionHash === null ? null : hash(trace.transactionHash, `${path}.transactionHash`),
      transactionPosition: optionalSmallQuantity(trace.transactionPosition, `${path}.transactionPosition`),
      error: typeof trace.error === 'string' ? trace.error : null,
    });
  }
  return traces;
}

