/**
 * The XMSS figures of a pow address (docs/metrics.md, "XMSS"): the tree height and hash function
 * its descriptor encodes, and how many of its one-time signing keys it has used.
 */
import { isSentinel } from '../../../../chain/chains.ts';
import { powHashFunction, powTreeHeight } from '../../../../chain/addresses.ts';
import type { AddressFacts } from '../../../../domain/address-facts.ts';

type OtsStatus = 'unused' | 'ok' | 'low' | 'exhausted';

export interface XmssFigures {
  tree_height: number;
  hash_function: string;
  ots_keys_total: number;
  ots_keys_used: number;
  ots_keys_remaining: number;
  ots_max_index: number | null;
  ots_used_pct: number;
  status: OtsStatus;
  slave_keys: number;
}

/** A pow address at or below this share of unused keys is `low`. */
const OTS_LOW_PCT = 10;

export function xmssFigures(f: AddressFacts): XmssFigures | null {
  if (f.chain !== 'pow' || isSentinel('pow', f.address)) return null;
  const height = powTreeHeight(f.address);
  if (height === null) return null;
  const total = 2 ** height;
  const used = f.otsUsed;
  const remaining = Math.max(0, total - used);
  const status: OtsStatus = used === 0 ? 'unused' : remaining === 0 ? 'exhausted' : remaining * 100 <= total * OTS_LOW_PCT ? 'low' : 'ok';
  return {
    tree_height: height,
    hash_function: powHashFunction(f.address),
    ots_keys_total: total,
    ots_keys_used: used,
    ots_keys_remaining: remaining,
    ots_max_index: f.otsMaxIndex,
    ots_used_pct: Math.min(100, (used * 100) / total),
    status,
    slave_keys: f.slaveCount,
  };
}
