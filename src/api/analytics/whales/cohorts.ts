/** GET /api/v1/analytics/whales/cohorts: the whales in five behaviour cohorts (docs/metrics.md, "Whales"). */
import { Type } from 'typebox';
import { DAY_SECONDS } from '../../../time.ts';
import { percentOf } from '../../amounts.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { StringEnum } from '../../schemas/common.ts';
import { analyticsRoute, envelope } from '../route.ts';
import { netOf, ThresholdFields, thresholdEcho, WhaleQuery, whaleWindow, type FlowDay, type Whale } from './whales.ts';

const COHORTS = ['new', 'active', 'hodler', 'distributor', 'dormant'] as const;
type Cohort = (typeof COHORTS)[number];

/** A whale that first appeared less than this many days before the tip is new. */
export const NEW_DAYS = 30;
/** A whale without a transaction for this many days is dormant. */
export const DORMANT_DAYS = 180;
/** The days whose flows tell distributors, hodlers and active whales apart. */
const FLOW_DAYS = 30;

/** The first rule that applies (docs/metrics.md, "Whales", cohorts). */
function cohortOf(w: Whale, days: readonly FlowDay[] | undefined, tipTs: number): Cohort {
  if (w.appeared !== null && w.appeared > tipTs - NEW_DAYS * DAY_SECONDS) return 'new';
  if (w.lastSeen === null || w.lastSeen <= tipTs - DORMANT_DAYS * DAY_SECONDS) return 'dormant';
  if (netOf(days) < 0n) return 'distributor';
  if (!(days ?? []).some((d) => d.sent > 0n)) return 'hodler';
  return 'active';
}

export function whalesCohortsRoute(app: RouteApp, ctx: ApiContext): void {
  analyticsRoute(app, {
    path: '/analytics/whales/cohorts',
    operationId: 'getWhalesCohorts',
    summary: 'Whales by behaviour: new, active, hodler, distributor, dormant',
    query: WhaleQuery({}),
    response: Type.Object({
      items: Type.Array(
        Type.Object({
          cohort: StringEnum(COHORTS),
          count: Type.Integer(),
          balance_pct: Type.Number({ description: '100 × the cohort’s balance / the whales’ balance (0 without whales).' }),
        }),
        { description: 'The five cohorts, always in this order: new, active, hodler, distributor, dormant.' },
      ),
      total_whales: Type.Integer(),
      ...envelope('chain', 'network'),
      ...ThresholdFields,
    }),
    handler: async ({ query, chain }) => {
      const { span, threshold, whales, flows } = await whaleWindow(ctx.store, chain, { pct: query.threshold_pct, days: FLOW_DAYS });
      const sums = new Map<Cohort, { count: number; balance: bigint }>(COHORTS.map((c) => [c, { count: 0, balance: 0n }]));
      let total = 0n;
      for (const w of whales) {
        const s = sums.get(cohortOf(w, flows.get(w.address), span!.tipTs))!;
        s.count++;
        s.balance += w.balance;
        total += w.balance;
      }
      const items = COHORTS.map((cohort) => ({ cohort, count: sums.get(cohort)!.count, balance_pct: percentOf(sums.get(cohort)!.balance, total) }));
      return { items, total_whales: whales.length, chain, network: ctx.network(chain), ...thresholdEcho(threshold) };
    },
  });
}
