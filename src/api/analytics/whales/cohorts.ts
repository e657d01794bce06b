/** GET /api/v1/analytics/whales/cohorts: the whales in five behaviour cohorts (docs/metrics.md, "Whales"). */
import { Type } from 'typebox';
import { DAY_SECONDS, addDays, formatDay } from '../../../time.ts';
import { percentOf } from '../../amounts.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { STANDARD_ERRORS, StringEnum } from '../../schemas/common.ts';
import { AnalyticsChain, chainSpan } from '../series.ts';
import { flowDays, netOf, ThresholdFields, thresholdEcho, ThresholdPctQuery, whaleSet, whaleThreshold, type FlowDay, type Whale } from './whales.ts';

const COHORTS = ['new', 'active', 'hodler', 'distributor', 'dormant'] as const;
type Cohort = (typeof COHORTS)[number];

/** A whale that first appeared less than this many days before the tip is new. */
export const NEW_DAYS = 30;
/** A whale without a transaction for this many days is dormant. */
export const DORMANT_DAYS = 180;
/** The days whose flows tell distributors, hodlers and active whales apart. */
const FLOW_DAYS = 30;

const CohortsQuery = Type.Object({ chain: AnalyticsChain, threshold_pct: ThresholdPctQuery });

const CohortsResponse = Type.Object({
  items: Type.Array(
    Type.Object({
      cohort: StringEnum(COHORTS),
      count: Type.Integer(),
      balance_pct: Type.Number({ description: '100 × the cohort’s balance / the whales’ balance (0 without whales).' }),
    }),
    { description: 'The five cohorts, always in this order: new, active, hodler, distributor, dormant.' },
  ),
  total_whales: Type.Integer(),
  chain: Type.String(),
  network: Type.String(),
  ...ThresholdFields,
});

/** The first rule that applies (docs/metrics.md, "Whales", cohorts). */
function cohortOf(w: Whale, days: readonly FlowDay[] | undefined, tipTs: number): Cohort {
  if (w.appeared !== null && w.appeared > tipTs - NEW_DAYS * DAY_SECONDS) return 'new';
  if (w.lastSeen === null || w.lastSeen <= tipTs - DORMANT_DAYS * DAY_SECONDS) return 'dormant';
  if (netOf(days) < 0n) return 'distributor';
  if (!(days ?? []).some((d) => d.sent > 0n)) return 'hodler';
  return 'active';
}

export function whalesCohortsRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/analytics/whales/cohorts',
    {
      schema: {
        tags: ['analytics'],
        operationId: 'getWhalesCohorts',
        summary: 'Whales by behaviour: new, active, hodler, distributor, dormant',
        querystring: CohortsQuery,
        response: { 200: CohortsResponse, ...STANDARD_ERRORS },
      },
    },
    async (request) => {
      const chain = request.query.chain ?? 'pos';
      const [threshold, span] = await Promise.all([whaleThreshold(ctx.store, chain, request.query.threshold_pct), chainSpan(ctx.store, chain)]);
      const whales = span ? await whaleSet(ctx.store, chain, threshold.amount) : [];
      const to = span ? formatDay(span.tipTs) : '';
      const flows = span ? await flowDays(ctx.store, chain, whales.map((w) => w.address), addDays(to, 1 - FLOW_DAYS), to) : new Map<string, FlowDay[]>();
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
  );
}
