/**
 * One function per JSON-RPC method, named after it. The namespace (`qrl_`, `zond_`, `eth_`) is a
 * property of the node; `debug_` and `trace_` are the same everywhere. Simple answers are
 * validated here; blocks, receipts and traces are returned raw, because the caller decodes them
 * part by part (a bad part makes the block undecodable, named by its path).
 */
import { isPosAddressWidth, posAddressToHex } from '../../chain/addresses.ts';
import { NodeDataError, RpcError } from './errors.ts';
import { address, array, data, hash, object, smallQuantity, quantity, toQuantity } from './format.ts';
import type { RpcClient } from './transport.ts';

export const RPC_NAMESPACES = ['qrl', 'zond', 'eth'] as const;
export type RpcNamespace = (typeof RPC_NAMESPACES)[number];

export interface EvmNode {
  client: RpcClient;
  namespace: RpcNamespace;
  /**
   * Bytes in the node's addresses: 20 (go-qrl, Ethereum nodes) or 64 (go-qrllib's 64-byte
   * networks). `detectAddressWidth` tells it; absent means 20.
   */
  addressBytes?: number;
}

/** The width of the node's addresses (20 unless told). */
export function addressBytesOf(node: EvmNode): number {
  return node.addressBytes ?? 20;
}

export type BlockTag = number | 'latest' | 'earliest' | 'finalized' | 'safe';

function tag(block: BlockTag): string {
  return typeof block === 'number' ? toQuantity(block) : block;
}

function ns(node: EvmNode, method: string): string {
  return `${node.namespace}_${method}`;
}

/**
 * The address form the node expects in parameters: `0x…` on eth nodes; go-zond spoke `Z…` and
 * QRL 2.0 nodes speak `Q…`.
 */
function nodeAddress(node: EvmNode, canonical: string): string {
  const hex = posAddressToHex(canonical).slice(2);
  return node.namespace === 'qrl' ? `Q${hex}` : node.namespace === 'zond' ? `Z${hex}` : `0x${hex}`;
}

/** Finds which namespace the node answers in (tries qrl, zond, eth in one batch). */
export async function detectNamespace(client: RpcClient): Promise<RpcNamespace> {
  const answers = await Promise.allSettled(RPC_NAMESPACES.map((namespace) => client.request(`${namespace}_chainId`, [])));
  const index = answers.findIndex((answer) => answer.status === 'fulfilled');
  if (index >= 0) return RPC_NAMESPACES[index]!;
  const failure = answers.find((answer): answer is PromiseRejectedResult => answer.status === 'rejected' && answer.reason instanceof RpcError && answer.reason.retryable);
  if (failure) throw failure.reason;
  // go-qrl serves over HTTP only the modules --http.api lists, and by default only net,web3.
  throw new RpcError(`the node answers none of qrl_chainId, zond_chainId, eth_chainId (a go-qrl node serves qrl_ methods only when started with --http.api qrl,debug,net,web3)`, { retryable: false });
}

export async function blockNumber(node: EvmNode): Promise<number> {
  return smallQuantity(await node.client.request(ns(node, 'blockNumber')), 'blockNumber');
}

/** The raw block (null when the node has none at that height). */
export function getBlockByNumber(node: EvmNode, block: BlockTag, fullTransactions: boolean): Promise<unknown> {
  return node.client.request(ns(node, 'getBlockByNumber'), [tag(block), fullTransactions]);
}

/** Raw receipts of every transaction of a block (null when the node has no such block). */
export function getBlockReceipts(node: EvmNode, block: BlockTag): Promise<unknown> {
  return node.client.request(ns(node, 'getBlockReceipts'), [tag(block)]);
}

/** The raw receipt of one transaction (null when unknown). */
export function getTransactionReceipt(node: EvmNode, txHash: string): Promise<unknown> {
  return node.client.request(ns(node, 'getTransactionReceipt'), [txHash]);
}

/**
 * The node's transaction pool, raw: `{ pending, queued }`, each keyed by sender, then by nonce
 * (go-qrl internal/qrlapi/api.go `TxPoolAPI.Content`; the `txpool` module, the same on every node).
 */
export function txpoolContent(node: EvmNode): Promise<unknown> {
  return node.client.request('txpool_content', []);
}

/** Call traces of every transaction of a block, geth's `callTracer` (raw). */
export function debugTraceBlockByNumber(node: EvmNode, block: BlockTag): Promise<unknown> {
  return node.client.request('debug_traceBlockByNumber', [tag(block), { tracer: 'callTracer', timeout: '60s' }]);
}

/** Parity-style traces of a block (raw). */
export function traceBlock(node: EvmNode, block: BlockTag): Promise<unknown> {
  return node.client.request('trace_block', [tag(block)]);
}

export async function getBalance(node: EvmNode, account: string, block: BlockTag): Promise<bigint> {
  return quantity(await node.client.request(ns(node, 'getBalance'), [nodeAddress(node, account), tag(block)]), 'getBalance');
}

export async function getCode(node: EvmNode, account: string, block: BlockTag): Promise<`0x${string}`> {
  return data(await node.client.request(ns(node, 'getCode'), [nodeAddress(node, account), tag(block)]), 'getCode');
}

/** `eth_call` of `input` on `to` at `block`; a revert rejects with a non-retryable RpcError. */
export async function call(node: EvmNode, to: string, input: `0x${string}`, block: BlockTag): Promise<`0x${string}`> {
  return data(await node.client.request(ns(node, 'call'), [{ to: nodeAddress(node, to), data: input }, tag(block)]), 'call');
}

/** Accounts the node manages (development nodes list their funded accounts here). */
export async function accounts(node: EvmNode): Promise<string[]> {
  return array(await node.client.request(ns(node, 'accounts')), 'accounts').map((a, i) => address(a, `accounts[${i}]`, addressBytesOf(node)));
}

/**
 * The width of the node's addresses, in bytes: that of its genesis block's `miner` (the header's
 * coinbase, written at full width even when it is the zero address; go-qrl `qrlapi.RPCMarshalHeader`).
 * A width no pos network has is refused (a non-retryable RpcError naming it).
 */
export async function detectAddressWidth(node: EvmNode): Promise<number> {
  const raw = await getBlockByNumber(node, 0, false);
  if (raw === null) throw new RpcError('the node has no genesis block to tell the width of its addresses from', { retryable: false });
  const miner = object(raw, 'genesis block').miner;
  const match = typeof miner === 'string' ? /^(?:[QqZz]|0[xX])((?:[0-9a-fA-F]{2})+)$/.exec(miner) : null;
  if (!match) throw new NodeDataError('genesis block.miner', 'expected an address', miner);
  const width = match[1]!.length / 2;
  if (!isPosAddressWidth(width)) throw new RpcError(`the node's addresses have ${width} bytes (genesis miner ${miner}); Quarry reads 20- and 64-byte addresses`, { retryable: false });
  return width;
}

/** Height and hash of the node's head, in one call (a reorg at the tip changes the hash only). */
export async function latestHead(node: EvmNode): Promise<{ height: number; hash: string }> {
  const raw = await getBlockByNumber(node, 'latest', false);
  const block = object(raw, 'latest block');
  return { height: smallQuantity(block.number, 'latest block.number'), hash: hash(block.hash, 'latest block.hash') };
}

/** The hash of the node's block at `height`, or null when it has none. */
export async function blockHashAt(node: EvmNode, height: number): Promise<string | null> {
  const raw = await getBlockByNumber(node, height, false);
  if (raw === null) return null;
  return hash(object(raw, 'block').hash, 'block.hash');
}
