/**
 * Address parsing and normalisation per chain. Every address that enters Quarry (from a request or
 * a node) passes through here and leaves in its canonical form: `Q` + lowercase hex.
 */
import { createHash } from 'node:crypto';
import { bech32 } from '@scure/base';
import { keccak_256 } from '@noble/hashes/sha3';
import { POW_COINBASE_SENTINEL, type ChainId } from './chains.ts';
import { POS_ADDRESS_WIDTHS, type ChainNetwork } from './network.ts';

const POW_ADDRESS = /^[Qq]([0-9a-fA-F]{78})$/;
const POW_SENTINEL = /^[Qq]0{64}$/;
/** The hex form's shape, of any length: such an input is judged as hex, not as bech32. */
const POW_HEX_SHAPE = /^[Qq][0-9a-fA-F]*$/;
/** A bech32 string's shape: letters (the prefix), then the separator `1`. */
const BECH32_SHAPE = /^[A-Za-z]+1/;
/** BIP-173's alphabet: a bech32 string is printable ASCII, its data part of these characters. */
const BECH32_DATA = /^[qpzry9x8gf2tvdw0s3jn54khce6mua7l]+$/;
const POS_ADDRESS_20 = /^(?:[QqZz]|0[xX])([0-9a-fA-F]{40})$/;
const POS_ADDRESS_64 = /^[Qq]([0-9a-fA-F]{128})$/;

export type AddressParseResult = { ok: true; address: string } | { ok: false; reason: string };

/**
 * Parses an address of `chain` and returns its canonical form, or why it is malformed. `network`
 * gives the width of the chain's addresses (pos: 20 or 64 bytes, as the store learned it).
 */
export function parseAddress(chain: 'pow', input: string, network?: Pick<ChainNetwork, 'addressBytes'>): AddressParseResult;
export function parseAddress(chain: ChainId, input: string, network: Pick<ChainNetwork, 'addressBytes'>): AddressParseResult;
export function parseAddress(chain: ChainId, input: string, network?: Pick<ChainNetwork, 'addressBytes'>): AddressParseResult {
  return chain === 'pow' ? parsePowAddress(input) : parsePosAddress(input, network!.addressBytes);
}

function parsePowAddress(input: string): AddressParseResult {
  if (POW_SENTINEL.test(input)) return { ok: true, address: POW_COINBASE_SENTINEL };
  if (BECH32_SHAPE.test(input) && !POW_HEX_SHAPE.test(input)) return parsePowBech32(input);
  const match = POW_ADDRESS.exec(input);
  if (!match) return { ok: false, reason: 'must be Q followed by 78 hex characters, or a bech32 q1… address' };
  const hex = match[1]!.toLowerCase();
  if (!powChecksumValid(hex)) return { ok: false, reason: 'checksum does not match' };
  return { ok: true, address: 'Q' + hex };
}

/**
 * The bech32 form QRL's wallets and explorer show (theQRL/QRL `AddressHelper`, theQRL/explorer-helpers
 * `b32Encode`): BIP-173 bech32 (not bech32m), prefix `q`, over the 35 bytes of descriptor + hash in
 * 5-bit groups (56 of them, no padding); the 4-byte checksum of the hex form is left out and
 * computed again here. The coinbase's zero address (32 or 35 zero bytes) is the sentinel.
 */
function parsePowBech32(input: string): AddressParseResult {
  const fail = (why: string): AddressParseResult => ({ ok: false, reason: `bech32: ${why}` });
  const lower = input.toLowerCase();
  if (input !== lower && input !== input.toUpperCase()) return fail('mixes upper and lower case');
  const separator = lower.lastIndexOf('1');
  const prefix = lower.slice(0, separator);
  if (prefix !== 'q') return fail(`the prefix must be q, not ${JSON.stringify(prefix.slice(0, 16))}`);
  if (!BECH32_DATA.test(lower.slice(separator + 1))) return fail('a character outside the bech32 alphabet');
  const decoded = bech32.decodeUnsafe(lower, false);
  if (!decoded) return fail('checksum does not match');
  const bytes = bech32.fromWordsUnsafe(decoded.words);
  if (!bytes) return fail('the data is not a whole number of bytes');
  if (bytes.every((b) => b === 0) && (bytes.length === 32 || bytes.length === 35)) return { ok: true, address: POW_COINBASE_SENTINEL };
  if (bytes.length !== 35) return fail(`encodes ${bytes.length} bytes, a pow address 35 (descriptor and hash)`);
  const body = Buffer.from(bytes);
  return { ok: true, address: 'Q' + Buffer.concat([body, powChecksum(body)]).toString('hex') };
}

/**
 * Parses a pos address of `width` bytes (POS_ADDRESS_WIDTHS) into `Q` + lowercase hex. Never pads
 * or truncates: an address of another width is refused, naming the width the network uses.
 * - 20 bytes (go-qrl `common.Address`): `Q`, `Z` or `0x` + 40 hex;
 * - 64 bytes (go-qrllib `wallet/common`, the go-qrl fork's QIP-55): `Q` + 128 hex.
 * All-lowercase and all-uppercase hex are accepted; mixed case must carry the network's checksum
 * (see `checksummedPosHex`), as go-qrllib's `IsValidAddress` requires.
 */
export function parsePosAddress(input: string, width: number): AddressParseResult {
  if (!isPosAddressWidth(width)) return { ok: false, reason: `this network's ${width}-byte addresses are not supported` };
  const match = (width === 64 ? POS_ADDRESS_64 : POS_ADDRESS_20).exec(input);
  if (!match) return { ok: false, reason: posFormReason(width) };
  const body = match[1]!;
  const lower = body.toLowerCase();
  if (body !== lower && body !== body.toUpperCase() && body !== checksummedPosHex(lower)) {
    return { ok: false, reason: `mixed-case checksum does not match (${width}-byte addresses on this network)` };
  }
  return { ok: true, address: 'Q' + lower };
}

function posFormReason(width: 20 | 64): string {
  return width === 64
    ? 'must be Q followed by 128 hex characters (64-byte addresses on this network)'
    : 'must be Q, Z or 0x followed by 40 hex characters (20-byte addresses on this network)';
}

export function isPosAddressWidth(width: number): width is 20 | 64 {
  return (POS_ADDRESS_WIDTHS as readonly number[]).includes(width);
}

/**
 * The mixed-case checksummed form of a lowercase hex body (no prefix): each letter is upper-cased
 * when the matching nibble of a hash of the lowercase hex is 8 or more.
 * - 20 bytes: Keccak-256 (EIP-55; go-qrl `common.Address.checksumHex`);
 * - 64 bytes: SHAKE-256 with 64 bytes of output, one nibble per hex character (go-qrllib
 *   `wallet/common/address.go` `checksummedHex`; go-qrl fork `common.qip55AddressHex`).
 */
export function checksummedPosHex(lowerHex: string): string {
  const digest =
    lowerHex.length === 128
      ? createHash('shake256', { outputLength: 64 }).update(lowerHex, 'utf8').digest('hex')
      : Buffer.from(keccak_256(Buffer.from(lowerHex, 'utf8'))).toString('hex');
  let out = '';
  for (let i = 0; i < lowerHex.length; i++) {
    const c = lowerHex[i]!;
    out += c >= 'a' && c <= 'f' && parseInt(digest[i]!, 16) >= 8 ? c.toUpperCase() : c;
  }
  return out;
}

/** A pow address is descriptor (3) + SHA-256(descriptor + public key) (32) + checksum (4), where
 * the checksum is the last 4 bytes of SHA-256 of the first 35 bytes. */
function powChecksumValid(hex: string): boolean {
  const bytes = Buffer.from(hex, 'hex');
  return powChecksum(bytes.subarray(0, 35)).equals(bytes.subarray(35, 39));
}

function powChecksum(body: Uint8Array): Buffer {
  return createHash('sha256').update(body).digest().subarray(28, 32);
}

/** Builds the pow address of a 3-byte descriptor and a 32-byte key hash (used by generators). */
export function powAddressFromParts(descriptor: Buffer, keyHash: Buffer): string {
  const body = Buffer.concat([descriptor, keyHash]);
  return 'Q' + Buffer.concat([body, powChecksum(body)]).toString('hex');
}

/** The descriptor of a pow multi-signature address (theQRL/QRL MultiSigAddressState). */
const MULTISIG_DESCRIPTOR = Buffer.from('110000', 'hex');

/**
 * The address a multi_sig_create transaction makes: descriptor 110000, SHA-256 of the descriptor
 * and the transaction's hash, checksum (MultiSigAddressState.generate_multi_sig_address).
 */
export function multiSigAddress(createTxHash: string): string {
  const keyHash = createHash('sha256').update(MULTISIG_DESCRIPTOR).update(Buffer.from(createTxHash, 'hex')).digest();
  return powAddressFromParts(MULTISIG_DESCRIPTOR, keyHash);
}

/** Whether a canonical pow address is a multi-signature one (its descriptor's first byte is 0x11). */
export function isMultiSigAddress(address: string): boolean {
  return address.length === 79 && address.startsWith('Q11');
}

/** XMSS tree height encoded in a pow address descriptor (parameter P1 = height / 2). */
export function powTreeHeight(address: string): number | null {
  if (address.length !== 79) return null;
  const p1 = parseInt(address.slice(3, 5), 16) & 0x0f;
  return p1 * 2;
}

/** Hash functions of an XMSS descriptor (byte 0, low nibble: qrllib eHashFunction). */
const POW_HASH_FUNCTIONS: Record<number, string> = { 0: 'sha2_256', 1: 'shake_128', 2: 'shake_256' };

/** The hash function a pow address descriptor names: sha2_256, shake_128, shake_256, or unknown. */
export function powHashFunction(address: string): string {
  return POW_HASH_FUNCTIONS[parseInt(address.slice(2, 3), 16)] ?? 'unknown';
}

/** Converts a node's `0x…` address to the canonical pos form. */
export function posAddressFromHex(hex: string): string {
  return 'Q' + hex.slice(2).toLowerCase();
}

/** Converts a canonical pos address to the `0x…` form nodes speak. */
export function posAddressToHex(address: string): `0x${string}` {
  return `0x${address.slice(1)}`;
}
