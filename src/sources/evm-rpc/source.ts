/**
 * The pos chain's BlockSource over an EVM JSON-RPC node (QRL 2.0, go-zond, or any EVM node).
 *
 * Per block it reads, in one batched round trip, the block with its transactions, the block's
 * receipts and its call traces; then, in a second, what the first left open (receipts one by one
 * where the node lacks eth_getBlockReceipts, `getCode` for empty-input calls whose type is still
 * open, and token metadata for token contracts not seen before). Up to `prefetch` blocks are in
 * flight at once; they are yielded in height order.
 *
 * Work that depends on order (which token is new, which contracts exist) happens when a block is
 * yielded, not when it is fetched. The pipeline's reorg protocol (see BlockSource) is served by
 * `hashAt` and `blockAt`; the stream, with the reorgs it shows the pipeline, and the waits for a
 * node that is down are the ones the pow source uses (../node-stream.ts).
 */
import type { Logger } from 'pino';
import type { BlockSource, CanonicalBlock, GenesisAllocation, SourceItem, TokenInfo } from '../../chain/model.ts';
import {
  decodeBlock,
  decodeCallTraces,
  decodeParityTraces,
  decodeReceipt,
  type NodeBlock,
  type NodeReceipt,
  type NodeTx,
  type ParityTrace,
} from './decode.ts';
import { InconsistentBlockError, isRetryable, NodeDataError, RpcError, RpcMethodNotFoundError } from './errors.ts';
import { message } from '../node-errors.ts';
import { createNodePacer, nodeBlocks } from '../node-stream.ts';
import { array, object, smallQuantity } from './format.ts';
import { genesisAllocations } from './genesis.ts';
import {
  blockHashAt,
  debugTraceBlockByNumber,
  getBlockByNumber,
  getBalance,
  getBlockReceipts,
  getCode,
  getTransactionReceipt,
  latestHead,
  traceBlock,
  type EvmNode,
} from './methods.ts';
import { fromCallFrame, fromParityTraces, needsCodeCheck, normaliseBlock, type TraceResult } from './normalise.ts';
import { fetchTokenMetadata, type TokenMetadata } from './tokens.ts';

export interface EvmRpcSourceOptions {
  node: EvmNode;
  /** Keep following the head after reaching it (default: stop at the head seen at start). */
  follow?: boolean;
  /** Stop after this height. */
  toHeight?: number;
  /** How often to ask for the head while following. Default 1000 ms. */
  pollIntervalMs?: number;
  /** Blocks fetched ahead of the one being yielded. Default 32. */
  prefetch?: number;
  /** Allocations of the genesis file (`--genesis`), checked against the node at block 0. */
  genesisAlloc?: GenesisAllocation[];
  /** Token contracts already in the store (their TokenInfo is not sent again). */
  knownTokens?: Iterable<string>;
  logger?: Logger;
  /** Skip detection and use these (tests; nodes whose detection misleads). */
  receipts?: ReceiptsMode;
  traces?: TracesMode;
}

export type ReceiptsMode = 'block' | 'tx';
export type TracesMode = 'debug' | 'parity' | 'none';

export interface EvmRpcSource extends BlockSource {
  /** What the node turned out to offer (undefined until the first block told). */
  capabilities(): { receipts: ReceiptsMode | undefined; traces: TracesMode | undefined };
  /** Stops fetching: the iterator ends at its next step. */
  close(): void;
}

/** A block fetched and decoded, with what the ordered stage needs besides the canonical block. */
interface Fetched {
  item: SourceItem;
  /** Contracts created in the block (receipts and internal creations), in tx order. */
  creations: { address: string; creator: string; tx: string }[];
  /** Token contracts with transfers in the block, with their metadata. */
  tokenContracts: Map<string, TokenMetadata>;
}

/** The node has no block at a height it had a moment ago (its chain got shorter). */
class BlockGoneError extends RpcError {
  constructor(height: number) {
    super(`the node has no block ${height}`, { retryable: true });
  }
}

const MAX_CACHE = 500_000;

export function createEvmRpcSource(options: EvmRpcSourceOptions): EvmRpcSource {
  const { node } = options;
  const log = options.logger;
  const follow = options.follow ?? false;
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const prefetch = Math.max(1, options.prefetch ?? 32);
  let receiptsMode: ReceiptsMode | undefined = options.receipts;
  let tracesMode: TracesMode | undefined = options.traces;

  // Order-dependent state, changed only by `finish` (in height order) and reset on reorgs.
  const seenTokens = new Map<string, number>(); // contract -> height it was first yielded at (-1: known before)
  for (const contract of options.knownTokens ?? []) seenTokens.set(contract, -1);
  const created = new Map<string, { creator: string; tx: string; height: number }>();
  let highestFinished = -1;

  // Code knowledge: an address with code at height h has it at every later height, one without
  // code at h had none before. (Pre-Cancun SELFDESTRUCT could break the first; QRL 2.0 started
  // after Cancun.) Cleared on reorgs.
  const codeFrom = new Map<string, number>(); // lowest height known to have code
  const noCodeUntil = new Map<string, number>(); // highest height known to have no code
  const tokenMetadata = new Map<string, Promise<TokenMetadata>>();

  function forgetFrom(height: number): void {
    for (const [contract, h] of seenTokens) if (h >= height) seenTokens.delete(contract);
    for (const [contract, c] of created) if (c.height >= height) created.delete(contract);
    codeFrom.clear();
    noCodeUntil.clear();
  }

  // A block read between a node's writes can be inconsistent; one retry or two settles it quietly.
  const pacer = createNodePacer({
    isRetryable,
    describe: message,
    quiet: (error, attempt) => error instanceof InconsistentBlockError && attempt <= 2,
    log,
  });
  const { patiently } = pacer;

  // ---- fetching one block ------------------------------------------------------------------

  /** Every transaction's receipt; a receipt that does not decode or a final failure makes the block bad (NodeDataError). */
  async function fetchReceipts(height: number, block: NodeBlock, rawReceipts: PromiseSettledResult<unknown> | null): Promise<Map<string, NodeReceipt>> {
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
        if (receiptsMode !== 'tx') log?.info('the node has no getBlockReceipts: reading receipts per transaction');
        receiptsMode = 'tx';
      } else if (isRetryable(rawReceipts.reason)) {
        throw rawReceipts.reason;
      } else {
        throw new NodeDataError('receipts', message(rawReceipts.reason));
      }
    } else if (rawReceipts?.status === 'fulfilled') {
      receiptsMode ??= 'block';
      if (rawReceipts.value === null) throw new BlockGoneError(height);
      array(rawReceipts.value, 'receipts').forEach((raw, i) => accept(decodeReceipt(raw, `receipts[${i}]`)));
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
          accept(decodeReceipt(answer.value, `receipt(${tx.hash})`));
        }
      });
    }
    return receipts;
  }

  /** The block's internal transfers (null when the node offers no tracer); a trace that fails or does not decode makes the block bad. */
  async function fetchTraces(height: number, block: NodeBlock, receipts: Map<string, NodeReceipt>, first: PromiseSettledResult<unknown> | null): Promise<Map<string, TraceResult> | null> {
    let answer: PromiseSettledResult<unknown> | null = first;
    let mode = tracesMode ?? 'debug';
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
      if (mode === 'none' && tracesMode !== 'none') {
        log?.warn('the node offers neither debug_traceBlockByNumber nor trace_block: internal transfers will not be indexed, and balances of contracts that send value will be wrong');
      }
      tracesMode = mode;
    }
    tracesMode ??= mode;
    const status = (tx: NodeTx) => receipts.get(tx.hash)?.status ?? null;
    const results = new Map<string, TraceResult>();
    if (mode === 'debug') {
      const traces = decodeCallTraces(value);
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
      for (const trace of decodeParityTraces(value)) {
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

  /** Which empty-input calls went to an address with code (see `txType`). */
  async function codeTargets(height: number, block: NodeBlock, receipts: Map<string, NodeReceipt>, traces: Map<string, TraceResult> | null): Promise<Set<string>> {
    const withCode = new Set<string>();
    const parent = height - 1;
    // Contracts created earlier in this block count as having code for later transactions.
    const createdBefore = new Map<string, number>();
    for (const tx of block.transactions) {
      const receipt = receipts.get(tx.hash);
      if (receipt?.status === 0) continue;
      if (receipt?.contractAddress) createdBefore.set(receipt.contractAddress, Math.min(createdBefore.get(receipt.contractAddress) ?? Infinity, tx.index));
      for (const c of traces?.get(tx.hash)?.creations ?? []) createdBefore.set(c.address, Math.min(createdBefore.get(c.address) ?? Infinity, tx.index));
    }
    const ask = new Set<string>();
    for (const tx of block.transactions) {
      if (!needsCodeCheck(tx, receipts.get(tx.hash))) continue;
      const to = tx.to!;
      if ((createdBefore.get(to) ?? Infinity) < tx.index) withCode.add(`${tx.hash}`);
      else if ((codeFrom.get(to) ?? Infinity) <= parent) withCode.add(tx.hash);
      else if ((noCodeUntil.get(to) ?? -1) >= parent) continue;
      else ask.add(to);
    }
    if (ask.size > 0 && parent >= 0) {
      const targets = [...ask];
      const codes = await Promise.all(targets.map((a) => getCode(node, a, parent)));
      if (codeFrom.size > MAX_CACHE) codeFrom.clear();
      if (noCodeUntil.size > MAX_CACHE) noCodeUntil.clear();
      targets.forEach((a, i) => {
        if (codes[i] !== '0x') codeFrom.set(a, Math.min(codeFrom.get(a) ?? Infinity, parent));
        else noCodeUntil.set(a, Math.max(noCodeUntil.get(a) ?? -1, parent));
      });
      for (const tx of block.transactions) {
        if (tx.to !== null && ask.has(tx.to) && needsCodeCheck(tx, receipts.get(tx.hash)) && (codeFrom.get(tx.to) ?? Infinity) <= parent) withCode.add(tx.hash);
      }
    }
    return withCode;
  }

  async function fetchOnce(height: number): Promise<Fetched | null> {
    const traceCall = tracesMode === undefined || tracesMode === 'debug' ? debugTraceBlockByNumber(node, height) : tracesMode === 'parity' ? traceBlock(node, height) : null;
    const receiptCall = receiptsMode === 'tx' ? null : getBlockReceipts(node, height);
    // Issued in the same tick: one HTTP request carries all three.
    const [rawBlock, rawReceipts, rawTraces] = await Promise.allSettled([getBlockByNumber(node, height, true), receiptCall, traceCall]);
    if (rawBlock.status === 'rejected') throw rawBlock.reason;
    if (rawBlock.value === null) throw new BlockGoneError(height);
    // Any part that does not decode (header, a transaction, a receipt, a trace) makes the whole block
    // undecodable: the pipeline fetches it again, and stalls the chain here if it stays bad.
    let block: NodeBlock;
    let receipts: Map<string, NodeReceipt>;
    let traces: Map<string, TraceResult> | null;
    try {
      block = decodeBlock(rawBlock.value);
      if (block.header.number !== height) throw new NodeDataError('block.number', `asked for ${height}, got ${block.header.number}`);
      receipts = await fetchReceipts(height, block, receiptCall === null ? null : rawReceipts);
      traces = await fetchTraces(height, block, receipts, traceCall === null ? null : rawTraces);
    } catch (error) {
      if (!(error instanceof NodeDataError)) throw error;
      return { item: { kind: 'undecodable', chain: 'pos', height, error: error.message, payload: error.payload ?? rawBlock.value }, creations: [], tokenContracts: new Map() };
    }
    const contractTxs = await codeTargets(height, block, receipts, traces);
    const allocations = height === 0 ? await genesisAllocations(node, options.genesisAlloc ?? []) : [];
    const canonical = normaliseBlock({ block, receipts, traces, targetHasCode: (tx) => contractTxs.has(tx.hash), allocations });

    const creations: Fetched['creations'] = [];
    for (const tx of canonical.transactions) {
      if (tx.contractAddress) creations.push({ address: tx.contractAddress, creator: tx.from, tx: tx.hash });
      for (const c of traces?.get(tx.hash)?.creations ?? []) creations.push({ ...c, tx: tx.hash });
    }
    const contracts = new Set(canonical.transactions.flatMap((tx) => tx.tokenTransfers.map((t) => t.contract)));
    const tokenContracts = new Map<string, TokenMetadata>();
    await Promise.all(
      [...contracts]
        .filter((contract) => !seenTokens.has(contract))
        .map(async (contract) => {
          let pending = tokenMetadata.get(contract);
          if (!pending) {
            pending = fetchTokenMetadata(node, contract, height);
            tokenMetadata.set(contract, pending);
            // A transient failure is not cached: the next block asks again.
            pending.catch(() => tokenMetadata.delete(contract));
          }
          tokenContracts.set(contract, await pending);
        }),
    );
    return { item: { kind: 'block', block: canonical }, creations, tokenContracts };
  }

  /** Fetches a block, waiting out transient failures; null when the node no longer has it. */
  async function fetchItem(height: number): Promise<Fetched | null> {
    let gone = 0;
    return patiently(`block ${height}`, async () => {
      try {
        return await fetchOnce(height);
      } catch (error) {
        // A vanished block is worth a couple of quick re-reads (a reorg in progress), no more.
        if (error instanceof BlockGoneError && ++gone >= 3) return null;
        throw error;
      }
    });
  }

  /** The ordered stage: token first-sightings and contract creations, in height order. */
  function finish(fetched: Fetched): SourceItem {
    const { item } = fetched;
    if (item.kind !== 'block') return item;
    const block: CanonicalBlock = item.block;
    if (block.height <= highestFinished) forgetFrom(block.height);
    highestFinished = block.height;
    if (created.size > MAX_CACHE) created.clear();
    for (const c of fetched.creations) {
      if (!created.has(c.address)) created.set(c.address, { creator: c.creator, tx: c.tx, height: block.height });
      codeFrom.set(c.address, Math.min(codeFrom.get(c.address) ?? Infinity, block.height));
    }
    const tokens: TokenInfo[] = [];
    for (const [contract, metadata] of fetched.tokenContracts) {
      if (seenTokens.has(contract)) continue;
      seenTokens.set(contract, block.height);
      const origin = created.get(contract);
      tokens.push({ contract, ...metadata, creator: origin?.creator ?? null, createdTx: origin?.tx ?? null });
    }
    block.tokens = tokens;
    return item;
  }

  // ---- the stream ------------------------------------------------------------------------------

  const blocks = (fromHeight: number) =>
    nodeBlocks(fromHeight, {
      pacer,
      head: () => latestHead(node),
      fetch: fetchItem,
      peek: (fetched) => fetched.item,
      finish,
      follow,
      toHeight: options.toHeight,
      pollIntervalMs,
      prefetch,
      log,
    });

  return {
    chain: 'pos',
    name: 'evm-rpc',
    blocks,
    async hashAt(height) {
      return patiently(`hash of block ${height}`, () => blockHashAt(node, height));
    },
    async blockAt(height) {
      const fetched = await fetchItem(height);
      return fetched ? finish(fetched) : null;
    },
    async finalizedHeight() {
      // A node without the `finalized` tag (pre-merge, some dev nodes) gives no floor: the reorg limit alone applies.
      try {
        const raw = await patiently('finalized block', () => getBlockByNumber(node, 'finalized', false));
        return raw === null ? null : smallQuantity(object(raw, 'finalized block').number, 'finalized block.number');
      } catch (error) {
        if (isRetryable(error)) throw error;
        log?.debug({ err: message(error) }, 'the node names no finalized block');
        return null;
      }
    },
    async openingBalances(addresses, height) {
      // A node without the state of `height` (not an archive node) fails here, and the run stops:
      // a balance without its opening would be a wrong figure.
      try {
        const balances = await Promise.all(addresses.map((address) => patiently(`balance at ${height}`, () => getBalance(node, address, height))));
        return new Map(addresses.map((address, i) => [address, balances[i]!]));
      } catch (error) {
        throw new Error(`the node cannot tell balances at block ${height}, needed to open the addresses first seen above it (an archive node keeps them; or index from 0): ${message(error)}`, { cause: error });
      }
    },
    capabilities: () => ({ receipts: receiptsMode, traces: tracesMode }),
    close() {
      pacer.close();
    },
  };
}
