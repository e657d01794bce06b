/**
 * Anvil's JSON answers reshaped into go-qrl's, and go-qrl's address parameters read back, following
 * theQRL/go-qrl v0.3.0 (commit f6be71fce79a23e0878cdb03c8a7ae2269d84b58, April 2026):
 * - blocks: `RPCMarshalHeader`/`RPCMarshalBlock` of internal/qrlapi/api.go (no uncles, difficulty,
 *   nonce, sha3Uncles or mixHash; `prevRandao` instead; `withdrawals` only with `withdrawalsRoot`;
 *   withdrawal `amount` in shor, 10^9 planck, consensus/beacon/consensus.go);
 * - transactions: `RPCTransaction` of api.go (type 2 only, no v/r/s/yParity; `descriptor`,
 *   `extraParams`, `publicKey`, `signature`); ML-DSA-87 sizes from crypto/pqcrypto/crypto.go
 *   (public key 2,592 bytes, signature 4,627), the descriptor of go-qrllib's
 *   wallet/common/descriptor (3 bytes: wallet type ML_DSA_87 = 1, then two metadata bytes);
 * - receipts: `marshalReceipt` of api.go; logs: core/types/gen_log_json.go;
 * - call frames: qrl/tracers/native/call.go (geth's callTracer fields), `txTraceResult` of
 *   qrl/tracers/api.go (`txHash`, `result`, `error`);
 * - addresses: common/types.go (`Address.MarshalText` prints `Q` + lowercase hex; `Hex()`, used
 *   for txpool keys, the EIP-55-style checksum over the lowercase hex), parameters read by
 *   common/hexutil/json.go `UnmarshalFixedJSONQ`/`checkTextQ` (`Q` required) and the errors that
 *   reach the caller through rpc/service.go `parsePositionalArguments` ("invalid argument N: …",
 *   -32602 in rpc/errors.go); the log filter's own `decodeAddress` in qrl/filters/api.go.
 *
 * With 64-byte addresses it follows the fork rgeraldes24/go-qrl at commit 7f427122d: addresses
 * printed by `Address.MarshalText` = `Hex()`, `qip55AddressHex` (QIP-55 mixed case over
 * SHAKE-256), logs with VM64 topics and data (./vm64.ts).
 *
 * The hashes stay Anvil's (nothing is re-encoded): the filler keys and signatures do not change a
 * block's or transaction's hash as they would on a real node.
 */
import { createHash } from 'node:crypto';
import { keccak256, toHex } from 'viem';
import { widenLog } from './vm64.ts';

export const PUBLIC_KEY_BYTES = 2592;
export const SIGNATURE_BYTES = 4627;
/** go-qrllib's descriptor of an ML-DSA-87 wallet: type 1, no metadata. */
export const DESCRIPTOR = '0x010000';

const shake = (label: string, input: string, bytes: number) => createHash('shake256', { outputLength: bytes }).update(label).update(input).digest('hex');

/** A go-qrl parameter that does not decode: the message the node answers (code -32602). */
export class ParamError extends Error {}

/**
 * The addresses of one network width: Anvil's 20 bytes as they are (20), or each one extended by a
 * fixed 44-byte tail derived from it (64), so the map is reversible without a table.
 */
export class AddressBook {
  constructor(readonly bytes: 20 | 64) {}

  private tail(hex40: string): string {
    return /^0+$/.test(hex40) ? '0'.repeat(88) : shake('go-qrl-proxy/address', hex40, 44);
  }

  /**
   * Anvil's `0x…` (20 bytes) as go-qrl prints it: `Q` + lowercase hex (v0.3.0's `MarshalText`); on
   * the 64-byte fork `MarshalText` is `Hex()`, QIP-55 mixed case.
   */
  out(anvil: string): string {
    const hex = anvil.slice(2).toLowerCase();
    return this.bytes === 20 ? `Q${hex}` : `Q${qip55(hex + this.tail(hex))}`;
  }

  /** As `Address.Hex()` prints it (txpool keys): the checksummed form, EIP-55's rule over Keccak-256 (20 bytes) or QIP-55 (64). */
  outChecksummed(anvil: string): string {
    if (this.bytes === 64) return this.out(anvil);
    const lower = this.out(anvil).slice(1);
    const digest = keccak256(toHex(lower)).slice(2);
    let out = 'Q';
    for (let i = 0; i < lower.length; i++) {
      const byte = parseInt(digest.slice(2 * (i >> 1), 2 * (i >> 1) + 2), 16);
      const half = i % 2 === 0 ? byte >> 4 : byte & 0xf;
      out += lower[i]! > '9' && half > 7 ? lower[i]!.toUpperCase() : lower[i]!;
    }
    return out;
  }

  /** The 40 hex digits Anvil knows for a decoded go-qrl address (an unknown 64-byte one maps to an empty account). */
  in(hex: string): string {
    const lower = hex.toLowerCase();
    if (this.bytes === 20) return `0x${lower}`;
    const head = lower.slice(0, 40);
    return lower.slice(40) === this.tail(head) ? `0x${head}` : `0x${shake('go-qrl-proxy/unknown', lower, 20)}`;
  }

  /**
   * `hexutil.UnmarshalFixedTextQ` of an address: the error text and whether go-qrl wraps it in a
   * json.UnmarshalTypeError (its `decError`s are; the length error is a plain error).
   */
  private decodeFixed(text: string): { hex: string } | { error: string; typeError: boolean } {
    if (text === '') return { hex: '0'.repeat(this.bytes * 2) };
    if (text[0] !== 'Q') return { error: 'hex string without Q prefix', typeError: true };
    const raw = text.slice(1);
    if (raw.length % 2 !== 0) return { error: 'hex string of odd length', typeError: true };
    if (raw.length / 2 !== this.bytes) return { error: `hex string has length ${raw.length}, want ${this.bytes * 2} for common.Address`, typeError: false };
    if (!/^[0-9a-fA-F]*$/.test(raw)) return { error: 'invalid hex string', typeError: true };
    return { hex: raw };
  }

  /** A positional `common.Address` argument. */
  param(value: unknown, index: number): string {
    if (typeof value !== 'string') throw new ParamError(`invalid argument ${index}: json: cannot unmarshal non-string into Go value of type common.Address`);
    const decoded = this.decodeFixed(value);
    if ('error' in decoded) throw new ParamError(`invalid argument ${index}: ${decoded.typeError ? `json: cannot unmarshal ${decoded.error} into Go value of type common.Address` : decoded.error}`);
    return this.in(decoded.hex);
  }

  /** An address field of a struct argument (`TransactionArgs.to`). */
  field(value: unknown, index: number, struct: string, field: string): string {
    if (typeof value !== 'string') throw new ParamError(`invalid argument ${index}: json: cannot unmarshal non-string into Go struct field ${struct}.${field} of type common.Address`);
    const decoded = this.decodeFixed(value);
    if ('error' in decoded) throw new ParamError(`invalid argument ${index}: ${decoded.typeError ? `json: cannot unmarshal ${decoded.error} into Go struct field ${struct}.${field} of type common.Address` : decoded.error}`);
    return this.in(decoded.hex);
  }

  /** An address of a log filter, decoded by qrl/filters/api.go `decodeAddress` (`hexutil.DecodeQ`). */
  filterAddress(value: string): string {
    if (value === '') throw new Error('empty hex string');
    if (value[0] !== 'Q') throw new Error('hex string without Q prefix');
    const raw = value.slice(1);
    if (raw.length % 2 !== 0) throw new Error('hex string of odd length');
    if (!/^[0-9a-fA-F]*$/.test(raw)) throw new Error('invalid hex string');
    if (raw.length / 2 !== this.bytes) throw new Error(`hex has invalid length ${raw.length / 2} after decoding; expected ${this.bytes} for address`);
    return this.in(raw);
  }
}

/**
 * The 64-byte fork's `qip55AddressHex` (rgeraldes24/go-qrl 7f427122d, common/types.go): a letter
 * of the lowercase hex is upper-cased when the nibble of SHAKE-256 (64 bytes) of that hex text at
 * its position is 8 or more (high nibble for even positions).
 */
export function qip55(lowerHex: string): string {
  const checksum = createHash('shake256', { outputLength: 64 }).update(lowerHex, 'utf8').digest();
  let out = '';
  for (let i = 0; i < lowerHex.length; i++) {
    const c = lowerHex[i]!;
    const nibble = i % 2 === 0 ? checksum[i >> 1]! >> 4 : checksum[i >> 1]! & 0x0f;
    out += c >= 'a' && c <= 'f' && nibble >= 8 ? c.toUpperCase() : c;
  }
  return out;
}

type Json = Record<string, any>;

const isAddress = (v: unknown): v is string => typeof v === 'string' && /^0x[0-9a-fA-F]{40}$/.test(v);
const addr = (book: AddressBook, v: unknown) => (isAddress(v) ? book.out(v) : (v ?? null));

/** The filler key of a sender (one per address) and signature of a transaction (one per hash). */
function filler(label: string, seed: string, bytes: number): string {
  return `0x${shake(`go-qrl-proxy/${label}`, seed.toLowerCase(), bytes)}`;
}

/** Bytes a real block grows by per transaction: RLP of key, signature, descriptor and extra params, less v, r, s. */
const SIZE_PER_TX = PUBLIC_KEY_BYTES + 3 + (SIGNATURE_BYTES + 3) + (3 + 1) + 1 - 67;

export function transaction(book: AddressBook, tx: Json): Json {
  if (tx.type !== '0x2') throw new Error(`go-qrl has type-2 transactions only; Anvil gave type ${tx.type} (${tx.hash})`);
  const out: Json = {
    blockHash: tx.blockHash ?? null,
    blockNumber: tx.blockNumber ?? null,
    from: addr(book, tx.from),
    gas: tx.gas,
    gasPrice: tx.gasPrice,
    maxFeePerGas: tx.maxFeePerGas,
    maxPriorityFeePerGas: tx.maxPriorityFeePerGas,
    hash: tx.hash,
    input: tx.input,
    nonce: tx.nonce,
    to: addr(book, tx.to),
    transactionIndex: tx.transactionIndex ?? null,
    value: tx.value,
    type: tx.type,
    accessList: (tx.accessList ?? []).map((entry: Json) => ({ address: addr(book, entry.address), storageKeys: entry.storageKeys })),
    chainId: tx.chainId,
    descriptor: DESCRIPTOR,
    extraParams: '0x',
    publicKey: filler('publicKey', String(tx.from), PUBLIC_KEY_BYTES),
    signature: filler('signature', String(tx.hash), SIGNATURE_BYTES),
  };
  return out;
}

/** `RPCMarshalHeader`: exactly its fields. */
export function header(book: AddressBook, block: Json): Json {
  const out: Json = {
    number: block.number,
    hash: block.hash,
    parentHash: block.parentHash,
    prevRandao: block.mixHash ?? block.prevRandao,
    logsBloom: block.logsBloom,
    stateRoot: block.stateRoot,
    miner: addr(book, block.miner),
    extraData: block.extraData,
    gasLimit: block.gasLimit,
    gasUsed: block.gasUsed,
    timestamp: block.timestamp,
    transactionsRoot: block.transactionsRoot,
    receiptsRoot: block.receiptsRoot,
  };
  if (block.baseFeePerGas !== undefined) out.baseFeePerGas = block.baseFeePerGas;
  if (block.withdrawalsRoot !== undefined) out.withdrawalsRoot = block.withdrawalsRoot;
  return out;
}

/** `RPCMarshalBlock` with transactions (hashes, or full with `fullTx`). */
export function block(book: AddressBook, raw: Json | null): Json | null {
  if (raw === null) return null;
  const out = header(book, raw);
  const txs: unknown[] = raw.transactions ?? [];
  out.size = `0x${(Number(raw.size) + SIZE_PER_TX * txs.length).toString(16)}`;
  out.transactions = txs.map((tx) => (typeof tx === 'string' ? tx : transaction(book, tx as Json)));
  if (raw.withdrawalsRoot !== undefined) {
    out.withdrawals = (raw.withdrawals ?? []).map((w: Json) => ({ index: w.index, validatorIndex: w.validatorIndex, address: addr(book, w.address), amount: w.amount }));
  }
  return out;
}

/** A log (core/types/gen_log_json.go); on the 64-byte fork with VM64 topics and data (./vm64.ts). */
export function log(book: AddressBook, raw: Json): Json {
  const l = book.bytes === 64 ? widenLog(book, raw) : raw;
  return {
    address: addr(book, l.address),
    topics: l.topics,
    data: l.data,
    blockNumber: l.blockNumber,
    transactionHash: l.transactionHash,
    transactionIndex: l.transactionIndex,
    blockHash: l.blockHash,
    logIndex: l.logIndex,
    removed: l.removed ?? false,
  };
}

/** `marshalReceipt`: exactly its fields. */
export function receipt(book: AddressBook, r: Json | null): Json | null {
  if (r === null) return null;
  const out: Json = {
    blockHash: r.blockHash,
    blockNumber: r.blockNumber,
    transactionHash: r.transactionHash,
    transactionIndex: r.transactionIndex,
    from: addr(book, r.from),
    to: addr(book, r.to),
    gasUsed: r.gasUsed,
    cumulativeGasUsed: r.cumulativeGasUsed,
    contractAddress: addr(book, r.contractAddress),
    logs: (r.logs ?? []).map((l: Json) => log(book, l)),
    logsBloom: r.logsBloom,
    type: r.type,
    effectiveGasPrice: r.effectiveGasPrice,
  };
  if (r.root !== undefined && r.status === undefined) out.root = r.root;
  else out.status = r.status;
  return out;
}

/** The opcodes go-qrl's EVM can name in a call frame (core/vm/opcodes.go: no CALLCODE, no SELFDESTRUCT). */
const FRAME_TYPES = new Set(['CALL', 'STATICCALL', 'DELEGATECALL', 'CREATE', 'CREATE2']);

/** A callTracer frame (qrl/tracers/native/call.go), nested calls and logs included. */
export function callFrame(book: AddressBook, frame: Json): Json {
  if (!FRAME_TYPES.has(frame.type)) throw new Error(`go-qrl's EVM has no ${frame.type} frame`);
  const out: Json = { ...frame, from: addr(book, frame.from) };
  if (frame.to !== undefined) out.to = addr(book, frame.to);
  if (frame.calls) out.calls = frame.calls.map((c: Json) => callFrame(book, c));
  if (frame.logs) out.logs = frame.logs.map((raw: Json) => {
    const l = book.bytes === 64 ? widenLog(book, raw) : raw;
    return { ...l, address: addr(book, l.address) };
  });
  return out;
}

/** A tracer's answer: call frames are reshaped, other tracers' answers (no `from`) pass as they are. */
export function traceResult(book: AddressBook, result: unknown): unknown {
  return result !== null && typeof result === 'object' && 'from' in result && 'type' in result ? callFrame(book, result as Json) : result;
}

/**
 * txpool_content(From): `Address.Hex()` keys, nonces in decimal, `NewRPCPendingTransaction`
 * values: no block hash, number or index, and (type 2) `gasPrice` the fee cap, `maxFeePerGas`.
 */
export function txpoolContent(book: AddressBook, content: Json, byAccount: boolean): Json {
  const perAccount = (accounts: Json) => Object.fromEntries(Object.entries(accounts ?? {}).map(([account, txs]) => [book.outChecksummed(account), perNonce(txs as Json)]));
  const pending = (tx: Json) => ({ ...transaction(book, tx), blockHash: null, blockNumber: null, transactionIndex: null, gasPrice: tx.maxFeePerGas });
  const perNonce = (txs: Json) => Object.fromEntries(Object.entries(txs ?? {}).map(([nonce, tx]) => [String(Number(nonce)), pending(tx as Json)]));
  return byAccount
    ? { pending: perNonce(content.pending), queued: perNonce(content.queued) }
    : { pending: perAccount(content.pending), queued: perAccount(content.queued) };
}
