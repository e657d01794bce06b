import { parseAddress } from '../../chain/addresses.ts';
import type { ChainId } from '../../chain/chains.ts';
import { invalidParam } from '../problem.ts';

/** The canonical form of an address path or query parameter, or a 400 naming it. */
export function addressParam(chain: ChainId, raw: string, param = 'address'): string {
  const parsed = parseAddress(chain, raw);
  if (!parsed.ok) throw invalidParam(param, `is not a ${chain} address: ${parsed.reason}`);
  return parsed.address;
}
