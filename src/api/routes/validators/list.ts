/** GET /api/v1/pos/validators: the validators, by index or balance, within a beacon status or group, by cursor. */
import { Type } from 'typebox';
import { answerAmounts } from '../../amounts.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Nullable, StringEnum } from '../../schemas/common.ts';
import { VALIDATOR_STATUS_GROUPS, VALIDATOR_STATUSES, ValidatorSummary } from '../../schemas/validator.ts';
import { listRoute } from '../list-route.ts';
import { readValidators, type ValidatorFilter, type ValidatorSort } from './list.read.ts';
import { validatorSummary } from './summary.ts';

const SORTS = ['index', '-index', 'balance', '-balance'] as const satisfies readonly ValidatorSort[];
const GROUPS: readonly string[] = VALIDATOR_STATUS_GROUPS;

const ValidatorsQuery = {
  status: Type.Optional(
    StringEnum([...VALIDATOR_STATUSES, ...VALIDATOR_STATUS_GROUPS], {
      description:
        'Only validators of this beacon status (qrysm\'s names), or of this group as the beacon API\'s status filter groups them: ' +
        'pending (pending_initialized, pending_queued), active (active_ongoing, active_exiting, active_slashed), exited (exited_unslashed, exited_slashed), withdrawal (withdrawal_possible, withdrawal_done).',
    }),
  ),
  sort: Type.Optional(
    StringEnum(SORTS, {
      default: 'index',
      description: 'index: by index, ascending; balance: by balance, ascending; a leading - reverses (-balance: richest first). Ties of balance go by index in the same direction.',
    }),
  ),
};

export function validatorListRoute(app: RouteApp, ctx: ApiContext): void {
  listRoute(app, ctx, {
    path: '',
    tags: ['validators'],
    operationId: 'getValidators',
    summary: 'The chain\'s validators, by index or balance, by cursor',
    params: Type.Object({}),
    query: ValidatorsQuery,
    paging: { style: 'cursor', maxLimit: 100, defaultLimit: 25, keyLength: 2 },
    item: ValidatorSummary,
    order: 'As sort says: by index (default) or by balance then index, ascending or (with -) descending.',
    totalDescription: 'Validators of the status or group given (all without one), at the head the staking sync last read.',
    echo: {
      chain: Type.String(),
      network: Type.String(),
      status: Nullable(Type.String({ description: 'The status filter; null without one.' })),
      sort: Type.String({ description: 'The order.' }),
    },
    prepare: (ctx, { query, request }) => {
      const status = query.status ?? null;
      const sort = query.sort ?? 'index';
      const filter: ValidatorFilter = status === null ? null : GROUPS.includes(status) ? { group: status } : { status };
      return { echo: { chain: 'pos', network: ctx.network('pos'), status, sort }, filter, sort, amount: answerAmounts(request.log, 'pos') };
    },
    cursorScope: ({ echo }) => `${echo.status ?? ''}|${echo.sort}`,
    async read(ctx, { filter, sort, amount }, { limit, after }) {
      const position = after ? { balance: String(after[0]), index: Number(after[1]) } : null;
      const { rows, total } = await readValidators(ctx.store, { filter, sort, after: position, limit: limit + 1 });
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        items: page.map((row) => validatorSummary(row, amount)),
        total,
        hasMore: rows.length > limit,
        lastKey: last ? [sort.endsWith('balance') ? last.balance : last.validator_index, last.validator_index] : null,
      };
    },
  });
}
