/**
 * A block named in a path: its height or its hash (docs/api-blocks.md, "Naming a block").
 * - a height: decimal digits without sign or leading zeros ("0" is genesis), at most 2^53 - 1;
 * - a hash: 64 hex digits, any case, with or without `0x`, on either chain. The store keeps pos
 *   hashes as `0x` + lowercase hex (what zondscan and the node show) and pow hashes as bare lowercase
 *   hex (what QRL's explorer and node show), so each form reaches the same block.
 */
import type { ChainId } from '../../chain/chains.ts';
import { invalidParam } from '../problem.ts';

export type BlockId = { height: number; hash?: undefined } | { hash: string; height?: undefined };

const HEIGHT = /^(0|[1-9][0-9]{0,15})$/;
const HASH = /^(0x)?([0-9a-fA-F]{64})$/;

/** `raw` as a hash in the stored form of `chain`'s hashes (any case, with or without 0x), or null. */
export function storedHash(chain: ChainId, raw: string): string | null {
  const hash = HASH.exec(raw);
  return hash ? (chain === 'pos' ? '0x' : '') + hash[2]!.toLowerCase() : null;
}

/** `raw` as a block height (decimal digits, no sign or leading zeros, at most 2^53 - 1), or null. */
export function parseHeight(raw: string): number | null {
  if (!HEIGHT.test(raw)) return null;
  const height = Number(raw);
  return Number.isSafeInteger(height) ? height : null;
}

/** The block `raw` names, in the stored form of `chain`'s hashes, or a 400 naming `param`. */
export function blockIdParam(chain: ChainId, raw: string, param = 'id'): BlockId {
  const hash = storedHash(chain, raw);
  if (hash !== null) return { hash };
  const height = parseHeight(raw);
  if (height !== null) return { height };
  throw invalidParam(param, 'is neither a block height (decimal digits, no sign or leading zeros) nor a block hash (64 hex digits, optionally 0x-prefixed)');
}

/** How a block id is written in messages. */
export function describeBlockId(id: BlockId): string {
  return id.hash === undefined ? `height ${id.height}` : `hash ${id.hash}`;
}
