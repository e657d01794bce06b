/**
 * A QRL node's Block message into the canonical block. Every field read is checked here (lengths
 * of hashes, addresses and keys, lists that must pair up). A header or a transaction that does not
 * fit makes the block undecodable (the pipeline fetches it again, and stalls the chain if it stays
 * bad); a transaction of a kind these messages do not know is kept with its sender and fee, and
 * its body set aside as a dead letter.
 *
 * Who sends: a Transaction has no sender field. The sender is `master_addr` when set (a slave key
 * signed; the master pays amount and fee), otherwise the address of `public_key`: descriptor (its
 * first 3 bytes) + SHA-256 of the 67-byte extended public key + checksum. A coinbase is sent by
 * the zero sentinel. The OTS key index is the first 4 bytes (big-endian) of the XMSS signature.
 */
import { createHash } from 'node:crypto';
import { POW_COINBASE_SENTINEL } from '../../chain/chains.ts';
import { multiSigAddress, powAddressFromParts } from '../../chain/addresses.ts';
import { emptyBlock, emptyTx, type CanonicalBlock, type CanonicalTx, type DeadLetterItem, type PowTxType, type TokenInfo } from '../../chain/model.ts';
import { NodeDataError } from './errors.ts';
import { messages, u64, type Decoded } from './proto.ts';

const EXTENDED_PK_BYTES = 67;
const ADDRESS_BYTES = 39;
const HASH_BYTES = 32;
/** Text fields (token name and symbol) are capped like the pos indexer's. */
const MAX_TEXT = 200;

type Msg = Decoded;

function bytes(value: unknown, path: string): Buffer {
  // protobufjs gives an absent bytes field as its shared empty default (an empty array).
  if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) return Buffer.alloc(0);
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  throw new NodeDataError(path, 'not bytes');
}

function hash32(value: unknown, path: string): string {
  const b = bytes(value, path);
  if (b.length !== HASH_BYTES) throw new NodeDataError(path, `expected a 32-byte hash, got ${b.length} bytes`);
  return b.toString('hex');
}

/** A 39-byte address (descriptor, key hash, checksum) in canonical form. */
export function powAddress(value: unknown, path: string): string {
  const b = bytes(value, path);
  if (b.length !== ADDRESS_BYTES) throw new NodeDataError(path, `expected a 39-byte address, got ${b.length} bytes`);
  return 'Q' + b.toString('hex');
}

/**
 * A genesis_balance address: a 39-byte address, or the node's 32-byte zero coinbase address (the
 * sentinel, which holds the reserve rewards are paid from: docs/indexing-pow.md, "Genesis").
 */
function allocationAddress(value: unknown, path: string): string {
  const b = bytes(value, path);
  if (b.length === HASH_BYTES && b.every((x) => x === 0)) return POW_COINBASE_SENTINEL;
  return powAddress(b, path);
}

/** The address of an extended XMSS public key (descriptor + root + public seed). */
export function addressOfPublicKey(value: unknown, path: string): string {
  const pk = bytes(value, path);
  if (pk.length !== EXTENDED_PK_BYTES) throw new NodeDataError(path, `expected a 67-byte extended public key, got ${pk.length} bytes`);
  return powAddressFromParts(pk.subarray(0, 3), createHash('sha256').update(pk).digest());
}

function amount(value: unknown, path: string): bigint {
  try {
    return u64(value);
  } catch {
    throw new NodeDataError(path, 'not a uint64');
  }
}

function safeNumber(value: unknown, path: string): number {
  const n = amount(value, path);
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw new NodeDataError(path, 'too large');
  return Number(n);
}

function text(value: unknown, path: string): string | null {
  const b = bytes(value, path);
  if (b.length === 0) return null;
  return b.toString('utf8').replace(/[\u0000-\u001f\u007f]/g, '').slice(0, MAX_TEXT);
}

function list(value: unknown, path: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new NodeDataError(path, 'not a list');
  return value;
}

/** Recipients of a transfer-like message: `addrs_to` and `amounts`, which must pair up. */
function recipients(addrs: unknown, amounts: unknown, path: string): { to: string; amount: bigint }[] {
  const to = list(addrs, `${path}.addrs_to`);
  const values = list(amounts, `${path}.amounts`);
  if (to.length === 0) throw new NodeDataError(`${path}.addrs_to`, 'no recipient');
  if (to.length !== values.length) throw new NodeDataError(path, `${to.length} recipients but ${values.length} amounts`);
  return to.map((a, i) => ({ to: powAddress(a, `${path}.addrs_to[${i}]`), amount: amount(values[i], `${path}.amounts[${i}]`) }));
}

export interface DecodedTx {
  tx: CanonicalTx;
  token: TokenInfo | null;
  /** Why part of the transaction is set aside (a body of a kind Quarry does not classify), or null. */
  setAside: string | null;
}

/** One Transaction message at position `index` of its block. */
export function decodeTx(raw: Msg, index: number): DecodedTx {
  const hash = hash32(raw.transaction_hash, 'transaction_hash');
  // A body of a kind this decoder's messages do not know decodes as no transaction type at all.
  const type = (raw.transactionType as string | undefined) ?? 'unknown';
  const fee = amount(raw.fee, 'fee');
  if (type === 'coinbase') {
    const tx = emptyTx({ hash, index, type: 'coinbase', from: POW_COINBASE_SENTINEL });
    tx.to = powAddress(raw.coinbase.addr_to, 'coinbase.addr_to');
    tx.value = amount(raw.coinbase.amount, 'coinbase.amount');
    tx.fee = fee;
    return { tx, token: null, setAside: null };
  }
  const signer = addressOfPublicKey(raw.public_key, 'public_key');
  const masterBytes = bytes(raw.master_addr, 'master_addr');
  const master = masterBytes.length > 0 ? powAddress(masterBytes, 'master_addr') : null;
  const signature = bytes(raw.signature, 'signature');
  if (signature.length < 4) throw new NodeDataError('signature', `too short for an XMSS signature (${signature.length} bytes)`);
  const nonce = safeNumber(raw.nonce, 'nonce');
  const tx = emptyTx({
    hash,
    index,
    type: type as PowTxType,
    from: master ?? signer,
    fee,
    masterAddr: master,
    signer: master === null ? null : signer,
    otsIndex: signature.readUInt32BE(0),
    // proto3 cannot tell 0 from absent, and QRL nonces start at 1: 0 is unknown.
    nonce: nonce === 0 ? null : nonce,
  });
  let token: TokenInfo | null = null;
  switch (type) {
    case 'transfer': {
      const body = raw.transfer as Msg;
      tx.recipients = recipients(body.addrs_to, body.amounts, 'transfer');
      tx.value = tx.recipients.reduce((sum, r) => sum + r.amount, 0n);
      if (tx.recipients.length === 1) tx.to = tx.recipients[0]!.to;
      const data = bytes(body.message_data, 'transfer.message_data');
      if (data.length > 0) tx.input = data.toString('hex');
      break;
    }
    case 'message': {
      const body = raw.message as Msg;
      tx.input = bytes(body.message_hash, 'message.message_hash').toString('hex');
      const to = bytes(body.addr_to, 'message.addr_to');
      if (to.length > 0) tx.to = powAddress(to, 'message.addr_to');
      break;
    }
    case 'token': {
      const body = raw.token as Msg;
      const decimals = safeNumber(body.decimals, 'token.decimals');
      tx.tokenTransfers = list(body.initial_balances, 'token.initial_balances').map((entry, i) => {
        const e = entry as Msg;
        return { logIndex: i, contract: hash, from: POW_COINBASE_SENTINEL, to: powAddress(e.address, `token.initial_balances[${i}].address`), amount: amount(e.amount, `token.initial_balances[${i}].amount`) };
      });
      const owner = bytes(body.owner, 'token.owner');
      if (owner.length > 0) powAddress(owner, 'token.owner');
      token = { contract: hash, name: text(body.name, 'token.name'), symbol: text(body.symbol, 'token.symbol'), decimals: decimals <= 255 ? decimals : null, creator: tx.from, createdTx: hash };
      break;
    }
    case 'transfer_token': {
      const body = raw.transfer_token as Msg;
      const contract = hash32(body.token_txhash, 'transfer_token.token_txhash');
      const legs = recipients(body.addrs_to, body.amounts, 'transfer_token');
      tx.recipients = legs.map((r) => ({ to: r.to, amount: 0n }));
      tx.tokenTransfers = legs.map((r, i) => ({ logIndex: i, contract, from: tx.from, to: r.to, amount: r.amount }));
      if (legs.length === 1) tx.to = legs[0]!.to;
      break;
    }
    case 'slave': {
      const body = raw.slave as Msg;
      const pks = list(body.slave_pks, 'slave.slave_pks');
      const access = list(body.access_types, 'slave.access_types');
      if (pks.length === 0 || pks.length !== access.length) throw new NodeDataError('slave', `${pks.length} slave keys but ${access.length} access types`);
      tx.slaves = pks.map((pk, i) => ({ slave: addressOfPublicKey(pk, `slave.slave_pks[${i}]`), accessType: Number(access[i]) }));
      break;
    }
    case 'latticePK': {
      const body = (raw.latticePK ?? {}) as Msg;
      tx.lattice = {
        kyberPk: bytes(body.pk1, 'latticePK.pk1').toString('hex'),
        dilithiumPk: bytes(body.pk2, 'latticePK.pk2').toString('hex'),
        ecdsaPk: bytes(body.pk3, 'latticePK.pk3').toString('hex'),
      };
      break;
    }
    case 'proposal_create':
    case 'proposal_vote':
      // Governance: a proposal or a vote on one costs its fee and moves nothing else.
      break;
    case 'multi_sig_create': {
      // The multisig address is the one QRL derives from the transaction's hash; making it moves no value.
      const body = raw.multi_sig_create as Msg;
      const signatories = list(body.signatories, 'multi_sig_create.signatories');
      const weights = list(body.weights, 'multi_sig_create.weights');
      if (signatories.length === 0 || signatories.length !== weights.length) throw new NodeDataError('multi_sig_create', `${signatories.length} signatories but ${weights.length} weights`);
      tx.multiSig = {
        kind: 'create',
        address: multiSigAddress(hash),
        signatories: signatories.map((s, i) => ({ address: powAddress(s, `multi_sig_create.signatories[${i}]`), weight: safeNumber(weights[i], `multi_sig_create.weights[${i}]`) })),
        threshold: safeNumber(body.threshold, 'multi_sig_create.threshold'),
      };
      break;
    }
    case 'multi_sig_spend': {
      // A proposal: value moves only if and when votes carry it, which the transaction does not show.
      const body = raw.multi_sig_spend as Msg;
      tx.to = powAddress(body.multi_sig_address, 'multi_sig_spend.multi_sig_address');
      tx.multiSig = {
        kind: 'spend',
        multiSigAddress: tx.to,
        recipients: recipients(body.addrs_to, body.amounts, 'multi_sig_spend'),
        expiryHeight: safeNumber(body.expiry_block_number, 'multi_sig_spend.expiry_block_number'),
      };
      break;
    }
    case 'multi_sig_vote': {
      const body = raw.multi_sig_vote as Msg;
      tx.input = hash32(body.shared_key, 'multi_sig_vote.shared_key');
      tx.multiSig = { kind: 'vote', sharedKey: tx.input, unvote: body.unvote === true };
      break;
    }
    default:
      // Stored with its sender and fee (a fee moves balances); the body is set aside as a dead letter.
      tx.type = 'unknown';
      return { tx, token: null, setAside: 'a transaction of a kind Quarry does not classify: stored with its sender and fee, its body set aside' };
  }
  return { tx, token, setAside: null };
}

/**
 * A GetBlockByNumber answer's Block as the canonical block at `height`. Throws NodeDataError
 * when its header or any of its transactions does not fit (naming the transaction and field).
 */
export function decodeBlock(raw: Msg | null | undefined, height: number, size: number | null): CanonicalBlock {
  if (!raw) throw new NodeDataError('block', 'the node returned no block');
  const header = raw.header as Msg | null | undefined;
  if (!header) throw new NodeDataError('block.header', 'missing');
  const number = safeNumber(header.block_number, 'header.block_number');
  if (number !== height) throw new NodeDataError('header.block_number', `asked for ${height}, got ${number}`);
  const block = emptyBlock({
    chain: 'pow',
    height,
    hash: hash32(header.hash_header, 'header.hash_header'),
    // The genesis block has no parent: its previous hash is the bytes of the network id
    // ("The sleeper must awaken" on mainnet), kept as the node sent it.
    parentHash: height === 0 ? bytes(header.hash_header_prev, 'header.hash_header_prev').toString('hex') : hash32(header.hash_header_prev, 'header.hash_header_prev'),
    timestamp: safeNumber(header.timestamp_seconds, 'header.timestamp_seconds'),
  });
  block.size = size ?? 0;
  block.reward = amount(header.reward_block, 'header.reward_block');
  const deadLetters: DeadLetterItem[] = [];
  const tokens: TokenInfo[] = [];
  list(raw.transactions, 'block.transactions').forEach((entry, index) => {
    const tx = entry as Msg;
    let decoded: DecodedTx;
    try {
      decoded = decodeTx(tx, index);
    } catch (error) {
      // Every transaction moves value (its fee at least): one that does not decode makes the block bad.
      if (error instanceof NodeDataError) throw new NodeDataError(`transactions[${index}].${error.path}`, error.message.slice(error.path.length + 2), error.payload);
      throw error;
    }
    block.transactions.push(decoded.tx);
    if (decoded.token) tokens.push(decoded.token);
    if (decoded.setAside) deadLetters.push({ item: decoded.tx.hash, error: decoded.setAside, payload: Buffer.from(messages.Transaction.encode(tx).finish()).toString('base64') });
  });
  const coinbase = block.transactions.find((tx) => tx.type === 'coinbase');
  block.miner = coinbase?.to ?? null;
  block.allocations = list(raw.genesis_balance, 'block.genesis_balance').map((entry, i) => {
    const e = entry as Msg;
    return { address: allocationAddress(e.address, `genesis_balance[${i}].address`), amount: amount(e.balance, `genesis_balance[${i}].balance`) };
  });
  block.tokens = tokens;
  block.deadLetters = deadLetters;
  return block;
}
