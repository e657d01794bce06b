/**
 * GET /api/v1/analytics/transactions-normalised: both chains' daily transactions, volume and fees
 * in one unit (coins, "quanta"), so that they compare (docs/metrics.md, "Normalised transactions").
 */
import { Type } from 'typebox';
import { CHAIN_INFO, CHAINS } from '../../../chain/chains.ts';
import { formatUnits } from '../../amounts.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { analyticsRoute } from '../route.ts';
import { Day, WindowQuery } from '../../schemas/common.ts';
import { chainDays } from '../chain-days.ts';
import { chainSpan, dayRange, windowDaysOf } from '../series.ts';

const NormalisedItem = Type.Object({
  chain: Type.String(),
  day: Day,
  tx_count: Type.Integer(),
  volume_quanta: Type.String({ description: 'Native value moved by the day’s transactions, in coins (exact decimal string).' }),
  fees_quanta: Type.String({ description: 'Fees paid that day, in coins (exact decimal string).' }),
});

const NormalisedResponse = Type.Object({
  items: Type.Array(NormalisedItem, { description: 'Per chain, one item per UTC day of its window (ending with its latest block’s day); by day, then chain.' }),
  count: Type.Integer(),
  window_days: Type.Integer(),
  unit: Type.String({ description: 'The unit of the *_quanta fields: quanta (coins).' }),
});

export function transactionsNormalisedRoute(app: RouteApp, ctx: ApiContext): void {
  analyticsRoute(app, {
    path: '/analytics/transactions-normalised',
    operationId: 'getTransactionsNormalised',
    summary: 'Daily transactions, volume and fees of both chains in coins',
    query: Type.Object({ window: WindowQuery('30d', 'Window: whole UTC days ending with each chain’s latest block’s day') }),
    response: NormalisedResponse,
    handler: async ({ query }) => {
      const days = windowDaysOf(query.window, { fallback: '30d' });
      const items: Array<Type.Static<typeof NormalisedItem>> = [];
      for (const chain of CHAINS) {
        const span = await chainSpan(ctx.store, chain);
        if (!span) continue;
        const range = dayRange(span, days);
        const { decimals } = CHAIN_INFO[chain];
        for (const d of await chainDays(ctx.store, chain, range)) {
          items.push({ chain, day: d.day, tx_count: d.tx_count, volume_quanta: formatUnits(d.volume, decimals), fees_quanta: formatUnits(d.fee_sum, decimals) });
        }
      }
      items.sort((a, b) => (a.day === b.day ? (a.chain < b.chain ? -1 : 1) : a.day < b.day ? -1 : 1));
      return { items, count: items.length, window_days: days, unit: 'quanta' };
    },
  });
}
