/**
 * A fake QRL node: a @grpc/grpc-js server of `qrl.PublicAPI` that serves a generated pow chain
 * encoded into the node's real messages (see encode.ts). Feed it the generator's items in order
 * (`push`): a block at a height the chain already has replaces that height and everything above
 * it (a reorg), as a node switching branch does. GetAddressState answers each address's balance
 * at the head, the zero address's included, kept per block (and undone by a branch switch) from the
 * node view of the blocks by the node's rules (`balanceDeltas`).
 *
 * It follows theQRL/QRL (master, 2026-03: qrl/core/qrlnode.py, ChainManager.py, StateContainer.py,
 * txs/CoinBase.py, formulas.py, config.py, main.py). `network: 'testnet'` is a node started with
 * `--network-type testnet`: network id "Final Testnet" (qrl/network/testnet/config.yml, the genesis
 * block's `hash_header_prev` and GetNodeState's `network_id`) and every hard fork at height 0
 * (`testnet_hard_fork_heights`), so blocks pay 0.4 of the decay curve's step from genesis on: the
 * generated rewards (mainnet's factor 1, below its fork at 1,938,000) are cut to 0.4 of themselves,
 * rounded down, and only the coinbase is kept above genesis (the generated spends assumed mainnet's
 * rewards); the genesis coinbase debits the zero address by 0.4 of mainnet's figure.
 *
 * It also answers three calls Quarry does not make, for tests to compare with (state-api.proto):
 * GetOTS, GetMultiSigAddressState and GetVoteStats, from the node's one-time key and multisig state
 * replayed from the blocks it holds (state.ts); balances include what executed multisig spends moved.
 */
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import { POW_COINBASE_SENTINEL } from '../../../src/chain/chains.ts';
import type { CanonicalBlock, CanonicalTx, SourceItem } from '../../../src/chain/model.ts';
import { CALL_TYPES, messages, METHODS, methodPath, u64, type Method } from '../../../src/sources/qrl-grpc/proto.ts';
import { POW_GENESIS_COINBASE_DEBIT, POW_TESTNET_GENESIS_COINBASE_DEBIT, POW_TESTNET_NETWORK_ID } from '../../support/expected.ts';
import { encodeItem, KeyBook, type EncodedBlock, type EncodeOptions } from './encode.ts';
import { NodeState } from './state.ts';

const stateApi = new protobuf.Root().loadSync(path.join(import.meta.dirname, 'state-api.proto'), { keepCase: true });
/** The calls of state-api.proto: request and response types. */
export const STATE_CALLS = {
  GetOTS: { request: stateApi.lookupType('qrl.GetOTSReq'), response: stateApi.lookupType('qrl.GetOTSResp') },
  GetMultiSigAddressState: { request: stateApi.lookupType('qrl.GetMultiSigAddressStateReq'), response: stateApi.lookupType('qrl.GetMultiSigAddressStateResp') },
  GetVoteStats: { request: stateApi.lookupType('qrl.GetVoteStatsReq'), response: stateApi.lookupType('qrl.GetVoteStatsResp') },
} as const;
export type StateMethod = keyof typeof STATE_CALLS;

interface Held extends EncodedBlock {
  /** Balance changes this block made (undone when it is replaced). */
  deltas: Map<string, bigint>;
}

/** A transaction of the node's pool: TransactionPool's TransactionInfo (the transaction, when it entered). */
interface Pooled {
  hash: string;
  fee: bigint;
  /** The qrl.Transaction message, decoded. */
  tx: Record<string, unknown>;
  /** `addr_from` of its TransactionExtended: the master address when set, else the signing key's. */
  addrFrom: Buffer;
  timestamp: number;
}

/** GetLatestDataReq.Filter.TRANSACTIONS_UNCONFIRMED, and PublicAPIService.MAX_REQUEST_QUANTITY. */
const UNCONFIRMED = 3;
const MAX_REQUEST_QUANTITY = 100;

export interface FakeQrlNodeOptions extends EncodeOptions {
  /** Milliseconds each GetBlockByNumber waits before answering (a slow node). */
  delayMs?: number;
  /** The network's rules (default: mainnet's, with the generator's network id in the genesis block). */
  network?: 'mainnet' | 'testnet';
}

/** Mainnet's reward fork (`hard_fork_heights[1]`): below it mainnet pays the curve's whole step. */
const MAINNET_REWARD_FORK = 1_938_000;

/**
 * A generated item as a testnet node holds it: its network id at genesis; above it 0.4 of the
 * generated reward, and the coinbase alone (the generated spends assumed mainnet's rewards, so
 * they are left out, and with them their fees).
 */
function asTestnet(item: SourceItem): SourceItem {
  if (item.kind !== 'block') return item;
  const block = item.block;
  if (block.height === 0) return { kind: 'block', block: { ...block, parentHash: Buffer.from(POW_TESTNET_NETWORK_ID, 'utf8').toString('hex') } };
  if (block.height >= MAINNET_REWARD_FORK) throw new Error('fake node: a testnet reward is derived from mainnet\'s below its fork only');
  // formulas.block_reward: floor(0.4 x step), and mainnet's reward here is the step itself.
  const reward = (2n * block.reward) / 5n;
  const transactions = block.transactions.filter((tx) => tx.type === 'coinbase').map((tx) => ({ ...tx, value: reward, ...(tx.recipients ? { recipients: [{ ...tx.recipients[0]!, amount: reward }] } : {}) }));
  return { kind: 'block', block: { ...block, reward, transactions, tokens: [] } };
}

export class FakeQrlNode {
  readonly keys = new KeyBook();
  private readonly chain: Held[] = [];
  private readonly balances = new Map<string, bigint>();
  /** The pool of validated transactions (TransactionPool.transaction_pool), in arrival order. */
  private pool: Pooled[] = [];
  /** The one-time key and multisig state of the chain held now (replayed when first asked after a change). */
  private replayed: NodeState | undefined;
  private server: grpc.Server | undefined;
  /** Calls answered, per method. */
  readonly calls = new Map<Method, number>();
  /** The next `n` calls (of any method) fail with this status. */
  private failures: { left: number; code: grpc.status } = { left: 0, code: grpc.status.UNAVAILABLE };
  /** Heights answered badly, and how (see `garble`). */
  private readonly garbled = new Map<number, 'bytes' | 'other-height'>();
  port = 0;

  constructor(private readonly options: FakeQrlNodeOptions = {}) {}

  get height(): number {
    return this.chain.length - 1;
  }

  get headHash(): string {
    return this.chain.at(-1)?.hash ?? '';
  }

  /** Adds a generated item: a block at an existing height replaces it and all above it. */
  push(item: SourceItem): void {
    if (item.kind === 'caught-up') return;
    const height = item.kind === 'block' ? item.block.height : item.height;
    if (height > this.chain.length) throw new Error(`fake node: ${height} does not follow ${this.height}`);
    this.truncate(height);
    const testnet = this.options.network === 'testnet';
    const encoded = encodeItem(testnet ? asTestnet(item) : item, this.keys, this.options);
    const genesisDebit = testnet ? POW_TESTNET_GENESIS_COINBASE_DEBIT : POW_GENESIS_COINBASE_DEBIT;
    const deltas = encoded.view.kind === 'block' ? balanceDeltas(encoded.view.block, genesisDebit) : new Map<string, bigint>();
    for (const [address, d] of deltas) this.balances.set(address, (this.balances.get(address) ?? 0n) + d);
    this.chain.push({ ...encoded, deltas });
    // TransactionPool.remove_tx_in_block_from_pool: the block's transactions leave the pool.
    const mined = new Set(this.pooledOf(encoded).map((p) => p.hash));
    this.pool = this.pool.filter((p) => !mined.has(p.hash));
    this.replayed = undefined;
  }

  /**
   * Drops the blocks at `height` and above. Their transactions go back to the pool, as the node's
   * `_remove_block_from_mainchain` puts them (TransactionPool.add_tx_from_block_to_pool).
   */
  truncate(height: number): void {
    while (this.chain.length > height) {
      const dropped = this.chain.pop()!;
      for (const [address, d] of dropped.deltas) this.balances.set(address, this.balances.get(address)! - d);
      for (const p of this.pooledOf(dropped)) if (!this.pool.some((q) => q.hash === p.hash)) this.pool.push(p);
      this.replayed = undefined;
    }
  }

  /** The node's one-time key and multisig state of the blocks held now. */
  state(): NodeState {
    return (this.replayed ??= new NodeState(this.chain.flatMap((b) => (b.view.kind === 'block' ? [b.view.block] : []))));
  }

  /**
   * Puts the transactions of a generated block (all but its coinbase) in the pool, as wallets
   * sending them would (PublicAPI PushTransaction), entering at `timestamp` (Unix seconds); the
   * block itself is not added. Returns them as a faithful decoder reads them (their node views).
   */
  submit(item: SourceItem, timestamp = Math.floor(Date.now() / 1000)): CanonicalTx[] {
    if (item.kind !== 'block') throw new Error('fake node: only a block\'s transactions can be sent');
    if (this.options.network === 'testnet') throw new Error('fake node: a testnet node keeps only coinbases of generated blocks');
    const encoded = encodeItem(item, this.keys, this.options);
    const pooled = this.pooledOf(encoded, timestamp);
    const known = new Set(this.pool.map((p) => p.hash));
    this.pool.push(...pooled.filter((p) => !known.has(p.hash)));
    const view = encoded.view.kind === 'block' ? encoded.view.block.transactions : [];
    return view.filter((tx) => pooled.some((p) => p.hash === tx.hash));
  }

  /** Removes a transaction from the pool without a block (one that fails validation when it is stale: TransactionPool.check_stale_txn). */
  dropFromPool(hash: string): void {
    this.pool = this.pool.filter((p) => p.hash !== hash);
  }

  /** Hashes in the pool, in the order GetLatestData answers them. */
  poolHashes(): string[] {
    return this.unconfirmed().map((p) => p.hash);
  }

  /** TransactionPool.transactions: highest fee first (`heapq.nlargest` over [fee, TransactionInfo]); equal fees in arrival order. */
  private unconfirmed(): Pooled[] {
    return [...this.pool].sort((a, b) => (a.fee === b.fee ? 0 : a.fee > b.fee ? -1 : 1));
  }

  /** The pool entries of an encoded block's transactions, all but the coinbase. */
  private pooledOf(encoded: EncodedBlock, timestamp = Math.floor(Date.now() / 1000)): Pooled[] {
    if (encoded.view.kind !== 'block') return [];
    const txs = (CALL_TYPES.GetBlockByNumber.response.decode(encoded.response) as any).block.transactions as Record<string, unknown>[];
    return encoded.view.block.transactions.flatMap((tx, i) =>
      tx.type === 'coinbase' ? [] : [{ hash: tx.hash, fee: tx.fee, tx: txs[i]!, addrFrom: Buffer.from(tx.from.slice(1), 'hex'), timestamp }],
    );
  }

  /** The node view of the blocks it holds now (what a faithful decoder yields). */
  views(): SourceItem[] {
    return this.chain.map((b) => b.view);
  }

  /** The node view of its head block. */
  headView(): SourceItem | undefined {
    return this.chain.at(-1)?.view;
  }

  balance(address: string): bigint {
    return (this.balances.get(address) ?? 0n) + (this.state().executionDeltas.get(address) ?? 0n);
  }

  /** Every address with a balance entry, the coinbase sentinel (the node's zero address) included. */
  addresses(): string[] {
    return [...this.balances.keys()];
  }

  failNext(count: number, code: grpc.status = grpc.status.UNAVAILABLE): void {
    this.failures = { left: count, code };
  }

  /**
   * Answers GetBlockByNumber for `height` badly until `repair`: `bytes` cuts the answer's bytes
   * short (a garbled message), `other-height` sends the block of the next height instead (a node
   * behind a load balancer answering for another height).
   */
  garble(height: number, how: 'bytes' | 'other-height'): void {
    this.garbled.set(height, how);
  }

  repair(height: number): void {
    this.garbled.delete(height);
  }

  async start(port = 0): Promise<string> {
    const server = new grpc.Server({ 'grpc.max_send_message_length': 256 * 1024 * 1024 });
    const definition: Record<string, grpc.MethodDefinition<any, Buffer>> = {};
    const handlers: grpc.UntypedServiceImplementation = {};
    for (const method of METHODS) {
      const { request } = CALL_TYPES[method];
      definition[method] = {
        path: methodPath(method),
        requestStream: false,
        responseStream: false,
        requestSerialize: (m: object) => Buffer.from(request.encode(m).finish()),
        requestDeserialize: (b: Buffer) => request.decode(b),
        // Answers are encoded by the handlers (blocks once, when pushed).
        responseSerialize: (b: Buffer) => b,
        responseDeserialize: (b: Buffer) => b,
      };
      handlers[method] = (call: grpc.ServerUnaryCall<any, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
        this.calls.set(method, (this.calls.get(method) ?? 0) + 1);
        if (this.failures.left > 0) {
          this.failures.left--;
          callback({ code: this.failures.code, details: 'fake node: injected failure' });
          return;
        }
        try {
          const answer = this.answer(method, call.request);
          if (method === 'GetBlockByNumber' && this.options.delayMs) setTimeout(() => callback(null, answer), this.options.delayMs);
          else callback(null, answer);
        } catch (error) {
          if (error instanceof NotFound) callback({ code: grpc.status.NOT_FOUND, details: error.message });
          else callback({ code: grpc.status.INTERNAL, details: String(error) });
        }
      };
    }
    for (const method of Object.keys(STATE_CALLS) as StateMethod[]) {
      const { request, response } = STATE_CALLS[method];
      definition[method] = {
        path: `/qrl.PublicAPI/${method}`,
        requestStream: false,
        responseStream: false,
        requestSerialize: (m: object) => Buffer.from(request.encode(m).finish()),
        requestDeserialize: (b: Buffer) => request.decode(b),
        responseSerialize: (b: Buffer) => b,
        responseDeserialize: (b: Buffer) => b,
      };
      handlers[method] = (call: grpc.ServerUnaryCall<any, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
        try {
          callback(null, Buffer.from(response.encode(response.fromObject(this.stateAnswer(method, call.request))).finish()));
        } catch (error) {
          callback({ code: grpc.status.INTERNAL, details: String(error) });
        }
      };
    }
    server.addService(definition as grpc.ServiceDefinition, handlers);
    this.port = await new Promise<number>((resolve, reject) => server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
    this.server = server;
    return `127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
  }

  private nodeInfo() {
    return { version: 'fake-qrl-node', state: 3, block_height: String(Math.max(0, this.height)), block_last_hash: Buffer.from(this.headHash, 'hex'), network_id: this.options.network === 'testnet' ? POW_TESTNET_NETWORK_ID : 'quarry-test' };
  }

  private stateAnswer(method: StateMethod, request: any): object {
    const state = this.state();
    switch (method) {
      case 'GetOTS':
        return state.ots(Buffer.from(request.address), Number(u64(request.page_from)), Number(u64(request.page_count)), Number(u64(request.unused_ots_index_from)));
      case 'GetMultiSigAddressState':
        return state.multiSigAnswer('Q' + Buffer.from(request.address).toString('hex'));
      case 'GetVoteStats':
        return state.voteStatsAnswer(Buffer.from(request.multi_sig_spend_tx_hash).toString('hex'));
    }
  }

  private answer(method: Method, request: any): Buffer {
    const { response } = CALL_TYPES[method];
    const encode = (m: object) => Buffer.from(response.encode(response.fromObject(m)).finish());
    switch (method) {
      case 'GetNodeState':
        return encode({ info: this.nodeInfo() });
      case 'GetHeight':
        return encode({ height: String(Math.max(0, this.height)) });
      case 'GetStats': {
        const head = this.chain.at(-1)?.view;
        return encode({ node_info: this.nodeInfo(), block_last_reward: head?.kind === 'block' ? head.block.reward.toString() : '0' });
      }
      case 'GetBlockByNumber': {
        const height = Number(request.block_number);
        const held = this.chain[height];
        if (!held) throw new NotFound(`no block ${height}`);
        const garbled = this.garbled.get(height);
        if (garbled === 'bytes') return held.response.subarray(0, Math.floor(held.response.length / 2));
        if (garbled === 'other-height') return (this.chain[height + 1] ?? this.chain[height - 1]!).response;
        return held.response;
      }
      case 'GetAddressState':
      case 'GetOptimizedAddressState': {
        const address = 'Q' + Buffer.from(request.address).toString('hex');
        return encode({ state: { address: request.address, balance: this.balance(address).toString() } });
      }
      case 'GetObject': {
        const query = Buffer.from(request.query);
        const held = query.length === 32 ? this.chain.find((b) => b.hash === query.toString('hex')) : this.chain[Number(query.toString('utf8'))];
        if (!held || held.view.kind !== 'block') return encode({ found: false });
        const block = CALL_TYPES.GetBlockByNumber.response.decode(held.response) as any;
        return encode({ found: true, block_extended: { header: block.block.header, extended_transactions: block.block.transactions.map((tx: unknown) => ({ tx })), genesis_balance: block.block.genesis_balance, size: held.view.block.size } });
      }
      case 'GetLatestData': {
        // qrlnode.get_latest_transactions_unconfirmed: the pool from `offset`, `quantity` capped at 100.
        if (request.filter !== UNCONFIRMED) throw new Error('fake node: GetLatestData answers only TRANSACTIONS_UNCONFIRMED');
        const quantity = Math.min(Number(request.quantity), MAX_REQUEST_QUANTITY);
        const page = this.unconfirmed().slice(Number(request.offset), Number(request.offset) + quantity);
        const transactions_unconfirmed = page.map((p) => ({ tx: p.tx, addr_from: p.addrFrom, size: messages.Transaction.encode(p.tx).finish().length, timestamp_seconds: p.timestamp }));
        return encode({ transactions_unconfirmed });
      }
      case 'GetTransaction': {
        const hash = Buffer.from(request.tx_hash).toString('hex');
        for (const held of this.chain) {
          if (held.view.kind !== 'block') continue;
          const index = held.view.block.transactions.findIndex((tx) => tx.hash === hash);
          if (index < 0) continue;
          const block = CALL_TYPES.GetBlockByNumber.response.decode(held.response) as any;
          return encode({ tx: block.block.transactions[index], block_number: held.height, block_header_hash: Buffer.from(held.hash, 'hex'), confirmations: this.height - held.height + 1, timestamp: held.view.block.timestamp });
        }
        throw new NotFound(`no transaction ${hash}`);
      }
    }
  }
}

class NotFound extends Error {}

/**
 * What one block does to balances, by a QRL node's rules: genesis_balance sets the listed balances
 * (the zero address's reserve); a coinbase credits its amount to its recipient and debits the zero
 * address by the block's reward, which the node computes with its formula: the header's
 * `reward_block` above genesis, `genesisDebit` (the network's block_reward(0): factor x (remaining(-1)
 * - remaining(0))) at height 0 (CoinBase.apply, StateContainer.block_reward); every other transaction
 * debits its sender amount and fee. A token creation's initial balances are token balances, not quanta.
 */
function balanceDeltas(block: CanonicalBlock, genesisDebit: bigint): Map<string, bigint> {
  const deltas = new Map<string, bigint>();
  const add = (address: string, amount: bigint) => deltas.set(address, (deltas.get(address) ?? 0n) + amount);
  for (const a of block.allocations) add(a.address, a.amount);
  for (const tx of block.transactions) {
    if (tx.type === 'coinbase') {
      add(tx.to!, tx.value);
      add(POW_COINBASE_SENTINEL, -(block.height === 0 ? genesisDebit : block.reward));
      continue;
    }
    add(tx.from, -(tx.value + tx.fee));
    if (tx.type === 'transfer') for (const r of tx.recipients ?? []) add(r.to, r.amount);
  }
  return deltas;
}
