/**
 * The one place that turns what an EVM node sends into typed values: hex quantities to bigint,
 * addresses to the canonical `Q…` form, hashes and data to lowercase `0x…`. Every field is
 * checked; a field that does not fit throws a `NodeDataError` naming its path, so a malformed
 * response makes its block undecodable, never a wrong number in the database.
 *
 * Tolerated deviations (seen on real nodes): quantities with leading zeros, quantities sent as
 * JSON numbers (trace_block's blockNumber), upper-case hex, and addresses with a `Z` or `Q`
 * prefix instead of `0x` (go-zond and QRL 2.0 nodes).
 *
 * Addresses have the node's width (`width`: 20 or 64 bytes, docs/indexing-pos.md "Address width"):
 * an address of another width, or mixed case with a wrong checksum, is a NodeDataError, never
 * padded or cut. Log topics are 32 bytes on 20-byte networks and 64 bytes on 64-byte ones (the
 * go-qrl fork's VM64 `common.LogTopic`).
 */
import { parsePosAddress } from '../../chain/addresses.ts';
import { NodeDataError } from './errors.ts';

const HEX_QUANTITY = /^0[xX][0-9a-fA-F]{1,64}$/;
const HEX_DATA = /^0[xX](?:[0-9a-fA-F]{2})*$/;
const HASH = /^0[xX][0-9a-fA-F]{64}$/;

export type Json = Record<string, unknown>;

export function object(value: unknown, path: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new NodeDataError(path, 'expected an object', value);
  return value as Json;
}

export function array(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) throw new NodeDataError(path, 'expected an array', value);
  return value;
}

/** A hex quantity (or a non-negative JSON integer) as bigint. */
export function quantity(value: unknown, path: string): bigint {
  if (typeof value === 'string' && HEX_QUANTITY.test(value)) return BigInt(value);
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  throw new NodeDataError(path, 'expected a hex quantity', value);
}

/** A quantity that must fit a JavaScript number (heights, indexes, gas). */
export function smallQuantity(value: unknown, path: string): number {
  const big = quantity(value, path);
  if (big > BigInt(Number.MAX_SAFE_INTEGER)) throw new NodeDataError(path, 'quantity too large', value);
  return Number(big);
}

export function optionalQuantity(value: unknown, path: string): bigint | null {
  return value === undefined || value === null ? null : quantity(value, path);
}

export function optionalSmallQuantity(value: unknown, path: string): number | null {
  return value === undefined || value === null ? null : smallQuantity(value, path);
}

/** A 32-byte hash, lowercase. */
export function hash(value: unknown, path: string): string {
  if (typeof value === 'string' && HASH.test(value)) return value.toLowerCase();
  throw new NodeDataError(path, 'expected a 32-byte hex hash', value);
}

/** Hex bytes of any length, lowercase `0x…`. */
export function data(value: unknown, path: string): `0x${string}` {
  if (typeof value === 'string' && HEX_DATA.test(value)) return value.toLowerCase() as `0x${string}`;
  throw new NodeDataError(path, 'expected hex data', value);
}

/** An address of `width` bytes in the canonical pos form (`Q` + lowercase hex), whatever prefix the node used. */
export function address(value: unknown, path: string, width: number): string {
  if (typeof value === 'string') {
    const parsed = parsePosAddress(value, width);
    if (parsed.ok) return parsed.address;
    throw new NodeDataError(path, `expected a ${width}-byte address: ${parsed.reason}`, value);
  }
  throw new NodeDataError(path, `expected a ${width}-byte address`, value);
}

export function optionalAddress(value: unknown, path: string, width: number): string | null {
  return value === undefined || value === null ? null : address(value, path, width);
}

/** Bytes in a log topic on a network whose addresses have `width` bytes: one ABI word (32, or VM64's 64). */
export function topicBytes(width: number): 32 | 64 {
  return width === 64 ? 64 : 32;
}

/** A log topic of `bytes` bytes, lowercase `0x…`. */
export function topic(value: unknown, path: string, bytes: 32 | 64): string {
  if (typeof value === 'string' && value.length === 2 + 2 * bytes && HEX_DATA.test(value)) return value.toLowerCase();
  throw new NodeDataError(path, `expected a ${bytes}-byte topic`, value);
}

/** Gwei (as the node reports withdrawals and the beacon reports balances) to planck. */
export const PLANCK_PER_GWEI = 10n ** 9n;

/**
 * The canonical address an indexed `address` topic carries, or null when the topic is not one
 * (never cut to fit): a 20-byte address sits in the low bytes of a 32-byte word whose high 12 bytes
 * are zero (the Solidity ABI); a 64-byte address fills its 64-byte topic (go-qrl fork
 * `common.AddressToLogTopic`).
 */
export function addressFromTopic(word: string, width: number): string | null {
  if (width === 64) return word.length === 130 ? 'Q' + word.slice(2).toLowerCase() : null;
  if (width !== 20 || word.length !== 66 || !/^0x0{24}/.test(word)) return null;
  return 'Q' + word.slice(26).toLowerCase();
}

/** Block number parameter in the form every node accepts. */
export function toQuantity(value: number | bigint): `0x${string}` {
  return `0x${value.toString(16)}`;
}
