/** GET /api/v1/pos/validators/{validator}/daily: a validator's balances and net rewards per UTC day, from the beacon node. */
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Nullable } from '../../schemas/common.ts';
import { ValidatorDay } from '../../schemas/validator.ts';
import { subjectDaysRoute } from '../subject-list.ts';
import { readValidatorDays } from './daily.read.ts';
import { ValidatorEchoFields } from './params.ts';
import { VALIDATOR_LIST } from './validator-list.ts';

export function validatorDailyRoute(app: RouteApp, ctx: ApiContext): void {
  subjectDaysRoute(app, ctx, VALIDATOR_LIST, {
    path: '/:validator/daily',
    operationId: 'getValidatorDaily',
    summary: 'A validator\'s balances and net rewards per day',
    window: { fallback: 'all', description: 'Days up to the latest day the staking sync wrote: a length with m, h, d, w or y (e.g. 30d, 365d), or all for every recorded day' },
    item: ValidatorDay,
    order: 'One item per day the staking sync recorded for the validator (every synced day from the first whose state lists it), oldest first.',
    echo: { ...ValidatorEchoFields, window_days: Nullable(Type.Integer({ description: 'Days in the window; null for every recorded day.' })) },
    async days(ctx, { echo, amount }) {
      const where = { validator_index: String(echo.index) };
      const rows = await readValidatorDays(ctx.store, echo.index, echo.window_days);
      return rows.map((row) => ({
        day: row.day,
        status: row.status,
        balance: amount(row.balance, '', 'balance', where),
        effective_balance: amount(row.effective_balance, '', 'effective_balance', where),
        rewards: row.rewards,
      }));
    },
  });
}
