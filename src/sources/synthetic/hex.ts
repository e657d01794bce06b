/** Fast hex for hashes and addresses: lookup tables instead of per-call formatting or hashing. */
import { hash } from 'node:crypto';
import type { Rng } from './rng.ts';

const HEX4: string[] = new Array(65536);
for (let i = 0; i < 65536; i++) HEX4[i] = i.toString(16).padStart(4, '0');

/** 8 hex digits of a 32-bit unsigned integer. */
export function hex32(value: number): string {
  return HEX4[value >>> 16]! + HEX4[value & 0xffff]!;
}

/** Two ASCII hex digits of each byte value, as one little-endian 16-bit code (written into a Buffer in one store). */
const BYTE_HEX_CODES = new Uint16Array(256);
for (let i = 0; i < 256; i++) {
  const pair = i.toString(16).padStart(2, '0');
  BYTE_HEX_CODES[i] = pair.charCodeAt(0) | (pair.charCodeAt(1) << 8);
}
const scratch = Buffer.alloc(1024);
const scratchCodes = new Uint16Array(scratch.buffer, scratch.byteOffset, scratch.length / 2);

/**
 * `prefix` (0-2 characters) and `words` random 32-bit words as 8 * words hex digits (at most 120
 * words). The digits are written as ASCII into a scratch buffer and read back as one flat string:
 * several times faster than concatenating table strings, and the result needs no flattening later.
 */
function hexWithPrefix(rng: Rng, prefix: string, words: number): string {
  // Digits start at byte 2 (an aligned 16-bit slot); the prefix goes right before them.
  for (let i = 0; i < words; i++) {
    const v = rng.u32();
    const at = 1 + i * 4;
    scratchCodes[at] = BYTE_HEX_CODES[v >>> 24]!;
    scratchCodes[at + 1] = BYTE_HEX_CODES[(v >>> 16) & 0xff]!;
    scratchCodes[at + 2] = BYTE_HEX_CODES[(v >>> 8) & 0xff]!;
    scratchCodes[at + 3] = BYTE_HEX_CODES[v & 0xff]!;
  }
  const from = 2 - prefix.length;
  for (let i = 0; i < prefix.length; i++) scratch[from + i] = prefix.charCodeAt(i);
  return scratch.toString('latin1', from, 2 + words * 8);
}

/** `words` random 32-bit words as 8 * words hex digits. */
export function randomHex(rng: Rng, words: number): string {
  return hexWithPrefix(rng, '', words);
}

/** A pow block or transaction hash: 64 lowercase hex. */
export function powHash(rng: Rng): string {
  return hexWithPrefix(rng, '', 8);
}

/** A pos block or transaction hash: 0x + 64 lowercase hex. */
export function posHash(rng: Rng): string {
  return hexWithPrefix(rng, '0x', 8);
}

/** A pos address: Q + 40 lowercase hex. */
export function posAddress(rng: Rng): string {
  return hexWithPrefix(rng, 'Q', 5);
}

/** XMSS tree heights QRL wallets offer; an address of height h can sign 2^h times. */
export const XMSS_TREE_HEIGHTS = [8, 10, 12, 14, 16, 18] as const;

const powBody = Buffer.alloc(39);

/**
 * A valid pow address (checksum included) with an XMSS descriptor of the given tree height:
 * byte 0 = signature type XMSS (0) << 4 | hash function (SHA2-256, SHAKE-128 or SHAKE-256),
 * byte 1 = address format SHA256_2X (0) << 4 | height / 2, byte 2 = 0; then a random 32-byte key
 * hash and the checksum (the last 4 bytes of SHA-256 of the first 35). This is what
 * `powAddressFromParts` builds (the tests check they agree), with a one-shot hash into a reused
 * buffer: three times faster, and a world creates hundreds of thousands of addresses.
 */
export function powAddress(rng: Rng, treeHeight: number): string {
  powBody[0] = rng.int(3);
  powBody[1] = treeHeight / 2;
  powBody[2] = 0;
  for (let i = 3; i < 35; i += 4) powBody.writeUInt32BE(rng.u32(), i);
  const digest = hash('sha256', powBody.subarray(0, 35), 'buffer');
  for (let i = 0; i < 4; i++) powBody[35 + i] = digest[28 + i]!;
  // Hex digits into the scratch buffer after 'Q' (one 16-bit store per byte), read back flat.
  for (let i = 0; i < 39; i++) scratchCodes[1 + i] = BYTE_HEX_CODES[powBody[i]!]!;
  scratch[1] = 0x51; // 'Q'
  return scratch.toString('latin1', 1, 80);
}

/** Hex of a UTF-8 string (pow message payloads, token names). */
export function utf8Hex(text: string): string {
  return Buffer.from(text, 'utf8').toString('hex');
}
