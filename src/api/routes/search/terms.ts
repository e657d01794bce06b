/**
 * What a search's `q` can name (docs/api-search.md, "What q can be"): read once, in every form the
 * chain routes accept, so that the read looks each one up by key.
 */
import type { FastifyRequest } from 'fastify';
import { parseAddress } from '../../../chain/addresses.ts';
import { CHAINS, type ChainId } from '../../../chain/chains.ts';
import { parseHeight, storedHash } from '../../params/block-id.ts';
import { networkOf } from '../../plugins/freshness.ts';
import { invalidParam } from '../../problem.ts';

/** The longest `q` accepted: a 64-byte pos address (`Q` + 128 hex) and more fits. */
export const MAX_QUERY_LENGTH = 200;

export interface SearchTerms {
  /** `q` without surrounding white space: the text labels and token names and symbols start with. */
  text: string;
  /** A block height of either chain. */
  height: number | null;
  /** A block or transaction hash (and a pow token's creating transaction), in each chain's stored form. */
  hashes: Record<ChainId, string> | null;
  /** The canonical address `q` is on each chain where it is one (pos: at the width the store's network uses). */
  addresses: Partial<Record<ChainId, string>>;
}

/** The terms of `q`, or a 400 naming `q` when nothing but white space is left of it or it holds a NUL. */
export function searchTerms(request: FastifyRequest, q: string): SearchTerms {
  const text = q.trim();
  if (text === '') throw invalidParam('q', 'must contain a character other than white space');
  // The store's text cannot hold it, so nothing stored contains it.
  if (text.includes('\u0000')) throw invalidParam('q', 'must not contain the NUL character (U+0000)');
  const pow = storedHash('pow', text);
  const addresses: Partial<Record<ChainId, string>> = {};
  for (const chain of CHAINS) {
    const parsed = parseAddress(chain, text, networkOf(request, chain));
    if (parsed.ok) addresses[chain] = parsed.address;
  }
  return {
    text,
    height: parseHeight(text),
    hashes: pow === null ? null : { pow, pos: storedHash('pos', text)! },
    addresses,
  };
}
