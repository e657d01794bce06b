/**
 * The parts of a pos block besides the block itself: its receipts and its call traces, each read
 * from the answer of the call made with the block (one HTTP request carries all three) or asked
 * again, with the fallbacks a node needs (receipts per transaction where it lacks
 * getBlockReceipts; trace_block where it lacks debug_traceBlockByNumber; neither: no internal
 * transfers, said once, or an error where the run requires them). What the node turned out to offer
 * is kept in `NodeModes`.
 */
import type { Logger } from 'pino';
import { decodeCallTraces, decodeParityTraces, decodeReceipt, type NodeBlock, type NodeReceipt, type NodeTx, type ParityTrace } from './decode.ts';
import { InconsistentBlockError, isRetryable, NodeDataError, RpcError, RpcMethodNotFoundError } from './errors.ts';
import { message } from '../node-errors.ts';
import { array } from './format.ts';
import { addressBytesOf, debugTraceBlockByNumber, getTransactionReceipt, traceBlock, type EvmNode } from './methods.ts';
import { fromCallFrame, fromParityTraces, type TraceResult } from './normalise.ts';

export type ReceiptsMode = 'block' | 'tx';
export type TracesMode = 'debug' | 'parity' | 'none';

/** What the node offers, learnt from its first answers (or set by the caller). */
export interface NodeModes {
  receipts: ReceiptsMode | undefined;
  traces: TracesMode | undefined;
  /** The run needs internal transfers: a tracer that goes away stops it instead of leaving a hole. */
  tracesRequired?: boolean;
}

/** The node has no block at a height it had a moment ago (its chain got shorter). */
export class BlockGoneError extends RpcError {
  constructor(height: number) {
    super(`the node has no block ${height}`, { retryable: true });
  }
}

/**
 * Every transaction's receipt, from the block call's answer (`first`, null when the node has none)
 * and per transaction for what it lacked; a receipt that does not decode, or a final failure, makes
 * the block bad (NodeDataError).
 */
export async function readReceipts(node: EvmNode, height: number, block: NodeBlock, first: PromiseSettledResult<unknown> | null, modes: NodeModes, log?: Logger): Promise<Map<string, NodeReceipt>> {
const rawReceipts = first;
  const receipts = new Map<string, NodeReceipt>();
  const txHashes = new Set(block.transactions.map((tx) => tx.hash));
  const accept = (receipt: NodeReceipt) => {
    if (receipt.blockHash !== null && receipt.blockHash !== block.header.hash) {
      throw new InconsistentBlockError(`receipts of block ${height} belong to ${receipt.blockHash}, not ${block.header.hash}`);
    }
    if (txHashes.has(receipt.transactionHash)) receipts.set(receipt.transactionHash, receipt);
  };
  if (rawReceipts?.status === 'rejected') {
    if (rawReceipts.reason instanceof RpcMethodNotFoundError) {
      if (modes.receipts !== 'tx') log?.info('the node has no getBlockReceipts: reading receipts per transaction');
      modes.receipts = 'tx';
    } else if (isRetryable(rawReceipts.reason)) {
      throw rawReceipts.reason;
    } else {
      throw new NodeDataError('receipts', message(rawReceipts.reason));
    }
  } else if (rawReceipts?.status === 'fulfilled') {
    modes.receipts ??= 'block';
    if (rawReceipts.value === null) throw new BlockGoneError(height);
    array(rawReceipts.value, 'receipts').forEach((raw, i) => accept(decodeReceipt(raw, `receipts[${i}]`, addressBytesOf(node))));
  }
  // Per transaction: on nodes without block receipts, and for any receipt the block call lacked.
  const missing = block.transactions.filter((tx) => !receipts.has(tx.hash));
  if (missing.length > 0) {
    const answers = await Promise.allSettled(missing.map((tx) => getTransactionReceipt(node, tx.hash)));
    missing.forEach((tx, i) => {
      const answer = answers[i]!;
      if (answer.status === 'rejected') {
        if (isRetryable(answer.reason)) throw answer.reason;
        throw new NodeDataError(`receipt(${tx.hash})`, message(answer.reason));
      } else if (answer.value === null) {
        // A mined transaction without a receipt: the node's chain moved.
        throw new InconsistentBlockError(`no receipt for ${tx.hash} of block ${height}`);
      } else {
        accept(decodeReceipt(answer.value, `receipt(${tx.hash})`, addressBytesOf(node)));
      }
    });
  }
  return receipts;
}

/**
 * The block's internal transfers per transaction (null when the node offers no tracer), from the
 * first call's answer or by asking again with the next tracer; a trace that fails or does not decode
 * makes the block bad (NodeDataError).
 */
export async function readTraces(node: EvmNode, height: number, block: NodeBlock, receipts: Map<string, NodeReceipt>, first: PromiseSettledResult<unknown> | null, modes: NodeModes, log?: Logger): Promise<Map<string, TraceResult> | null> {
  let answer: PromiseSettledResult<unknown> | null = first;
  let mode = modes.traces ?? 'debug';
  let value: unknown;
  for (;;) {
    if (mode === 'none') return null;
    const settled: PromiseSettledResult<unknown> =
      answer ?? (await Promise.allSettled([mode === 'debug' ? debugTraceBlockByNumber(node, height) : traceBlock(node, height)]))[0]!;
    answer = null;
    if (settled.status === 'fulfilled') {
      value = settled.value;
      break;
    }
    if (!(settled.reason instanceof RpcMethodNotFoundError)) {
      if (isRetryable(settled.reason)) throw settled.reason;
      throw new NodeDataError('traces', message(settled.reason));
    }
    mode = mode === 'debug' ? 'parity' : 'none';
    if (mode === 'none' && modes.tracesRequired) {
      throw new RpcError(`block ${height}: the node no longer serves a tracer (debug_traceBlockByNumber or trace_block); internal transfers would be missing from here on`, { retryable: false });
    }
    if (mode === 'none' && modes.traces !== 'none') {
      log?.warn('the node offers neither debug_traceBlockByNumber nor trace_block: internal transfers will not be indexed, and balances of contracts that send value will be wrong');
    }
    modes.traces = mode;
  }
  modes.traces ??= mode;
  const status = (tx: NodeTx) => receipts.get(tx.hash)?.status ?? null;
  const results = new Map<string, TraceResult>();
  if (mode === 'debug') {
    const traces = decodeCallTraces(value, addressBytesOf(node));
    const txCount = block.transactions.length;
    if (traces.length !== txCount) throw new InconsistentBlockError(`block ${height} has ${txCount} transactions but ${traces.length} traces`);
    for (const tx of block.transactions) {
      const trace = traces[tx.index]!;
      if (trace.txHash !== null && trace.txHash !== tx.hash) throw new InconsistentBlockError(`trace ${tx.index} of block ${height} is of ${trace.txHash}, not ${tx.hash}`);
      if (trace.frame === null) throw new NodeDataError(`traces[${tx.index}]`, `the tracer failed: ${trace.error}`);
      results.set(tx.hash, fromCallFrame(trace.frame, status(tx)));
    }
  } else {
    const byTx = new Map<number, ParityTrace[]>();
    for (const trace of decodeParityTraces(value, addressBytesOf(node))) {
      const position = trace.transactionPosition ?? block.transactions.find((tx) => tx.hash === trace.transactionHash)?.index;
      if (position === undefined) continue;
      const list = byTx.get(position) ?? [];
      list.push(trace);
      byTx.set(position, list);
    }
    for (const tx of block.transactions) results.set(tx.hash, fromParityTraces(byTx.get(tx.index) ?? [], status(tx)));
  }
  return results;
}
