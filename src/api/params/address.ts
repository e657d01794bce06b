import type { FastifyRequest } from 'fastify';
import { parseAddress } from '../../chain/addresses.ts';
import type { ChainId } from '../../chain/chains.ts';
import type { ApiContext } from '../context.ts';
import { networkOf } from '../plugins/freshness.ts';
import { invalidParam } from '../problem.ts';

/**
 * The canonical form of an address path or query parameter, or a 400 naming it. The address must
 * have the width of the chain's addresses as the request's store state knows it (pos: 20 or 64 bytes).
 */
export function addressParam(request: FastifyRequest, chain: ChainId, raw: string, param = 'address'): string {
  const parsed = parseAddress(chain, raw, networkOf(request, chain));
  if (!parsed.ok) throw invalidParam(param, `is not a ${chain} address: ${parsed.reason}`);
  return parsed.address;
}

/** The echoed context of a per-address answer: chain, network and the canonical address. */
export interface AddressEcho {
  chain: ChainId;
  network: string;
  address: string;
}

/** The canonical address of the path (or a 400 naming `address`) with the chain's network. */
export function addressEcho(ctx: ApiContext, request: FastifyRequest, chain: ChainId, raw: string): AddressEcho {
  return { chain, network: ctx.network(chain), address: addressParam(request, chain, raw) };
}
