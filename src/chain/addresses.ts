/**
 * Address parsing and normalisation per chain. Every address that enters Quarry (from a request or
 * a node) passes through here and leaves in its canonical form: `Q` + lowercase hex.
 */
import { createHash } from 'node:crypto';
import { POW_COINBASE_SENTINEL, type ChainId } from './chains.ts';

const POW_ADDRESS = /^[Qq]([0-9a-fA-F]{78})$/;
const POW_SENTINEL = /^[Qq]0{64}$/;
const POS_ADDRESS = /^(?:[QqZz]|0[xX])([0-9a-fA-F]{40})$/;

export type AddressParseResult = { ok: true; address: string } | { ok: false; reason: string };

/** Parses an address of `chain` and returns its canonical form, or why it is malformed. */
export function parseAddress(chain: ChainId, input: string): AddressParseResult {
  return chain === 'pow' ? parsePowAddress(input) : parsePosAddress(input);
}

function parsePowAddress(input: string): AddressParseResult {
  if (POW_SENTINEL.test(input)) return { ok: true, address: POW_COINBASE_SENTINEL };
  const match = POW_ADDRESS.exec(input);
  if (!match) return { ok: false, reason: 'must be Q followed by 78 hex characters' };
  const hex = match[1]!.toLowerCase();
  if (!powChecksumValid(hex)) return { ok: false, reason: 'checksum does not match' };
  return { ok: true, address: 'Q' + hex };
}

export function parsePosAddress(input: string): AddressParseResult {
  const match = POS_ADDRESS.exec(input);
  if (!match) return { ok: false, reason: 'must be Q, Z or 0x followed by 40 hex characters' };
  return { ok: true, address: 'Q' + match[1]!.toLowerCase() };
}

/** A pow address is descriptor (3) + SHA-256(descriptor + public key) (32) + checksum (4), where
 * the checksum is the last 4 bytes of SHA-256 of the first 35 bytes. */
function powChecksumValid(hex: string): boolean {
  const bytes = Buffer.from(hex, 'hex');
  const digest = createHash('sha256').update(bytes.subarray(0, 35)).digest();
  return digest.subarray(28, 32).equals(bytes.subarray(35, 39));
}

/** Builds the pow address of a 3-byte descriptor and a 32-byte key hash (used by generators). */
export function powAddressFromParts(descriptor: Buffer, keyHash: Buffer): string {
  const body = Buffer.concat([descriptor, keyHash]);
  const checksum = createHash('sha256').update(body).digest().subarray(28, 32);
  return 'Q' + Buffer.concat([body, checksum]).toString('hex');
}

/** XMSS tree height encoded in a pow address descriptor (parameter P1 = height / 2). */
export function powTreeHeight(address: string): number | null {
  if (address.length !== 79) return null;
  const p1 = parseInt(address.slice(3, 5), 16) & 0x0f;
  return p1 * 2;
}

/** Converts a node's `0x…` address to the canonical pos form. */
export function posAddressFromHex(hex: string): string {
  return 'Q' + hex.slice(2).toLowerCase();
}

/** Converts a canonical pos address to the `0x…` form nodes speak. */
export function posAddressToHex(address: string): `0x${string}` {
  return `0x${address.slice(1)}`;
}
