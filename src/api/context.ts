import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Config } from '../config/env.ts';
import type { ChainId } from '../chain/chains.ts';
import type { Store } from '../store/store.ts';
import type { CursorCodec } from './params/cursor.ts';
import type { StoreOutage } from './plugins/store-outage.ts';
import type { LoadingChains } from '../ingest/loading.ts';

/** What route handlers need, handed to each route group when it is registered. */
export interface ApiContext {
  store: Store;
  /** Whether the store is down right now (plugins/store-outage.ts); buildApp always sets it. */
  storeOutage?: StoreOutage;
  config: Config;
  cursors: CursorCodec;
  /** The network name echoed in responses for a chain. */
  network(chain: ChainId): string;
  /** Plan thresholds of the heavier routes. */
  tuning: ApiTuning;
  /** Chains still loading into the store (`quarry demo`'s first start), which /readyz lists. */
  loading?: LoadingChains;
}

/**
 * Thresholds between the plans of the transaction feed and the leaderboard. The defaults suit any
 * chain; tests lower them to exercise every plan on small chains.
 */
export interface ApiTuning {
  feed: {
    /** Offsets up to this are skipped in the row stream directly; deeper ones are located first. */
    directOffset: number;
    /** Index entries a type count reads before it counts the other types instead. */
    typeCountProbe: number;
  };
  topActive: {
    /** Candidate sets up to this many addresses are counted and sorted in full rather than read in index order. */
    smallSet: number;
    /** Pages from this offset of the tx_count and balance orders start at the bucket holding their first row. */
    seekFrom: number;
    /** A substring page is read in index order when that passes at most this many rows. */
    orderScan: number;
  };
  /**
   * Rows a page may reach (offset + page size) where the store walks to the offset row by row: the
   * feed with a type filter, the leaderboard but for its tx_count order without filters
   * (docs/bounds.md). Tests lower it to reach the bound on small chains; the OpenAPI document states
   * the default.
   */
  pagedRows: number;
}

/** The default of `ApiTuning.pagedRows`: what Etherscan's APIs allow for the same kind of list. */
export const PAGED_ROWS = 10_000;

export const DEFAULT_TUNING: ApiTuning = {
  feed: { directOffset: 1000, typeCountProbe: 2000 },
  topActive: { smallSet: 20_000, seekFrom: 2_000, orderScan: 100_000 },
  pagedRows: PAGED_ROWS,
};

/** `DEFAULT_TUNING` with some thresholds changed. */
export function tuningWith(
  changes: { feed?: Partial<ApiTuning['feed']>; topActive?: Partial<ApiTuning['topActive']>; pagedRows?: number } = {},
): ApiTuning {
  return {
    feed: { ...DEFAULT_TUNING.feed, ...changes.feed },
    topActive: { ...DEFAULT_TUNING.topActive, ...changes.topActive },
    pagedRows: changes.pagedRows ?? DEFAULT_TUNING.pagedRows,
  };
}

/** The Fastify instance a route registers itself on (with the TypeBox type provider). */
export type RouteApp = Parameters<FastifyPluginAsyncTypebox>[0];
