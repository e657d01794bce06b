/**
 * The generated pow chain as a QRL node holds it: each canonical block encoded into the node's
 * real messages (qrl.Block with its qrl.Transaction list), and the canonical block a faithful
 * decoder must get back from those bytes (the "node view").
 *
 * A real node has no sender field: it derives the sender from the signing key's extended public
 * key. The generator's addresses are random, so each one is given a deterministic extended public
 * key (its own descriptor + two hashes of the address) and is replaced, everywhere, by the address
 * of that key. The node view is the generated block with that replacement, and with the block's
 * size as the node counts it (its serialized length).
 *
 * A multi-signature address has no key: it is derived from its creating transaction's hash, which
 * the node view keeps, so it stays itself.
 *
 * The generator's genesis block is shaped like mainnet's, and so is its encoding: the network id's
 * bytes as `hash_header_prev`, a coinbase from the 32-byte zero address paying the premine, the
 * premine's transfers, and one genesis_balance entry naming the zero address (32 bytes).
 */
import { createHash } from 'node:crypto';
import { POW_COINBASE_SENTINEL } from '../../../src/chain/chains.ts';
import { isMultiSigAddress, powAddressFromParts } from '../../../src/chain/addresses.ts';
import type { CanonicalBlock, CanonicalTx, MultiSigBody, SourceItem } from '../../../src/chain/model.ts';
import { embeddedLength, messages } from '../../../src/sources/qrl-grpc/proto.ts';

const sha256 = (...parts: (string | Buffer)[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};

export interface EncodeOptions {
  /** Bytes of each XMSS signature (a real one of a height-10 tree has about 2,500). Default 2500. */
  signatureBytes?: number;
}

/** Extended public keys and their addresses for the generator's addresses. */
export class KeyBook {
  private readonly keys = new Map<string, { pk: Buffer; address: string }>();

  private entry(synthetic: string): { pk: Buffer; address: string } {
    let e = this.keys.get(synthetic);
    if (!e) {
      const descriptor = Buffer.from(synthetic.slice(1, 7), 'hex');
      const pk = Buffer.concat([descriptor, sha256('root', synthetic), sha256('seed', synthetic)]);
      e = { pk, address: powAddressFromParts(descriptor, sha256(pk)) };
      this.keys.set(synthetic, e);
    }
    return e;
  }

  publicKey(synthetic: string): Buffer {
    return this.entry(synthetic).pk;
  }

  /** The node's address for a generated one (the sentinel stays itself). */
  address(synthetic: string): string {
    if (synthetic === POW_COINBASE_SENTINEL || isMultiSigAddress(synthetic)) return synthetic;
    return this.entry(synthetic).address;
  }

  bytes(synthetic: string): Buffer {
    return Buffer.from(this.address(synthetic).slice(1), 'hex');
  }
}

const hexBytes = (hex: string) => Buffer.from(hex, 'hex');

export interface EncodedBlock {
  height: number;
  hash: string;
  /** The GetBlockByNumber answer, encoded. */
  response: Buffer;
  /** What a faithful decoder yields for it. */
  view: SourceItem;
}

export function encodeItem(item: SourceItem, keys: KeyBook, options: EncodeOptions = {}): EncodedBlock {
  if (item.kind === 'caught-up') throw new Error('nothing to encode');
  if (item.kind === 'undecodable') {
    const payload = item.payload as { hash: string; parentHash?: string; timestamp?: number; raw?: string };
    // A header whose hash is not 32 bytes: no decoder can accept it.
    const block = { header: { hash_header: hexBytes(payload.raw ?? 'badbad'), block_number: item.height, timestamp_seconds: payload.timestamp ?? 0, hash_header_prev: hexBytes(payload.parentHash ?? '') } };
    const response = Buffer.from(messages.GetBlockByNumberResp.encode({ block }).finish());
    return { height: item.height, hash: payload.hash, response, view: item };
  }
  const b = item.block;
  const sigBytes = Math.max(4, options.signatureBytes ?? 2500);
  const txs = b.transactions.map((tx) => encodeTx(tx, b, keys, sigBytes));
  const block = {
    header: {
      hash_header: hexBytes(b.hash),
      block_number: b.height,
      timestamp_seconds: b.timestamp,
      hash_header_prev: hexBytes(b.parentHash),
      reward_block: b.reward,
      reward_fee: b.transactions.reduce((sum, tx) => sum + tx.fee, 0n),
      merkle_root: sha256(b.hash),
      mining_nonce: b.height & 0xffff,
    },
    transactions: txs,
    genesis_balance: b.allocations.map((a) => ({ address: keys.bytes(a.address), balance: a.amount })),
  };
  const response = Buffer.from(messages.GetBlockByNumberResp.encode(messages.GetBlockByNumberResp.fromObject(bigintsToStrings({ block }) as object)).finish());
  return { height: b.height, hash: b.hash, response, view: { kind: 'block', block: viewOf(b, keys, embeddedLength(response, 1)!) } };
}

/** protobufjs takes uint64 as a number or a decimal string, not a bigint. */
function bigintsToStrings(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) return value;
  if (Array.isArray(value)) return value.map(bigintsToStrings);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, bigintsToStrings(v)]));
  return value;
}

function encodeTx(tx: CanonicalTx, block: CanonicalBlock, keys: KeyBook, sigBytes: number): Record<string, unknown> {
  const base: Record<string, unknown> = { transaction_hash: hexBytes(tx.hash), fee: tx.fee };
  if (tx.type === 'coinbase') {
    // The node's coinbase address: 32 zero bytes.
    return { ...base, master_addr: Buffer.alloc(32), nonce: block.height + 1, coinbase: { addr_to: keys.bytes(tx.to!), amount: tx.value } };
  }
  const signature = Buffer.alloc(sigBytes, 0x5a);
  signature.writeUInt32BE(tx.otsIndex ?? 0, 0);
  base.public_key = keys.publicKey(tx.signer ?? tx.from);
  base.signature = signature;
  if (tx.masterAddr) base.master_addr = keys.bytes(tx.masterAddr);
  switch (tx.type) {
    case 'transfer':
      return { ...base, transfer: { addrs_to: tx.recipients!.map((r) => keys.bytes(r.to)), amounts: tx.recipients!.map((r) => r.amount), message_data: tx.input ? hexBytes(tx.input) : Buffer.alloc(0) } };
    case 'message':
      return { ...base, message: { message_hash: hexBytes(tx.input ?? ''), addr_to: tx.to ? keys.bytes(tx.to) : Buffer.alloc(0) } };
    case 'latticePK':
      return { ...base, latticePK: { pk1: hexBytes(tx.lattice!.kyberPk), pk2: hexBytes(tx.lattice!.dilithiumPk), pk3: hexBytes(tx.lattice!.ecdsaPk) } };
    case 'slave':
      return { ...base, slave: { slave_pks: tx.slaves.map((s) => keys.publicKey(s.slave)), access_types: tx.slaves.map((s) => s.accessType) } };
    case 'token': {
      const info = block.tokens.find((t) => t.contract === tx.hash);
      return {
        ...base,
        token: {
          symbol: Buffer.from(info?.symbol ?? '', 'utf8'),
          name: Buffer.from(info?.name ?? '', 'utf8'),
          owner: keys.bytes(tx.from),
          decimals: info?.decimals ?? 0,
          initial_balances: tx.tokenTransfers.map((t) => ({ address: keys.bytes(t.to), amount: t.amount })),
        },
      };
    }
    case 'transfer_token':
      return {
        ...base,
        transfer_token: {
          token_txhash: hexBytes(tx.tokenTransfers[0]!.contract),
          addrs_to: tx.tokenTransfers.map((t) => keys.bytes(t.to)),
          amounts: tx.tokenTransfers.map((t) => t.amount),
        },
      };
    case 'multi_sig_create': {
      const body = multiSigBody(tx, 'create');
      return { ...base, multi_sig_create: { signatories: body.signatories.map((s) => keys.bytes(s.address)), weights: body.signatories.map((s) => s.weight), threshold: body.threshold } };
    }
    case 'multi_sig_spend': {
      const body = multiSigBody(tx, 'spend');
      return {
        ...base,
        multi_sig_spend: {
          multi_sig_address: keys.bytes(body.multiSigAddress),
          addrs_to: body.recipients.map((r) => keys.bytes(r.to)),
          amounts: body.recipients.map((r) => r.amount),
          expiry_block_number: body.expiryHeight,
        },
      };
    }
    case 'multi_sig_vote': {
      const body = multiSigBody(tx, 'vote');
      return { ...base, multi_sig_vote: { shared_key: hexBytes(body.sharedKey), unvote: body.unvote } };
    }
    case 'unknown':
      // A body of a kind the public messages do not have: no transaction type set.
      return base;
    default:
      throw new Error(`the fake node cannot encode a ${tx.type} transaction`);
  }
}

function multiSigBody<K extends MultiSigBody['kind']>(tx: CanonicalTx, kind: K): Extract<MultiSigBody, { kind: K }> {
  if (tx.multiSig?.kind !== kind) throw new Error(`the fake node: ${tx.type} ${tx.hash} has no ${kind} body`);
  return tx.multiSig as Extract<MultiSigBody, { kind: K }>;
}

/** A multisig body with the node's addresses. */
function multiSigView(body: MultiSigBody, a: (x: string) => string): MultiSigBody {
  switch (body.kind) {
    case 'create':
      return { ...body, signatories: body.signatories.map((s) => ({ ...s, address: a(s.address) })) };
    case 'spend':
      return { ...body, multiSigAddress: a(body.multiSigAddress), recipients: body.recipients.map((r) => ({ ...r, to: a(r.to) })) };
    case 'vote':
      return body;
  }
}

/** The generated block with every address replaced by the node's, and the node's size. */
function viewOf(b: CanonicalBlock, keys: KeyBook, size: number): CanonicalBlock {
  const a = (x: string) => keys.address(x);
  const an = (x: string | null) => (x === null ? null : a(x));
  return {
    ...b,
    size,
    miner: an(b.miner),
    transactions: b.transactions.map((tx) => ({
      ...tx,
      from: a(tx.from),
      to: an(tx.to),
      masterAddr: an(tx.masterAddr),
      signer: an(tx.signer),
      recipients: tx.recipients?.map((r) => ({ ...r, to: a(r.to) })) ?? null,
      tokenTransfers: tx.tokenTransfers.map((t) => ({ ...t, from: a(t.from), to: a(t.to) })),
      slaves: tx.slaves.map((s) => ({ ...s, slave: a(s.slave) })),
      // The account id of a migration is not on the pow chain.
      migration: null,
      ...(tx.multiSig ? { multiSig: multiSigView(tx.multiSig, a) } : {}),
    })),
    allocations: b.allocations.map((x) => ({ ...x, address: a(x.address) })),
    tokens: b.tokens.map((t) => ({ ...t, creator: an(t.creator) })),
  };
}
