/**
 * ERC-20 metadata by `eth_call`: name(), symbol(), decimals(). Real tokens are messy, so each
 * answer is decoded defensively:
 * - a string return (the standard);
 * - a bytes32 return (MKR, SAI and other early tokens): trailing zero bytes stripped, UTF-8;
 * - no such method, a revert, empty return data, or garbage: null for that field.
 * Strings lose NUL and other control characters (PostgreSQL TEXT cannot hold NUL) and are capped.
 */
import { decodeAbiParameters, hexToString, size, trim } from 'viem';
import { RpcError } from './errors.ts';
import { call, type BlockTag, type EvmNode } from './methods.ts';

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
  return { name: decodeText(name), symbol: decodeText(symbol), decimals: decodeDecimals(decimals) };
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

export function decodeText(returned: `0x${string}` | null): string | null {
  if (returned === null || returned === '0x') return null;
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

export function decodeDecimals(returned: `0x${string}` | null): number | null {
  if (returned === null || size(returned) < 32) return null;
  try {
    const [value] = decodeAbiParameters([{ type: 'uint256' }], returned);
    return value <= 255n ? Number(value) : null;
  } catch {
    return null;
  }
}

function clean(text: string): string | null {
  const cleaned = text.replace(/[\u0000-\u001f\u007f\ufffd]/g, '').trim().slice(0, MAX_TEXT);
  return cleaned.length > 0 ? cleaned : null;
}
