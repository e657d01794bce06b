/** GET /api/v1/pos/validators/{validator}/daily: a validator's balances and net rewards per UTC day, from the beacon node. */
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { parseWindow } from '../../params/window.ts';
import { Nullable, WindowQuery } from '../../schemas/common.ts';
import { ValidatorDay } from '../../schemas/validator.ts';
import { listRoute } from '../list-route.ts';
import { readValidatorDays } from './daily.read.ts';
import { ValidatorEchoFields, ValidatorPathParams } from './params.ts';
import { VALIDATOR_NOT_FOUND } from './detail.ts';
import { prepareValidatorList } from './validator-list.ts';

export function validatorDailyRoute(app: RouteApp, ctx: ApiContext): void {
  listRoute(app, ctx, {
    path: '/:validator/daily',
    tags: ['validators'],
    operationId: 'getValidatorDaily',
    summary: 'A validator\'s balances and net rewards per day',
    params: ValidatorPathParams,
    query: {
      window: WindowQuery('all', 'Days up to the latest day the staking sync wrote: a length with m, h, d, w or y (e.g. 30d, 365d), or all for every recorded day', { allowAll: true }),
    },
    paging: { style: 'all' },
    item: ValidatorDay,
    order: 'One item per day the staking sync recorded for the validator (every synced day from the first whose state lists it), oldest first.',
    echo: { ...ValidatorEchoFields, window_days: Nullable(Type.Integer({ description: 'Days in the window; null for every recorded day.' })) },
    notFound: VALIDATOR_NOT_FOUND,
    prepare: async (ctx, { params, query, request }) => {
      const window = parseWindow(query.window, { fallback: 'all', allowAll: true });
      const list = await prepareValidatorList(ctx, request, params.validator);
      return { ...list, echo: { ...list.echo, window_days: window.days } };
    },
    async read(ctx, { echo, amount }) {
      const where = { validator_index: String(echo.index) };
      const rows = await readValidatorDays(ctx.store, echo.index, echo.window_days);
      return {
        items: rows.map((row) => ({
          day: row.day,
          status: row.status,
          balance: amount(row.balance, '', 'balance', where),
          effective_balance: amount(row.effective_balance, '', 'effective_balance', where),
          rewards: row.rewards,
        })),
        total: null,
      };
    },
  });
}
