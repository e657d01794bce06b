/**
 * What the per-address routes of this folder share: the echoed context (chain, network and the
 * canonical address), and the route argument type.
 */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ChainId } from '../../../../chain/chains.ts';
import type { ApiContext } from '../../../context.ts';
import { addressParam } from '../../../params/address.ts';

export type AppArg = Parameters<FastifyPluginAsyncTypebox>[0];

/** The echoed context of a per-address answer. */
export const AddressEchoFields = {
  chain: Type.String(),
  network: Type.String(),
  address: Type.String({ description: 'The address asked about, in canonical form (Q + lowercase hex).' }),
};

export interface AddressEcho {
  chain: ChainId;
  network: string;
  address: string;
}

/** The canonical address of the path (or a 400 naming `address`) with the chain's network. */
export function addressEcho(ctx: ApiContext, chain: ChainId, raw: string): AddressEcho {
  return { chain, network: ctx.network(chain), address: addressParam(chain, raw) };
}

/** `SELECT ... LIMIT n` row counts and heights come back as numbers; amounts stay strings. */
export function toInt(value: unknown): number {
  return typeof value === 'number' ? value : Number(value);
}
