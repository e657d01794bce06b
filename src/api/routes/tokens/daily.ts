/**
 * GET /api/v1/{chain}/tokens/{token}/daily: a token's transfers and holders per UTC day.
 *
 * Not a chart's series (docs/adding-a-chart.md): a chart is one figure per chain and day, mounted
 * at /analytics with a `chain` query parameter, and its rows are read by (chain, day range); this
 * series is one token's, named in the path with its 400 and 404, like an address's balance history.
 * Its days come from the token_daily rollup, kept with every block like a kept chart's.
 */
import { Type } from 'typebox';
import { addDays, eachDay } from '../../../time.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Day, Nullable } from '../../schemas/common.ts';
import { subjectDaysRoute } from '../subject-list.ts';
import { readTokenDays, readTokenSpan } from './daily.read.ts';
import { TOKEN_LIST, TokenEchoFields } from './params.ts';

const TokenDay = Type.Object({
  day: Day,
  transfers: Type.Integer({ description: 'Transfers of the token that day.' }),
  holders: Type.Integer({ description: 'Holders at the end of the day: addresses with a positive balance.' }),
});

export function tokenDailyRoute(app: RouteApp, ctx: ApiContext): void {
  subjectDaysRoute(app, ctx, TOKEN_LIST, {
    path: '/:token/daily',
    operationId: 'getTokenDaily',
    summary: 'A token\'s transfers and holders per day',
    window: { fallback: '30d', description: 'Days up to the day of the latest indexed block: a length with m, h, d, w or y (e.g. 30d, 365d), or all for the token\'s whole history' },
    item: TokenDay,
    order: 'One item per UTC day, oldest first, from the later of the window\'s start and the token\'s first transfer to the day of the latest indexed block; quiet days included (0 transfers, holders as the day before).',
    echo: { window_days: Nullable(Type.Integer({ description: 'Days in the window; null for the whole history.' })), ...TokenEchoFields },
    async days(ctx, { echo, token }) {
      const { tip_day: tip, first_day: first } = await readTokenSpan(ctx.store, echo.chain, echo.token);
      if (tip === null || first === null || first > tip) return [];
      const start = echo.window_days === null ? first : addDays(tip, 1 - echo.window_days);
      const from = start < first ? first : start;
      const rows = new Map((await readTokenDays(ctx.store, echo.chain, echo.token, from)).map((row) => [row.day, row]));
      // Holders at the end of a day: those of now less what the later days gained (a window reads only its own days).
      const days = eachDay(from, tip);
      const holders = new Array<number>(days.length);
      let current = token.holders ?? 0;
      for (let i = days.length - 1; i >= 0; i--) {
        holders[i] = current;
        current -= rows.get(days[i]!)?.holders_delta ?? 0;
      }
      return days.map((day, i) => ({ day, transfers: rows.get(day)?.transfers ?? 0, holders: holders[i]! }));
    },
  });
}
