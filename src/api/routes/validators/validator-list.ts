/** What the lists of one validator's items share: the validator the path names, found or a 404, echoed with the answer's amounts. */
import type { FastifyRequest } from 'fastify';
import { answerAmounts, type AnswerAmount } from '../../amounts.ts';
import type { ApiContext } from '../../context.ts';
import { describeValidatorId, validatorIdParam } from '../../params/validator-id.ts';
import { notFound } from '../../problem.ts';
import type { Static } from 'typebox';
import type { ListRouteInput } from '../list-route.ts';
import { VALIDATOR_NOT_FOUND } from './detail.ts';
import { findValidator } from './detail.read.ts';
import { ValidatorEchoFields, ValidatorPathParams } from './params.ts';

export interface ValidatorListContext {
  echo: { chain: 'pos'; network: string; index: number };
  amount: AnswerAmount;
}

/** The stored validator `raw` names (a 400 naming `validator` when malformed, a 404 when not stored). */
export async function prepareValidatorList(ctx: ApiContext, request: FastifyRequest, raw: string): Promise<ValidatorListContext> {
  const id = validatorIdParam(raw);
  const index = await findValidator(ctx.store, id);
  if (index === null) throw notFound(`no pos validator with ${describeValidatorId(id)} is stored`);
  return { echo: { chain: 'pos', network: ctx.network('pos'), index }, amount: answerAmounts(request.log, 'pos') };
}

/** What every list of one validator's items declares alike: the validator in the path, echoed, found (or a 404), the cursor bound to it. */
export const VALIDATOR_LIST = {
  tags: ['validators'],
  params: ValidatorPathParams,
  echo: ValidatorEchoFields,
  notFound: VALIDATOR_NOT_FOUND,
  prepare: (ctx: ApiContext, { params, request }: ListRouteInput<Static<typeof ValidatorPathParams>, unknown>) => prepareValidatorList(ctx, request, params.validator),
  cursorScope: ({ echo }: ValidatorListContext) => String(echo.index),
} as const;
