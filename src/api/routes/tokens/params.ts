/**
 * A token named in a path (docs/api-tokens.md, "Naming a token"): a pos token by its contract
 * address, in any form the chain's address parameters take; a pow token, as QRL names it, by the
 * hash of the token transaction that created it. And what the lists of one token's items share: the
 * token found, or a 404.
 */
import type { FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import type { ChainId } from '../../../chain/chains.ts';
import { answerAmounts, type AnswerAmount } from '../../amounts.ts';
import type { ApiContext } from '../../context.ts';
import { addressParam } from '../../params/address.ts';
import { hashParam } from '../../params/chain-hash.ts';
import { notFound } from '../../problem.ts';
import { ChainPathParams } from '../../schemas/common.ts';
import { readToken, type TokenRow } from './detail.read.ts';
import type { ListRouteInput } from '../list-route.ts';

const TokenParam = Type.String({
  maxLength: 200,
  description: 'The token: pos its contract address (Q, Z or 0x form, any case); pow the hash of the token transaction that created it (64 hex digits, any case).',
});

export const TokenPathParams = Type.Object({ ...ChainPathParams.properties, token: TokenParam });

/** The echoed context of a list of one token's items. */
export const TokenEchoFields = {
  chain: Type.String(),
  network: Type.String(),
  token: Type.String({ description: 'The token asked about, in canonical form (pos: Q + lowercase hex; pow: lowercase hex).' }),
};

/** The token `raw` names on `chain`, in its stored form, or a 400 naming `token`. */
export function tokenParam(request: FastifyRequest, chain: ChainId, raw: string): string {
  return chain === 'pos' ? addressParam(request, chain, raw, 'token') : hashParam(chain, raw, 'token');
}

/** The stored token of the path, or a 404 (a 400 naming `token` when malformed). */
export async function findToken(ctx: ApiContext, request: FastifyRequest, chain: ChainId, raw: string): Promise<TokenRow> {
  const id = tokenParam(request, chain, raw);
  const token = await readToken(ctx.store, chain, id);
  if (token === null) throw notFound(`no ${chain} token ${id} is stored`);
  return token;
}

export interface TokenListContext {
  echo: { chain: ChainId; network: string; token: string };
  token: TokenRow;
  amount: AnswerAmount;
}

/** What a list of one token's items prepares: the token found, echoed with the answer's amounts. */
export async function prepareTokenList(ctx: ApiContext, request: FastifyRequest, chain: ChainId, raw: string): Promise<TokenListContext> {
  const token = await findToken(ctx, request, chain, raw);
  return { echo: { chain, network: ctx.network(chain), token: token.contract }, token, amount: answerAmounts(request.log, chain) };
}

/** What every list of one token declares alike: the token in the path, echoed, found (or a 404), and the cursor bound to it. */
export const TOKEN_LIST = {
  tags: ['tokens'],
  params: TokenPathParams,
  echo: TokenEchoFields,
  notFound: 'Unknown chain, or no stored token with this id.',
  prepare: (ctx: ApiContext, { params, request }: ListRouteInput<Static<typeof TokenPathParams>, unknown>) => prepareTokenList(ctx, request, params.chain, params.token),
  cursorScope: ({ echo }: TokenListContext) => `${echo.chain}|${echo.token}`,
} as const;
