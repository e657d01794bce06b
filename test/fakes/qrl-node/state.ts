/**
 * What a QRL node keeps of one-time keys and multi-signature addresses, by its own rules, replayed
 * from the blocks the fake node holds (their node views, in chain order). It follows theQRL/QRL
 * (master, 2026-03):
 *
 * - One-time keys (qrl/core/PaginatedBitfield.py, txs/Transaction.py, ChainManager.py,
 *   qrlnode.py get_ots): every signed transaction sets the bit of its signature's key index
 *   (`ots_key`, the signature's first 4 bytes) in the bitfield of the address of its public key
 *   (`addr_from_pk`: the slave's own address when a slave signs for its master), kept in pages of
 *   8,192 keys (`ots_tracking_per_page`), 1,024 one-byte entries each, key k in entry k >> 3 at
 *   bit k % 8. GetOTS answers pages `page_from` up to `page_from + page_count - 1`, at most
 *   2^height // 8192 + 1, and the first key at or above `unused_ots_index_from` whose bit is clear.
 * - Multi-signature addresses (txs/multisig/MultiSigCreate.py, MultiSigSpend.py, MultiSigVote.py,
 *   VoteStats.py, MultiSigAddressState.py): a create makes the address with its signatories,
 *   weights and threshold; transfers credit it; a spend starts its VoteStats (every signatory
 *   unvoted); a vote sets the signatory's entry and adds (unvote: subtracts) its weight, and
 *   VoteStats.apply then executes the spend when it is not yet executed, the total weight has
 *   reached the threshold, the block is not above the expiry and the address holds the spend's
 *   total: the address pays each recipient.
 *
 * A real node refuses a block that breaks its rules; the fake node serves what it is given, so the
 * replay throws where a rule it relies on is broken (a vote on an unknown or executed spend, or by
 * a non-signatory), and sets a reused key's bit once, as the node's bitfield would.
 */
import { createHash } from 'node:crypto';
import type { CanonicalBlock } from '../../../src/chain/model.ts';

/** config.dev.ots_tracking_per_page, and the bytes of a page's bitfield (ots_bitfield_size). */
export const OTS_TRACKING_PER_PAGE = 8192;
const OTS_BITFIELD_SIZE = OTS_TRACKING_PER_PAGE / 8;

export interface MultiSigState {
  address: string;
  creationTxHash: string;
  balance: bigint;
  signatories: string[];
  weights: number[];
  threshold: number;
  transactionHashCount: number;
  multiSigSpendCount: number;
}

export interface VoteStats {
  multiSigAddress: string;
  sharedKey: string;
  signatories: string[];
  /** The latest vote transaction of each signatory ('' before its first). */
  txHashes: string[];
  /** True until the signatory approves, and again after it takes its approval back. */
  unvotes: boolean[];
  expiryBlockNumber: number;
  totalWeight: number;
  executed: boolean;
}

interface Spend {
  multiSigAddress: string;
  proposer: string;
  recipients: { to: string; amount: bigint }[];
  total: bigint;
}

const hexOf = (address: string) => address.slice(1);

/** QRLHelper.addressIsValid and not a multi-signature address (OptimizedAddressState.address_is_valid). */
export function xmssAddressIsValid(address: Buffer): boolean {
  if (address.length !== 39 || address[0] === 0x11) return false;
  return createHash('sha256').update(address.subarray(0, 35)).digest().subarray(28).equals(address.subarray(35));
}

export class NodeState {
  /** Address of the signing key → page number → bitfield entries. */
  private readonly bitfields = new Map<string, Map<number, Buffer>>();
  readonly multiSig = new Map<string, MultiSigState>();
  readonly voteStats = new Map<string, VoteStats>();
  private readonly spends = new Map<string, Spend>();
  /** What executed spends moved, per address (the node's balances besides the transactions' own legs). */
  readonly executionDeltas = new Map<string, bigint>();

  constructor(blocks: readonly CanonicalBlock[]) {
    for (const block of blocks) for (const tx of block.transactions) this.apply(block, tx);
  }

  private apply(block: CanonicalBlock, tx: CanonicalBlock['transactions'][number]): void {
    if (tx.type === 'coinbase') return;
    if (tx.otsIndex !== null) this.setOtsKey(tx.signer ?? tx.from, tx.otsIndex);
    if (tx.type === 'transfer') {
      for (const r of tx.recipients ?? []) {
        const ms = this.multiSig.get(r.to);
        if (ms) {
          ms.balance += r.amount;
          if (r.to !== tx.from && r.to !== (tx.signer ?? tx.from)) ms.transactionHashCount++;
        }
      }
    }
    const body = tx.multiSig;
    if (!body) return;
    switch (body.kind) {
      case 'create':
        this.multiSig.set(body.address, {
          address: body.address,
          creationTxHash: tx.hash,
          balance: 0n,
          signatories: body.signatories.map((s) => s.address),
          weights: body.signatories.map((s) => s.weight),
          threshold: body.threshold,
          transactionHashCount: 1,
          multiSigSpendCount: 0,
        });
        break;
      case 'spend': {
        const ms = this.multiSig.get(body.multiSigAddress);
        if (!ms) throw new Error(`fake node: spend ${tx.hash} from ${body.multiSigAddress}, which no create made`);
        if (!ms.signatories.includes(tx.from)) throw new Error(`fake node: spend ${tx.hash} by ${tx.from}, not a signatory`);
        ms.transactionHashCount++;
        ms.multiSigSpendCount++;
        const total = body.recipients.reduce((sum, r) => sum + r.amount, 0n);
        this.spends.set(tx.hash, { multiSigAddress: ms.address, proposer: tx.from, recipients: body.recipients, total });
        this.voteStats.set(tx.hash, {
          multiSigAddress: ms.address,
          sharedKey: tx.hash,
          signatories: [...ms.signatories],
          txHashes: ms.signatories.map(() => ''),
          unvotes: ms.signatories.map(() => true),
          expiryBlockNumber: body.expiryHeight,
          totalWeight: 0,
          executed: false,
        });
        break;
      }
      case 'vote': {
        const stats = this.voteStats.get(body.sharedKey);
        if (!stats) throw new Error(`fake node: vote ${tx.hash} on unknown spend ${body.sharedKey}`);
        if (stats.executed) throw new Error(`fake node: vote ${tx.hash} on executed spend ${body.sharedKey}`);
        if (block.height > stats.expiryBlockNumber) throw new Error(`fake node: vote ${tx.hash} after the expiry of ${body.sharedKey}`);
        const i = stats.signatories.indexOf(tx.from);
        if (i < 0) throw new Error(`fake node: vote ${tx.hash} by ${tx.from}, not a signatory`);
        if (stats.unvotes[i] === body.unvote) throw new Error(`fake node: vote ${tx.hash} repeats the signatory's vote`);
        const ms = this.multiSig.get(stats.multiSigAddress)!;
        const weight = ms.weights[ms.signatories.indexOf(tx.from)]!;
        stats.txHashes[i] = tx.hash;
        stats.totalWeight += body.unvote ? -weight : weight;
        stats.unvotes[i] = body.unvote;
        this.execute(stats, ms, block.height);
        break;
      }
    }
  }

  /** VoteStats.apply. */
  private execute(stats: VoteStats, ms: MultiSigState, height: number): void {
    const spend = this.spends.get(stats.sharedKey)!;
    if (stats.executed || stats.totalWeight < ms.threshold || height > stats.expiryBlockNumber || spend.total > ms.balance) return;
    ms.balance -= spend.total;
    this.addDelta(ms.address, -spend.total);
    for (const r of spend.recipients) {
      this.addDelta(r.to, r.amount);
      const to = this.multiSig.get(r.to);
      if (to) {
        to.balance += r.amount;
        if (r.to !== spend.proposer) to.transactionHashCount++;
      }
    }
    stats.executed = true;
  }

  private addDelta(address: string, amount: bigint): void {
    this.executionDeltas.set(address, (this.executionDeltas.get(address) ?? 0n) + amount);
  }

  /** PaginatedBitfield.set_ots_key. */
  private setOtsKey(address: string, index: number): void {
    const page = Math.floor(index / OTS_TRACKING_PER_PAGE) + 1;
    let pages = this.bitfields.get(address);
    if (!pages) this.bitfields.set(address, (pages = new Map()));
    let bits = pages.get(page);
    if (!bits) pages.set(page, (bits = Buffer.alloc(OTS_BITFIELD_SIZE)));
    const k = index % OTS_TRACKING_PER_PAGE;
    bits[k >> 3] = bits[k >> 3]! | (1 << (k % 8));
  }

  /** PaginatedBitfield.get_paginated_data: a page as stored, or all clear. */
  private page(address: string, page: number): Buffer {
    return this.bitfields.get(address)?.get(page) ?? Buffer.alloc(OTS_BITFIELD_SIZE);
  }

  /** ChainManager.get_unused_ots_index: the first key at or above `from` whose bit is clear, or null. */
  private unusedOtsIndex(address: string, keys: number, from: number): number | null {
    for (let k = from; k < keys; k++) {
      const bits = this.page(address, Math.floor(k / OTS_TRACKING_PER_PAGE) + 1);
      const within = k % OTS_TRACKING_PER_PAGE;
      if (((bits[within >> 3]! >> (within % 8)) & 1) === 0) return k;
    }
    return null;
  }

  /** qrlnode.get_ots, as GetOTSResp's fields (an invalid address: none set). */
  ots(address: Buffer, pageFrom: number, pageCount: number, unusedFrom: number): { ots_bitfield_by_page: { ots_bitfield: Buffer[]; page_number: number }[]; next_unused_ots_index: number; unused_ots_index_found: boolean } | Record<string, never> {
    if (!xmssAddressIsValid(address)) return {};
    const canonical = 'Q' + address.toString('hex');
    const height = (address[1]! & 0x0f) << 1;
    const keys = 2 ** height;
    let maxPages = Math.floor(keys / OTS_TRACKING_PER_PAGE) + 1;
    const first = Math.min(pageFrom, maxPages);
    maxPages = Math.min(first + pageCount - 1, maxPages);
    const pages = [];
    for (let page = first; page <= maxPages; page++) {
      const bits = this.page(canonical, page);
      pages.push({ ots_bitfield: Array.from({ length: OTS_BITFIELD_SIZE }, (_, i) => bits.subarray(i, i + 1)), page_number: page });
    }
    const unused = this.unusedOtsIndex(canonical, keys, unusedFrom);
    return { ots_bitfield_by_page: pages, next_unused_ots_index: unused ?? 0, unused_ots_index_found: unused !== null };
  }

  /** The multisig addresses' and spends' states as their answers' fields. */
  multiSigAnswer(address: string) {
    const ms = this.multiSig.get(address);
    if (!ms) return {};
    return {
      state: {
        address: Buffer.from(hexOf(ms.address), 'hex'),
        creation_tx_hash: Buffer.from(ms.creationTxHash, 'hex'),
        balance: ms.balance.toString(),
        signatories: ms.signatories.map((s) => Buffer.from(hexOf(s), 'hex')),
        weights: ms.weights,
        threshold: ms.threshold,
        transaction_hash_count: ms.transactionHashCount,
        multi_sig_spend_count: ms.multiSigSpendCount,
      },
    };
  }

  voteStatsAnswer(sharedKey: string) {
    const stats = this.voteStats.get(sharedKey);
    if (!stats) return {};
    return {
      vote_stats: {
        multi_sig_address: Buffer.from(hexOf(stats.multiSigAddress), 'hex'),
        shared_key: Buffer.from(stats.sharedKey, 'hex'),
        signatories: stats.signatories.map((s) => Buffer.from(hexOf(s), 'hex')),
        tx_hashes: stats.txHashes.map((h) => Buffer.from(h, 'hex')),
        unvotes: stats.unvotes,
        expiry_block_number: stats.expiryBlockNumber,
        total_weight: stats.totalWeight,
        executed: stats.executed,
      },
    };
  }
}
