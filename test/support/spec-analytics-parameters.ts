/**
 * The query and path parameters of the Analytics API as the spec states them (spec/api.md section 1
 * conventions 4 and 5, sections 4.2, 4.3, 4.4 with its rules, and 8), copied by hand so that the
 * tests need nothing outside this repository. When the spec changes, change this table with it:
 * test/api/analytics/contract.test.ts holds the OpenAPI document and the server's behaviour to it.
 *
 * The spec's parameter conventions, applied to every row below:
 * - `chain` (section 1, convention 5): string, one of `pow`, `pos`, default `pos`; only where the
 *   endpoint's query column names it.
 * - `window` (section 1, convention 4): a positive integer and a unit suffix `m`, `h`, `d`, `w`; the
 *   default is given per endpoint. The spec states a maximum of 10 years (3650 days) for
 *   `/timeline/{metric}` only (section 4.4 rule 2, section 8); ARCHITECTURE.md ("Windows") makes it the
 *   maximum of every window and adds `y` (365 days). `all` (the full history) is the spec's only for
 *   the Addresses API's balance-history, so no analytics window takes it.
 * - `threshold_pct` (section 4.4 rule 1): number or null, no default (omitted: the fixed 100,000-coin
 *   floor), no bounds stated.
 * - Booleans (`individuals_only`) default to false and are the strings true/false/1/0
 *   (docs/api-conventions.md).
 *
 * A bound, default or list of values left out is one the spec does not state.
 */
import type { SpecParameter } from './spec-parameters.ts';

export interface SpecAnalyticsParameter extends SpecParameter {
  /** A path segment (`{metric}`, `{address}`); every other parameter is in the query. */
  in?: 'path';
  /** A window: the spec's format, `default` its default length. */
  window?: {
    /** Days the default window echoes (`window_days` or `days`, named by `echo`). */
    defaultDays: number;
    /** The response field that echoes the effective length, when the spec lists one. */
    echo?: 'window_days' | 'days';
  };
  /** The response field that echoes this parameter's effective value, where the spec lists one, and the value it holds when the parameter is omitted. */
  echo?: { field: string; value: unknown };
  /** The response fields listing the items a `limit` caps (each at most the default long when omitted). */
  caps?: readonly string[];
}

export interface SpecAnalyticsEndpoint {
  /** Where the spec states the endpoint. */
  section: string;
  params: Record<string, SpecAnalyticsParameter>;
}

const CHAINS = ['pow', 'pos'] as const;

/** `chain` as section 1 convention 5 gives it; `echo` when the endpoint's envelope lists `chain`. */
const chain = (echo: boolean): SpecAnalyticsParameter => ({
  type: 'string',
  default: 'pos',
  enum: CHAINS,
  ...(echo ? { echo: { field: 'chain', value: 'pos' } } : {}),
});

/** `window` with its per-endpoint default (section 1 convention 4). */
const window = (length: string, echo?: 'window_days' | 'days'): SpecAnalyticsParameter => ({
  type: 'string',
  default: length,
  window: { defaultDays: windowDays(length), ...(echo ? { echo } : {}) },
});

/** `threshold_pct` (section 4.4 rule 1): omitted is the fixed floor, echoed as null where the envelope has it. */
const thresholdPct = (echo: boolean): SpecAnalyticsParameter => ({
  type: 'number',
  ...(echo ? { echo: { field: 'threshold_pct', value: null } } : {}),
});

const limit = (maximum: number, byDefault: number, caps: readonly string[] = ['items']): SpecAnalyticsParameter => ({ type: 'integer', minimum: 1, maximum, default: byDefault, caps });

/** `/timeline/{metric}` metrics (section 4.4 rule 2). */
export const TIMELINE_METRICS = [
  'transactions', 'blocks', 'gas', 'wallets', 'active-wallets', 'active-wallets-100', 'active-wallets-1000',
  'supply', 'block_time', 'block_size', 'active-addresses', 'active-addresses-excl-payouts',
] as const;

/** Days of a window written `<n><unit>`, rounded up to whole days (docs/api-conventions.md, "Windows"). */
export function windowDays(length: string): number {
  const m = /^([1-9][0-9]*)([mhdwy])$/.exec(length);
  if (!m) throw new Error(`not a window: ${length}`);
  const n = Number(m[1]);
  const minutes = { m: 1, h: 60, d: 1440, w: 10080, y: 525600 }[m[2] as 'm' | 'h' | 'd' | 'w' | 'y'];
  return Math.ceil((n * minutes) / 1440);
}

/**
 * Path (after /api/v1) → its parameters. Every analytics endpoint of sections 4.2, 4.3 and 4.4,
 * none left out: 28 + 2 + 17 = 47.
 */
export const SPEC_ANALYTICS_PARAMETERS: Record<string, SpecAnalyticsEndpoint> = {
  // Section 4.2: time-series lists ("Query (default window)"; the extra envelope fields name the echoes).
  '/analytics/block-size': { section: '4.2', params: { chain: chain(true), window: window('30d', 'window_days') } },
  '/analytics/block-times': { section: '4.2', params: { chain: chain(true), window: window('30d', 'window_days') } },
  '/analytics/network/active-addresses-daily': { section: '4.2', params: { chain: chain(true), window: window('90d', 'days') } },
  '/analytics/network/new-vs-returning-daily': { section: '4.2', params: { chain: chain(true), window: window('30d', 'days') } },
  '/analytics/wallet-count': { section: '4.2', params: { chain: chain(true), window: window('30d', 'window_days') } },
  '/analytics/supply/age-daily': { section: '4.2', params: { chain: chain(true), window: window('365d', 'window_days') } },
  '/analytics/supply/curve': { section: '4.2', params: { chain: chain(true), window: window('365d', 'days') } },
  '/analytics/supply/distribution-timeline': { section: '4.2', params: { chain: chain(true), window: window('90d', 'days') } },
  '/analytics/transactions/by-type': { section: '4.2', params: { chain: chain(true), window: window('30d', 'window_days') } },
  '/analytics/transactions/user-daily': { section: '4.2', params: { chain: chain(true), window: window('30d', 'window_days') } },
  '/analytics/fees/percentiles': { section: '4.2', params: { chain: chain(true), window: window('30d', 'window_days') } },
  // The envelope of gas-distribution lists no `chain`.
  '/analytics/gas-distribution': { section: '4.2', params: { chain: chain(false), window: window('30d', 'window_days') } },
  '/analytics/total_supply': { section: '4.2', params: { window: window('90d', 'days') } },
  '/analytics/transactions-normalised': { section: '4.2', params: { window: window('30d', 'window_days') } },
  '/analytics/supply/dormant-buckets': { section: '4.2', params: { chain: chain(true) } },
  // "none (chain-less, always full history)".
  '/analytics/supply/combined-curve': { section: '4.2', params: {} },
  '/analytics/network/gas-trends': { section: '4.2', params: { window: window('30d', 'days') } },
  '/analytics/network/tps': { section: '4.2', params: {} },
  // Section 8 too: page min 1; page_size 1 to 200 (default 50). The envelope echoes them as limit and offset.
  '/analytics/network/reorgs': {
    section: '4.2, 8',
    params: {
      page: { type: 'integer', minimum: 1, default: 1, echo: { field: 'offset', value: 0 } },
      page_size: { type: 'integer', minimum: 1, maximum: 200, default: 50, echo: { field: 'limit', value: 50 } },
      chain: chain(false),
    },
  },
  '/analytics/whales/biggest': { section: '4.2, 8', params: { limit: limit(100, 20), chain: chain(true), window: window('30d', 'days') } },
  '/analytics/whales/heatmap': { section: '4.2, 4.4 rule 1', params: { threshold_pct: thresholdPct(true), chain: chain(true), window: window('90d', 'days') } },
  '/analytics/whales/leaderboard': { section: '4.2, 4.4 rule 1, 8', params: { limit: limit(200, 50), threshold_pct: thresholdPct(true), chain: chain(true) } },
  '/analytics/whales/sparklines': {
    section: '4.2, 4.4 rule 1, 8',
    params: { limit: limit(100, 25), threshold_pct: thresholdPct(true), chain: chain(true), window: window('30d', 'days') },
  },
  // The staking envelopes list no `chain`.
  '/analytics/staking/apr-daily': { section: '4.2', params: { chain: chain(false), window: window('365d', 'window_days') } },
  '/analytics/staking/daily': { section: '4.2', params: { chain: chain(false), window: window('365d', 'window_days') } },
  '/analytics/staking/slashings-daily': { section: '4.2', params: { chain: chain(false), window: window('365d', 'window_days') } },
  // `direction`: default `both`, its other values "not shown" by the spec; ARCHITECTURE.md takes deposit, withdrawal, both.
  '/analytics/exchange/largest-transfers': {
    section: '4.2, 8; values of direction: ARCHITECTURE.md',
    params: {
      chain: chain(true),
      limit: limit(100, 20),
      direction: { type: 'string', default: 'both', enum: ['deposit', 'withdrawal', 'both'], echo: { field: 'direction', value: 'both' } },
      window: window('30d', 'days'),
    },
  },
  '/analytics/cross-chain/history/{address}': {
    section: '4.2, 8',
    params: {
      address: { type: 'string', in: 'path' },
      page: { type: 'integer', minimum: 1, default: 1, echo: { field: 'offset', value: 0 } },
      page_size: { type: 'integer', minimum: 1, maximum: 200, default: 50, echo: { field: 'limit', value: 50 } },
    },
  },

  // Section 4.3: fee burn, chain in the path.
  '/pos/fees/burned/daily': { section: '4.3', params: { window: window('30d', 'days') } },
  '/pos/fees/burned/summary': { section: '4.3', params: {} },

  // Section 4.4: single-object endpoints.
  '/analytics/network/health': { section: '4.4', params: {} },
  '/analytics/network/page-summary': { section: '4.4', params: { chain: chain(true) } },
  '/analytics/supply/cohorts': { section: '4.4', params: { chain: chain(true), individuals_only: { type: 'boolean', default: false } } },
  '/analytics/supply/entity-distribution': { section: '4.4', params: { chain: chain(true) } },
  '/analytics/supply/holders-distribution': { section: '4.4', params: { chain: chain(true) } },
  '/analytics/supply/lorenz': { section: '4.4', params: { chain: chain(true) } },
  '/analytics/supply/overview': { section: '4.4 rule 4', params: {} },
  '/analytics/supply/summary': { section: '4.4', params: { chain: chain(true) } },
  // Rule 2: the metrics, and a window of at most 10 years whose day count snaps up (no echo field).
  '/analytics/timeline/{metric}': {
    section: '4.4 rule 2, 8',
    params: { metric: { type: 'string', in: 'path', enum: TIMELINE_METRICS }, window: window('90d') },
  },
  '/analytics/whales/cohorts': { section: '4.4 rule 1', params: { threshold_pct: thresholdPct(true), chain: chain(true) } },
  '/analytics/whales/exchange-flow': { section: '4.4 rule 1', params: { threshold_pct: thresholdPct(true), chain: chain(true), window: window('30d', 'days') } },
  '/analytics/whales/movers': {
    section: '4.4 rule 1, 8',
    params: { limit: limit(50, 10, ['accumulators', 'distributors']), threshold_pct: thresholdPct(true), chain: chain(true), window: window('7d', 'window_days') },
  },
  '/analytics/whales/sentiment': { section: '4.4 rule 1', params: { threshold_pct: thresholdPct(true), chain: chain(true), window: window('7d', 'days') } },
  '/analytics/whales/summary': { section: '4.4 rule 1', params: { threshold_pct: thresholdPct(true), chain: chain(true) } },
  '/analytics/dashboard/summary': { section: '4.4', params: {} },
  // Rule 3 names `inactive_after_days` (the silence after which a venue is inactive) without a type,
  // default or bounds; the query column lists only `chain`. Read as a parameter of unstated shape.
  '/analytics/exchange/summary': { section: '4.4 rule 3', params: { chain: chain(true), inactive_after_days: { type: 'integer' } } },
  '/analytics/home/highlights': { section: '4.4', params: { chain: chain(true) } },
};

/** Parameters whose shape the spec leaves open beyond their name: the document's default and bounds are not checked. */
export const SHAPE_NOT_STATED: ReadonlySet<string> = new Set(['/analytics/exchange/summary inactive_after_days']);
