/**
 * A small builder of canonical chains for tests: blocks with exactly the transactions a test
 * needs, forks for reorgs, and a BlockSource that yields them like a node would.
 */
import { createHash } from 'node:crypto';
import { emptyBlock, emptyTx, type BlockSource, type CanonicalBlock, type CanonicalTx, type SourceItem } from '../../src/chain/model.ts';
import { CHAIN_INFO, posZeroAddress, POW_COINBASE_SENTINEL, type ChainId } from '../../src/chain/chains.ts';
import { DEFAULT_NETWORK } from '../../src/chain/network.ts';
import { powAddressFromParts } from '../../src/chain/addresses.ts';

export function hash(...parts: unknown[]): string {
  return createHash('sha256').update(parts.map(String).join('|')).digest('hex');
}

/** A deterministic valid address of `chain` named by `name` (pos: of `width` bytes, 20 or 64). */
export function addr(chain: ChainId, name: string, width = 20): string {
  const digest = createHash('sha256').update(name).digest();
  if (chain === 'pos' && width === 64) return 'Q' + createHash('sha512').update(name).digest('hex');
  if (chain === 'pos') return 'Q' + digest.subarray(0, 20).toString('hex');
  return powAddressFromParts(Buffer.from('010500', 'hex'), digest);
}

export const coins = (chain: ChainId, n: number | bigint) => BigInt(n) * CHAIN_INFO[chain].unitsPerCoin;

/** The pow zero address's genesis reserve: 105,000,000 quanta. */
export const POW_RESERVE = 105_000_000n * 10n ** 9n;

export class ChainBuilder {
  readonly blocks: CanonicalBlock[] = [];
  /** Items in yield order, including orphaned branches and undecodable blocks. */
  readonly items: SourceItem[] = [];
  /** Bytes in the chain's addresses (pos: 20, or 64 for a 64-byte network; the miner and mints follow it). */
  readonly addressBytes: number;
  constructor(
    readonly chain: ChainId,
    readonly startTs: number,
    /** Seconds between blocks (a `gap` of n skips n - 1 slots): the default network's slot time unless told. */
    readonly blockTime = DEFAULT_NETWORK[chain].slotSeconds,
    options: { addressBytes?: number } = {},
  ) {
    this.addressBytes = options.addressBytes ?? 20;
  }

  get tip(): CanonicalBlock | undefined {
    return this.blocks.at(-1);
  }

  /** Appends a block built by `fill`; returns it. `salt` makes a different block at the same height. */
  block(fill: (b: BlockBuilder) => void = () => {}, options: { salt?: string; gap?: number } = {}): CanonicalBlock {
    const parent = this.tip;
    const height = parent ? parent.height + 1 : 0;
    const timestamp = parent ? parent.timestamp + this.blockTime * (options.gap ?? 1) : this.startTs;
    const prefix = this.chain === 'pos' ? '0x' : '';
    const block = emptyBlock({
      chain: this.chain,
      height,
      hash: prefix + hash(this.chain, height, options.salt ?? '', parent?.hash),
      parentHash: parent ? parent.hash : prefix + '0'.repeat(64),
      timestamp,
      size: 500,
      miner: addr(this.chain, 'miner', this.addressBytes),
      gasLimit: this.chain === 'pos' ? 30_000_000 : null,
      gasUsed: this.chain === 'pos' ? 0 : null,
      baseFeePerGas: this.chain === 'pos' ? 7n : null,
    });
    const builder = new BlockBuilder(this.chain, block, this.addressBytes);
    // A pow genesis gives the coinbase sentinel its reserve, as a QRL node's genesis_balance does:
    // every coinbase's reward is paid out of it (docs/indexing-pow.md, "Genesis").
    if (this.chain === 'pow' && height === 0) builder.genesis([{ address: POW_COINBASE_SENTINEL, amount: POW_RESERVE }]);
    fill(builder);
    builder.finish();
    this.blocks.push(block);
    this.items.push({ kind: 'block', block });
    return block;
  }

  /** Replaces the newest `depth` blocks with a new branch: the old ones stay in `items` (yielded, then abandoned). */
  fork(depth: number, fills: ((b: BlockBuilder) => void)[]): CanonicalBlock[] {
    this.blocks.splice(this.blocks.length - depth, depth);
    return fills.map((fill, i) => this.block(fill, { salt: `fork-${depth}-${i}-${this.items.length}` }));
  }

  /** A source that yields only the canonical chain (a node asked again after the fact). */
  canonicalSource(name = 'test'): BlockSource {
    const canonical = this.blocks;
    return {
      ...this.source(name),
      async *blocks(fromHeight: number) {
        for (const block of canonical) if (block.height >= fromHeight) yield { kind: 'block', block } satisfies SourceItem;
      },
    };
  }

  source(name = 'test'): BlockSource {
    const items = this.items;
    const canonical = this.blocks;
    const chain = this.chain;
    return {
      chain,
      name,
      async *blocks(fromHeight: number) {
        // Like a node: replay what was yielded from the requested height on.
        let started = false;
        for (const item of items) {
          if (!started && item.kind === 'block' && item.block.height === fromHeight) started = true;
          if (!started && item.kind === 'undecodable' && item.height === fromHeight) started = true;
          if (started) yield item;
        }
      },
      async hashAt(height: number) {
        return canonical.find((b) => b.height === height)?.hash ?? null;
      },
      async blockAt(height: number) {
        const block = canonical.find((b) => b.height === height);
        return block ? { kind: 'block', block } : null;
      },
    };
  }
}

export class BlockBuilder {
  private nextIndex = 0;
  constructor(
    readonly chain: ChainId,
    readonly block: CanonicalBlock,
    readonly addressBytes = 20,
  ) {}

  private tx(fields: Partial<CanonicalTx> & Pick<CanonicalTx, 'type' | 'from'>): CanonicalTx {
    const index = this.nextIndex++;
    const prefix = this.chain === 'pos' ? '0x' : '';
    const tx = emptyTx({ hash: prefix + hash('tx', this.block.hash, index), index, ...fields });
    this.block.transactions.push(tx);
    return tx;
  }

  genesis(allocations: { address: string; amount: bigint }[]): this {
    this.block.allocations.push(...allocations);
    return this;
  }

  /** pow coinbase: reward plus the block's fees, to `miner`. Call after the block's other transactions. */
  coinbase(miner: string, reward: bigint): CanonicalTx {
    const fees = this.block.transactions.reduce((sum, t) => sum + t.fee, 0n);
    this.block.reward = reward;
    this.block.miner = miner;
    const tx = this.tx({ type: 'coinbase', from: POW_COINBASE_SENTINEL, to: miner, value: reward + fees, otsIndex: null });
    // The coinbase comes first in a pow block.
    this.block.transactions.unshift(this.block.transactions.pop()!);
    this.block.transactions.forEach((t, i) => (t.index = i));
    return tx;
  }

  /** A native transfer: pos type-2 math with `gasUsed` at the block's base fee plus `tip`. */
  transfer(from: string, to: string, value: bigint, options: { fee?: bigint; tip?: bigint; gasUsed?: number; status?: 0 | 1; ots?: number } = {}): CanonicalTx {
    if (this.chain === 'pow') {
      return this.tx({ type: 'transfer', from, to, value, fee: options.fee ?? 1000n, otsIndex: options.ots ?? null });
    }
    const gasUsed = options.gasUsed ?? 21_000;
    const base = this.block.baseFeePerGas ?? 0n;
    const effective = base + (options.tip ?? 2n);
    this.block.gasUsed = (this.block.gasUsed ?? 0) + gasUsed;
    return this.tx({
      type: 'transfer', typeEvm: 2, from, to, value, gas: gasUsed, gasUsed, effectiveGasPrice: effective, gasPrice: effective,
      maxFeePerGas: effective * 2n, maxPriorityFeePerGas: options.tip ?? 2n,
      fee: BigInt(gasUsed) * effective, burned: BigInt(gasUsed) * base, status: options.status ?? 1,
    });
  }

  /** pow transfer to several recipients. */
  multiTransfer(from: string, recipients: { to: string; amount: bigint }[], fee = 1000n, extra: Partial<CanonicalTx> = {}): CanonicalTx {
    const value = recipients.reduce((sum, r) => sum + r.amount, 0n);
    return this.tx({ type: 'transfer', from, to: null, recipients, value, fee, ...extra });
  }

  /** pos contract call with internal transfers. */
  contractCall(from: string, contract: string, value: bigint, internal: { to: string; value: bigint; from?: string }[], status: 0 | 1 = 1): CanonicalTx {
    const tx = this.transfer(from, contract, value, { gasUsed: 60_000, status });
    tx.type = 'contract_call';
    tx.input = '0xabcdef01';
    if (status === 1) {
      tx.internal = internal.map((frame, i) => ({ traceAddress: String(i), callType: 'call', from: frame.from ?? contract, to: frame.to, value: frame.value }));
    }
    return tx;
  }

  /** pos contract creation. */
  create(from: string, contract: string, value = 0n): CanonicalTx {
    const tx = this.transfer(from, contract, value, { gasUsed: 200_000 });
    tx.type = 'contract_create';
    tx.to = null;
    tx.contractAddress = contract;
    return tx;
  }

  tokenTransfer(tx: CanonicalTx, contract: string, from: string, to: string, amount: bigint): this {
    tx.tokenTransfers.push({ logIndex: tx.tokenTransfers.length + tx.index * 100, contract, from, to, amount });
    return this;
  }

  /**
   * A pow `token` transaction, as the gRPC decoder gives it: its hash is the token's id, its
   * initial balances are transfers from the coinbase sentinel, and the block names the token.
   */
  powToken(creator: string, id: string, info: { name: string; symbol: string; decimals: number }, balances: { to: string; amount: bigint }[], fee = 1000n): CanonicalTx {
    const tx = this.tx({ type: 'token', from: creator, fee });
    tx.hash = id;
    tx.tokenTransfers = balances.map((b, i) => ({ logIndex: i, contract: id, from: POW_COINBASE_SENTINEL, to: b.to, amount: b.amount }));
    this.block.tokens.push({ contract: id, ...info, creator, createdTx: id });
    return tx;
  }

  /** A pow `transfer_token` transaction: zero-amount recipients, a token transfer per leg. */
  transferToken(from: string, id: string, legs: { to: string; amount: bigint }[], fee = 1000n): CanonicalTx {
    const tx = this.tx({ type: 'transfer_token', from, fee, recipients: legs.map((l) => ({ to: l.to, amount: 0n })) });
    if (legs.length === 1) tx.to = legs[0]!.to;
    tx.tokenTransfers = legs.map((l, i) => ({ logIndex: i, contract: id, from, to: l.to, amount: l.amount }));
    return tx;
  }

  /** A pos call of a token contract whose receipt holds `moves` as Transfer logs. */
  tokenCall(from: string, contract: string, moves: { from: string; to: string; amount: bigint }[]): CanonicalTx {
    const tx = this.contractCall(from, contract, 0n, []);
    for (const m of moves) this.tokenTransfer(tx, contract, m.from, m.to, m.amount);
    return tx;
  }

  token(contract: string, name: string, symbol: string, decimals: number): this {
    this.block.tokens.push({ contract, name, symbol, decimals, creator: null, createdTx: null });
    return this;
  }

  withdrawal(address: string, amount: bigint, validatorIndex = 1): this {
    this.block.withdrawals.push({ index: this.block.withdrawals.length, validatorIndex, address, amount });
    return this;
  }

  /** pos migration mint from the zero address. */
  mint(to: string, value: bigint, accountId: string): CanonicalTx {
    return this.tx({ type: 'transfer', typeEvm: 2, from: posZeroAddress(this.addressBytes), to, value, status: 1, migration: { accountId, role: 'mint' } });
  }

  slave(master: string, slaves: string[], fee = 500n): CanonicalTx {
    return this.tx({ type: 'slave', from: master, fee, slaves: slaves.map((slave) => ({ slave, accessType: 0 })) });
  }

  message(from: string, fee = 100n, extra: Partial<CanonicalTx> = {}): CanonicalTx {
    return this.tx({ type: 'message', from, fee, input: '48656c6c6f', ...extra });
  }

  finish(): void {
    this.block.size = 200 + this.block.transactions.length * 150;
  }
}
