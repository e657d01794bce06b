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
import { BlockGoneError, readReceipts, readTraces, type NodeModes, type ReceiptsMode, type TracesMode } from './block-parts.ts';
import { CodeKnowledge } from './code-knowledge.ts';
import { decodeBlock, type NodeBlock, type NodeReceipt } from './decode.ts';
import { InconsistentBlockError, isRetryable, NodeDataError } from './errors.ts';
import { message } from '../node-errors.ts';
import { createNodePacer, nodeBlocks } from '../node-stream.ts';
import { object, smallQuantity } from './format.ts';
import { genesisAllocations } from './genesis.ts';
import { addressBytesOf, blockHashAt, debugTraceBlockByNumber, getBlockByNumber, getBalance, getBlockReceipts, latestHead, traceBlock, type EvmNode } from './methods.ts';
import { normaliseBlock, type TraceResult } from './normalise.ts';
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
  /** Stop, rather than go on without internal transfers, if the node stops serving its tracer. */
  tracesRequired?: boolean;
  /** Told every head the source reads from the node. */
  onHead?: (head: { height: number; hash: string }) => void;
}

export type { ReceiptsMode, TracesMode };

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

const MAX_CACHE = 500_000;

export function createEvmRpcSource(options: EvmRpcSourceOptions): EvmRpcSource {
  const { node } = options;
  const log = options.logger;
  const follow = options.follow ?? false;
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const prefetch = Math.max(1, options.prefetch ?? 32);
  const modes: NodeModes = { receipts: options.receipts, traces: options.traces, tracesRequired: options.tracesRequired };

  // Order-dependent state, changed only by `finish` (in height order) and reset on reorgs.
  const seenTokens = new Map<string, number>(); // contract -> height it was first yielded at (-1: known before)
  for (const contract of options.knownTokens ?? []) seenTokens.set(contract, -1);
  const created = new Map<string, { creator: string; tx: string; height: number }>();
  let highestFinished = -1;

  const code = new CodeKnowledge();
  const tokenMetadata = new Map<string, Promise<TokenMetadata>>();

  function forgetFrom(height: number): void {
    for (const [contract, h] of seenTokens) if (h >= height) seenTokens.delete(contract);
    for (const [contract, c] of created) if (c.height >= height) created.delete(contract);
    code.forget();
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

  async function fetchOnce(height: number): Promise<Fetched | null> {
    const traceCall = modes.traces === undefined || modes.traces === 'debug' ? debugTraceBlockByNumber(node, height) : modes.traces === 'parity' ? traceBlock(node, height) : null;
    const receiptCall = modes.receipts === 'tx' ? null : getBlockReceipts(node, height);
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
      block = decodeBlock(rawBlock.value, addressBytesOf(node));
      if (block.header.number !== height) throw new NodeDataError('block.number', `asked for ${height}, got ${block.header.number}`);
      receipts = await readReceipts(node, height, block, receiptCall === null ? null : rawReceipts, modes, log);
      traces = await readTraces(node, height, block, receipts, traceCall === null ? null : rawTraces, modes, log);
    } catch (error) {
      if (!(error instanceof NodeDataError)) throw error;
      return { item: { kind: 'undecodable', chain: 'pos', height, error: error.message, payload: error.payload ?? rawBlock.value }, creations: [], tokenContracts: new Map() };
    }
    const contractTxs = await code.targets(node, height, block, receipts, traces);
    const allocations = height === 0 ? await genesisAllocations(node, options.genesisAlloc ?? []) : [];
    const canonical = normaliseBlock({ block, receipts, traces, targetHasCode: (tx) => contractTxs.has(tx.hash), allocations, addressBytes: addressBytesOf(node) });

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
      code.created(c.address, block.height);
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
      onHead: options.onHead,
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
    capabilities: () => ({ receipts: modes.receipts, traces: modes.traces }),
    close() {
      pacer.close();
    },
  };
}
