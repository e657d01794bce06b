/**
 * ERC-20 metadata by `eth_call`: name(), symbol(), decimals(). Real tokens are messy, so each
 * answer is decoded defensively:
 * - a string return (the standard);
 * - a bytes32 return (MKR, SAI and other early tokens): trailing zero bytes stripped, UTF-8;
 * - no such method, a revert, empty return data, or garbage: null for that field.
 * Strings lose NUL and other control characters (PostgreSQL TEXT cannot hold NUL) and are capped.
 *
 * On a 64-byte network the VM's words are 64 bytes (the go-qrl fork's VM64 ABI,
 * `accounts/abi/pack.go`): a uint is right-aligned in a 64-byte word, a string is an offset word, a
 * length word and its bytes padded to 64, and a bytes32 fills the high half of its word. Selectors
 * stay the first 4 bytes of the signature's Keccak-256 (`accounts/abi/method.go`).
 */
import { decodeAbiParameters, hexToString, size, trim } from 'viem';
import { RpcError } from './errors.ts';
import { addressBytesOf, call, type BlockTag, type EvmNode } from './methods.ts';

/** Bytes in an ABI word: 32, or 64 on VM64 (64-byte address) networks. */
export type AbiWord = 32 | 64;

export interface TokenMetadata {
  name: string | null;
  symbol: string | null;
  decimals: number | null;
}

const SELECTOR = { name: '0x06fdde03', symbol: '0x95d89b41', decimals: '0x313ce567' } as const;
const MAX_TEXT = 200;

export async function fetchTokenMetadata(node: EvmNode, contract: string, block: BlockTag): Promise<TokenMetadata> {
  const [name, symbol, decimals] = await Promise.all([
    tryCall(node, contract, SELECTOR.name, block),
    tryCall(node, contract, SELECTOR.symbol, block),
    tryCall(node, contract, SELECTOR.decimals, block),
  ]);
  const word: AbiWord = addressBytesOf(node) === 64 ? 64 : 32;
  return { name: decodeText(name, word), symbol: decodeText(symbol, word), decimals: decodeDecimals(decimals, word) };
}

/** The call's return data, or null when the call reverted or the method is missing. */
async function tryCall(node: EvmNode, contract: string, input: `0x${string}`, block: BlockTag): Promise<`0x${string}` | null> {
  try {
    return await call(node, contract, input, block);
  } catch (error) {
    // A transient failure must not turn into a permanent null: let the caller retry the block.
    if (error instanceof RpcError && error.retryable) throw error;
    if (error instanceof RpcError) return null;
    throw error;
  }
}

export function decodeText(returned: `0x${string}` | null, word: AbiWord = 32): string | null {
  if (returned === null || returned === '0x') return null;
  if (word === 64) return decodeVm64Text(returned);
  try {
    const [value] = decodeAbiParameters([{ type: 'string' }], returned);
    return clean(value);
  } catch {
    // not an ABI string; fall through to bytes32
  }
  if (size(returned) === 32) {
    try {
      return clean(hexToString(trim(returned, { dir: 'right' })));
    } catch {
      return null;
    }
  }
  return null;
}

export function decodeDecimals(returned: `0x${string}` | null, word: AbiWord = 32): number | null {
  if (returned === null || size(returned) < word) return null;
  if (word === 64) {
    const value = BigInt('0x' + returned.slice(2, 2 + 128));
    return value <= 255n ? Number(value) : null;
  }
  try {
    const [value] = decodeAbiParameters([{ type: 'uint256' }], returned);
    return value <= 255n ? Number(value) : null;
  } catch {
    return null;
  }
}

/** A VM64 `string` return (offset word, length word, bytes), else a bytes32 one (the high half of one word). */
function decodeVm64Text(returned: `0x${string}`): string | null {
  const bytes = Buffer.from(returned.slice(2), 'hex');
  if (bytes.length >= 128 && bytes.length % 64 === 0) {
    const offset = BigInt('0x' + bytes.subarray(0, 64).toString('hex'));
    if (offset % 64n === 0n && offset + 64n <= BigInt(bytes.length)) {
      const start = Number(offset) + 64;
      const length = BigInt('0x' + bytes.subarray(start - 64, start).toString('hex'));
      if (BigInt(start) + length <= BigInt(bytes.length)) return clean(new TextDecoder().decode(bytes.subarray(start, start + Number(length))));
    }
  }
  if (bytes.length === 64 && bytes.subarray(32).every((b) => b === 0)) {
    let end = 32;
    while (end > 0 && bytes[end - 1] === 0) end--;
    return clean(new TextDecoder().decode(bytes.subarray(0, end)));
  }
  return null;
}

function clean(text: string): string | null {
  const cleaned = text.replace(/[\u0000-\u001f\u007f\ufffd]/g, '').trim().slice(0, MAX_TEXT);
  return cleaned.length > 0 ? cleaned : null;
}
