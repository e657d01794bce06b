/**
 * GET /api/v1/pow/addresses/{address}/multisig and /multisig/spends: a multi-signature address
 * (made by a multi_sig_create): its signatories, weights and threshold, what it holds by QRL's
 * rules, and its spends with their votes and state (docs/api-ots.md).
 */
import { Type, type Static } from 'typebox';
import { isMultiSigAddress } from '../../../chain/addresses.ts';
import { formatTimestamp } from '../../../time.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { addressEcho, type AddressEcho } from '../../params/address.ts';
import { notFound } from '../../problem.ts';
import { AddressEchoFields, Amount, Nullable, PowAddressPathParams, problemResponse, STANDARD_ERRORS, StringEnum, Timestamp } from '../../schemas/common.ts';
import { listRoute } from '../list-route.ts';
import { replayMultiSig, type Replay, type VoteOutcome } from './multisig-state.ts';
import { readMultiSig, readMultiSigHistory, type MultiSigRow, type SpendRow } from './multisig.read.ts';

/** Votes listed per spend (docs/bounds.md); vote_count counts them all. */
export const MAX_VOTES_LISTED = 100;
const STATUSES = ['open', 'executed', 'expired'] as const;

const NOT_FOUND = 'Unknown route, or no stored multi_sig_create made this address.';

const Signatory = Type.Object({ address: Type.String(), weight: Type.Integer() });

const MultiSigResponse = Type.Object({
  ...AddressEchoFields,
  created: Type.Object({
    tx_hash: Type.String({ description: 'The multi_sig_create: the address is derived from its hash.' }),
    height: Type.Integer(),
    timestamp: Timestamp,
    creator: Type.String({ description: 'Its sender.' }),
  }),
  signatories: Type.Array(Signatory, { description: 'In the create\'s order.' }),
  threshold: Type.Integer({ description: 'The approving weight that carries a spend.' }),
  total_weight: Type.Integer({ description: 'The signatories\' weights summed.' }),
  received: { ...Amount, description: 'Native value transfers sent it (shor).' },
  spent: { ...Amount, description: 'What its executed spends paid (shor).' },
  balance: { ...Amount, description: 'received - spent: what it holds by QRL\'s rules (shor; the address detail\'s balance does not subtract executed spends).' },
  spends: Type.Object({
    total: Type.Integer(),
    open: Type.Integer({ description: 'Not executed, expiry height above the tip: votes may still carry them.' }),
    executed: Type.Integer(),
    expired: Type.Integer({ description: 'Not executed, and the tip has reached the expiry height.' }),
  }),
});

const Vote = Type.Object({
  tx_hash: Type.String(),
  height: Type.Integer(),
  timestamp: Timestamp,
  voter: Type.String(),
  unvote: Type.Boolean({ description: 'The vote withdraws the voter\'s approval.' }),
  weight: Type.Integer({ description: 'The voter\'s weight (0 for a non-signatory).' }),
  counted: Type.Boolean({ description: 'Whether QRL\'s rules count it (a signatory, by the expiry, before execution, changing the signatory\'s vote).' }),
});

const SpendItem = Type.Object({
  tx_hash: Type.String({ description: 'The multi_sig_spend; votes name it.' }),
  height: Type.Integer(),
  timestamp: Timestamp,
  proposer: Type.String(),
  expiry_height: Type.Integer({ description: 'No vote counts in a later block.' }),
  total: { ...Amount, description: 'What it pays, all recipients (shor).' },
  recipients: Type.Array(Type.Object({ to_addr: Type.String(), amount: Amount })),
  status: StringEnum(STATUSES, { description: 'executed; else expired once the tip reaches expiry_height; else open.' }),
  approved_weight: Type.Integer({ description: 'The weight of the signatories approving it now.' }),
  threshold: Type.Integer(),
  executed_by: Nullable(Type.Object({ tx_hash: Type.String(), height: Type.Integer(), timestamp: Timestamp }, { description: 'The vote that executed it.' })),
  signatories: Type.Array(
    Type.Object({
      address: Type.String(),
      weight: Type.Integer(),
      approves: Type.Boolean(),
      vote_tx: Nullable(Type.String({ description: 'The signatory\'s latest counted vote.' })),
    }),
    { description: 'In the create\'s order, as QRL\'s VoteStats keeps them.' },
  ),
  vote_count: Type.Integer(),
  votes: Type.Array(Vote, { description: `In chain order (the first ${MAX_VOTES_LISTED}).` }),
});

/** The address of the path, when it is a multi-signature address a stored create made; else a 404. */
async function prepareMultiSig(ctx: ApiContext, echo: AddressEcho): Promise<MultiSigRow> {
  const row = isMultiSigAddress(echo.address) ? await readMultiSig(ctx.store, echo.address) : null;
  if (!row) throw notFound(`${echo.address} is not a multi-signature address made by a stored multi_sig_create`);
  return row;
}

async function replayOf(ctx: ApiContext, echo: AddressEcho, ms: MultiSigRow): Promise<{ spends: SpendRow[]; replay: Replay }> {
  const history = await readMultiSigHistory(ctx.store, echo.address);
  return { spends: history.spends, replay: replayMultiSig({ ...history, threshold: ms.threshold, signatories: ms.signatories, tip: ms.tip }) };
}

const voteItem = (v: VoteOutcome): Static<typeof Vote> => ({ tx_hash: v.tx_hash, height: v.height, timestamp: formatTimestamp(v.ts), voter: v.voter, unvote: v.unvote, weight: v.weight, counted: v.counted });

export function multiSigRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/:address/multisig',
    {
      schema: {
        tags: ['addresses'],
        operationId: 'getMultiSigAddress',
        summary: 'A pow multi-signature address: signatories, weights, threshold, balance and its spends by state',
        params: PowAddressPathParams,
        response: { 200: MultiSigResponse, ...STANDARD_ERRORS, 404: problemResponse(NOT_FOUND) },
      },
    },
    async (request): Promise<Static<typeof MultiSigResponse>> => {
      const echo = addressEcho(ctx, request, 'pow', request.params.address);
      const ms = await prepareMultiSig(ctx, echo);
      const { replay } = await replayOf(ctx, echo, ms);
      const counts = { total: replay.spends.size, open: 0, executed: 0, expired: 0 };
      for (const spend of replay.spends.values()) counts[spend.status]++;
      return {
        ...echo,
        created: { tx_hash: ms.tx_hash, height: ms.height, timestamp: formatTimestamp(ms.ts), creator: ms.creator },
        signatories: ms.signatories,
        threshold: ms.threshold,
        total_weight: ms.signatories.reduce((sum, s) => sum + s.weight, 0),
        received: replay.received.toString(),
        spent: replay.spent.toString(),
        balance: (replay.received - replay.spent).toString(),
        spends: counts,
      };
    },
  );

  listRoute(app, ctx, {
    path: '/:address/multisig/spends',
    tags: ['addresses'],
    operationId: 'getMultiSigSpends',
    summary: 'The spends of a pow multi-signature address with their votes and state, newest first',
    params: PowAddressPathParams,
    query: { status: Type.Optional(StringEnum(STATUSES, { description: 'Only spends in this state.' })) },
    paging: { style: 'cursor', maxLimit: 100, defaultLimit: 25, keyLength: 2 },
    item: SpendItem,
    order: 'Newest spend first (height, then position in the block).',
    totalDescription: 'Spends of the address (in the state asked for).',
    echo: { ...AddressEchoFields, status: Nullable(StringEnum(STATUSES)) },
    notFound: NOT_FOUND,
    async prepare(ctx, { params, query, request }) {
      const echo = addressEcho(ctx, request, 'pow', params.address);
      return { ms: await prepareMultiSig(ctx, echo), echo: { ...echo, status: query.status ?? null } };
    },
    cursorScope: ({ echo }) => `${echo.address}|${echo.status ?? ''}`,
    async read(ctx, { ms, echo }, { limit, after }) {
      const { spends, replay } = await replayOf(ctx, echo, ms);
      const newest = spends
        .filter((s) => echo.status === null || replay.spends.get(s.tx_hash)!.status === echo.status)
        .reverse();
      const from = after ? newest.findIndex((s) => s.height < Number(after[0]) || (s.height === Number(after[0]) && s.tx_index < Number(after[1]))) : 0;
      const page = from < 0 ? [] : newest.slice(from, from + limit);
      return {
        items: page.map((s) => {
          const outcome = replay.spends.get(s.tx_hash)!;
          return {
            tx_hash: s.tx_hash,
            height: s.height,
            timestamp: formatTimestamp(s.ts),
            proposer: s.proposer,
            expiry_height: s.expiry_height,
            total: s.total,
            recipients: s.recipients,
            status: outcome.status,
            approved_weight: outcome.approvedWeight,
            threshold: ms.threshold,
            executed_by: outcome.executedBy && { tx_hash: outcome.executedBy.tx_hash, height: outcome.executedBy.height, timestamp: formatTimestamp(outcome.executedBy.ts) },
            signatories: outcome.signatories.map((g) => ({ address: g.address, weight: g.weight, approves: g.approves, vote_tx: g.voteTx })),
            vote_count: outcome.votes.length,
            votes: outcome.votes.slice(0, MAX_VOTES_LISTED).map(voteItem),
          };
        }),
        total: newest.length,
        hasMore: from >= 0 && from + limit < newest.length,
        lastKey: page.length > 0 ? [page.at(-1)!.height, page.at(-1)!.tx_index] : null,
      };
    },
  });
}
