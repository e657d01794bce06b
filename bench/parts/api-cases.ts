/**
 * What the API part asks: for each Addresses API endpoint and chain, an ordinary address, the
 * busiest, a whale, deep offsets and cursors, long windows, every leaderboard filter and sort. A
 * case's target kind (`address`, `offset`, `top-active`, `endpoint`) sets its p99 limit
 * (bench/README.md, "api"); cases without one are measured for information.
 */
import { POW_COINBASE_SENTINEL, type ChainId } from '../../src/chain/chains.ts';
import type { NotableAccounts } from '../../src/sources/synthetic/index.ts';

export const ROUTES = {
  detail: '/api/v1/{chain}/addresses/{address}',
  heatmap: '/api/v1/{chain}/addresses/{address}/activity-heatmap',
  balanceHistory: '/api/v1/{chain}/addresses/{address}/balance-history',
  counterparties: '/api/v1/{chain}/addresses/{address}/counterparties',
  insights: '/api/v1/{chain}/addresses/{address}/insights',
  internal: '/api/v1/{chain}/addresses/{address}/internal-transactions',
  provenance: '/api/v1/{chain}/addresses/{address}/provenance',
  slaves: '/api/v1/{chain}/addresses/{address}/slaves',
  tokenHoldings: '/api/v1/{chain}/addresses/{address}/token-holdings',
  transactions: '/api/v1/{chain}/addresses/{address}/transactions',
  summary: '/api/v1/{chain}/addresses/stats/summary',
  topActive: '/api/v1/{chain}/addresses/top/active',
  topBurners: '/api/v1/{chain}/addresses/top/burners',
  blockSize: '/api/v1/analytics/block-size',
  blockTimes: '/api/v1/analytics/block-times',
  byType: '/api/v1/analytics/transactions/by-type',
  normalised: '/api/v1/analytics/transactions-normalised',
  feePercentiles: '/api/v1/analytics/fees/percentiles',
  gasDistribution: '/api/v1/analytics/gas-distribution',
  gasTrends: '/api/v1/analytics/network/gas-trends',
  burnedDaily: '/api/v1/pos/fees/burned/daily',
  burnedSummary: '/api/v1/pos/fees/burned/summary',
  activeAddresses: '/api/v1/analytics/network/active-addresses-daily',
  newVsReturning: '/api/v1/analytics/network/new-vs-returning-daily',
  walletCount: '/api/v1/analytics/wallet-count',
  userDaily: '/api/v1/analytics/transactions/user-daily',
  pageSummary: '/api/v1/analytics/network/page-summary',
  tps: '/api/v1/analytics/network/tps',
  reorgs: '/api/v1/analytics/network/reorgs',
  health: '/api/v1/analytics/network/health',
  dashboard: '/api/v1/analytics/dashboard/summary',
  highlights: '/api/v1/analytics/home/highlights',
  timeline: '/api/v1/analytics/timeline/{metric}',
  supplyOverview: '/api/v1/analytics/supply/overview',
  supplyCurve: '/api/v1/analytics/supply/curve',
  combinedCurve: '/api/v1/analytics/supply/combined-curve',
  totalSupply: '/api/v1/analytics/total_supply',
  supplySummary: '/api/v1/analytics/supply/summary',
  holdersDistribution: '/api/v1/analytics/supply/holders-distribution',
  lorenz: '/api/v1/analytics/supply/lorenz',
  cohorts: '/api/v1/analytics/supply/cohorts',
  entityDistribution: '/api/v1/analytics/supply/entity-distribution',
  distributionTimeline: '/api/v1/analytics/supply/distribution-timeline',
  ageDaily: '/api/v1/analytics/supply/age-daily',
  dormantBuckets: '/api/v1/analytics/supply/dormant-buckets',
  whalesBiggest: '/api/v1/analytics/whales/biggest',
  whalesHeatmap: '/api/v1/analytics/whales/heatmap',
  whalesLeaderboard: '/api/v1/analytics/whales/leaderboard',
  whalesSparklines: '/api/v1/analytics/whales/sparklines',
  whalesCohorts: '/api/v1/analytics/whales/cohorts',
  whalesExchangeFlow: '/api/v1/analytics/whales/exchange-flow',
  whalesMovers: '/api/v1/analytics/whales/movers',
  whalesSentiment: '/api/v1/analytics/whales/sentiment',
  whalesSummary: '/api/v1/analytics/whales/summary',
  exchangeSummary: '/api/v1/analytics/exchange/summary',
  largestTransfers: '/api/v1/analytics/exchange/largest-transfers',
  stakingApr: '/api/v1/analytics/staking/apr-daily',
  stakingDaily: '/api/v1/analytics/staking/daily',
  slashings: '/api/v1/analytics/staking/slashings-daily',
  crossChain: '/api/v1/analytics/cross-chain/history/{address}',
  // Beyond the spec (docs/api-blocks.md).
  blocks: '/api/v1/{chain}/blocks',
  block: '/api/v1/{chain}/blocks/{id}',
  blockTransactions: '/api/v1/{chain}/blocks/{id}/transactions',
  blockWithdrawals: '/api/v1/pos/blocks/{id}/withdrawals',
  // docs/api-transactions.md
  chainTransactions: '/api/v1/{chain}/transactions',
  chainTransaction: '/api/v1/{chain}/transactions/{hash}',
  pendingTransactions: '/api/v1/{chain}/transactions/pending',
  // docs/api-search.md
  search: '/api/v1/search',
  // docs/api-validators.md
  validators: '/api/v1/pos/validators',
  validator: '/api/v1/pos/validators/{validator}',
  validatorDaily: '/api/v1/pos/validators/{validator}/daily',
  validatorBlocks: '/api/v1/pos/validators/{validator}/blocks',
  validatorWithdrawals: '/api/v1/pos/validators/{validator}/withdrawals',
  // docs/api-ots.md
  ots: '/api/v1/pow/addresses/{address}/ots',
  multiSig: '/api/v1/pow/addresses/{address}/multisig',
  multiSigSpends: '/api/v1/pow/addresses/{address}/multisig/spends',
  // docs/api-tokens.md
  tokens: '/api/v1/{chain}/tokens',
  token: '/api/v1/{chain}/tokens/{token}',
  tokenHolders: '/api/v1/{chain}/tokens/{token}/holders',
  tokenTransfers: '/api/v1/{chain}/tokens/{token}/transfers',
  tokenDaily: '/api/v1/{chain}/tokens/{token}/daily',
} as const;

/** Analytics routes that take the chain as a query parameter, and those that describe pos (or both chains) alone. */
const ANALYTICS_PER_CHAIN: readonly RouteName[] = [
  'blockSize', 'blockTimes', 'byType', 'feePercentiles', 'gasDistribution', 'activeAddresses', 'newVsReturning', 'walletCount', 'userDaily',
  'supplyCurve', 'distributionTimeline', 'ageDaily', 'whalesBiggest', 'whalesHeatmap', 'whalesSparklines', 'whalesExchangeFlow', 'whalesMovers',
  'whalesSentiment', 'largestTransfers',
];
const ANALYTICS_ONCE: readonly RouteName[] = ['normalised', 'gasTrends', 'burnedDaily', 'totalSupply', 'stakingApr', 'stakingDaily', 'slashings'];
/** Analytics routes without a window. */
const ANALYTICS_SINGLE: readonly RouteName[] = ['burnedSummary', 'tps', 'health', 'dashboard', 'supplyOverview', 'combinedCurve'];
const ANALYTICS_SINGLE_PER_CHAIN: readonly RouteName[] = [
  'pageSummary', 'reorgs', 'highlights', 'supplySummary', 'holdersDistribution', 'lorenz', 'cohorts', 'entityDistribution', 'dormantBuckets',
  'whalesLeaderboard', 'whalesCohorts', 'whalesSummary', 'exchangeSummary',
];
const TIMELINE_METRICS = [
  'transactions', 'blocks', 'gas', 'wallets', 'active-wallets', 'active-wallets-100', 'active-wallets-1000', 'supply', 'block_time', 'block_size',
  'active-addresses', 'active-addresses-excl-payouts',
];

export type RouteName = keyof typeof ROUTES;

export interface Target {
  kind: 'address' | 'offset' | 'top-active' | 'endpoint' | 'hostile';
  ms: number;
}

export const TARGETS: Record<Target['kind'], Target> = {
  address: { kind: 'address', ms: 10 },
  offset: { kind: 'offset', ms: 50 },
  'top-active': { kind: 'top-active', ms: 20 },
  endpoint: { kind: 'endpoint', ms: 10 },
  // Requests built to be expensive within the bounds the server accepts: the deep-offset limit.
  hostile: { kind: 'hostile', ms: 50 },
};

/** The top/active sorts without a seek to a deep page (top-active/page.ts): OFFSET walks their index. */
export const RARE_SORTS = ['total_received', 'total_sent', 'total_fees_paid', 'first_seen', 'first_seen_asc', 'last_seen_asc'] as const;

/**
 * The deepest pages the served API accepts, read from its OpenAPI document (the `maximum` of each
 * parameter); where a route documents no maximum, an offset of 10,000.
 */
export interface HostileBounds {
  /** top/active: the largest `page` at the default page size. */
  topActivePage: number;
  /** The address feed: the largest `offset` with a filter. */
  feedOffset: number;
  /** Whether both came from the OpenAPI (else the 10,000 offset stands in). */
  documented: boolean;
}

export const DEFAULT_DEEPEST_OFFSET = 10_000;

export type Query = Record<string, string | number | boolean>;

export interface ApiCase {
  /** Stable across runs and tiers: how results are matched for the M/S ratio and comparisons. */
  id: string;
  route: RouteName;
  chain: ChainId;
  /** Which account the request is about (ordinary, busiest, whale, …), if any. */
  subject?: string;
  address?: string;
  query: Query;
  target?: Target;
  /** Compared with the same server answering a static body of the same size. */
  hot?: boolean;
  /** For cursor paging: the position of the page, reached through a previous answer's next_cursor. */
  cursorDepth?: number;
  note?: string;
  /** The query as shown in the id, where a value depends on the world (an address, a time). */
  shownQuery?: Query;
  /** The timeline's path parameter. */
  metric?: string;
  /** The block routes' path parameter: a height or a hash. */
  blockId?: string;
  /**
   * A transaction page's hash, or `@latest` (`@latest:<tx_type>`): the newest transaction (of that
   * type), read from the chain's list when the case is measured.
   */
  hash?: string;
  /** The hash as shown in the id, where it depends on the world. */
  shownHash?: string;
  /** The validator routes' path parameter: an index or a public key. */
  validator?: string;
  /** The token routes' path parameter (the world's system token), shown in the id as `system-token`. */
  token?: string;
}

/** A chain's latest block as the served API lists it: where the block cases point. */
export interface TipBlock {
  height: number;
  hash: string;
  producer: string | null;
}

export interface CaseInputs {
  notable: Record<ChainId, NotableAccounts>;
  /** Transaction counts of the subjects, from the database. */
  txCounts: Record<ChainId, { busiest: number; ordinary: number }>;
  /** Unix seconds of the last block (the world's end). */
  end: number;
  /** For the hostile cases; without it, none. */
  bounds?: HostileBounds;
  /** Each chain's latest block (from GET /{chain}/blocks); without it, no block cases. */
  tips?: Record<ChainId, TipBlock | null>;
  /** The richest validator (from GET /pos/validators?sort=-balance); without it, no validator cases. */
  validator?: { index: number; pubkey: string } | null;
  /** pow's busiest signing key and a multi-signature address (TierFacts.powKeys); without them, no cases of theirs. */
  powKeys?: { busiestSigner: string | null; multiSig: string | null };
}

const DAY = 86_400;

export function buildCases(inputs: CaseInputs): ApiCase[] {
  const cases: ApiCase[] = [];
  for (const chain of ['pow', 'pos'] as const) {
    const n = inputs.notable[chain];
    const add = (route: RouteName, subject: string | undefined, query: Query, extra: Partial<ApiCase> = {}) => {
      const address = subject ? (subjectAddress(chain, n, subject, inputs.powKeys) ?? undefined) : undefined;
      if (subject && !address) return;
      const params = Object.entries(extra.shownQuery ?? query).map(([k, v]) => `${k}=${v}`).join('&');
      const id = [chain, route, extra.metric, subject, extra.shownHash ?? extra.hash, extra.token ? 'system-token' : undefined, params].filter(Boolean).join(' ');
      const target = extra.target !== undefined ? extra.target : subject === 'ordinary' || subject === 'busiest' ? TARGETS.address : undefined;
      cases.push({ id, route, chain, subject, address, query, target, ...extra });
    };
    const pow = chain === 'pow';

    add('detail', 'ordinary', {}, { hot: true });
    add('detail', 'busiest', {});
    add('detail', 'busiest', { with_labels: true });
    add('detail', 'whale', {});

    add('heatmap', 'ordinary', {});
    add('heatmap', 'busiest', {});

    add('balanceHistory', 'ordinary', {});
    add('balanceHistory', 'busiest', {});
    add('balanceHistory', 'busiest', { window: '30d' });
    add('balanceHistory', 'busiest', { window: '365d' });
    add('balanceHistory', 'whale', {});

    add('counterparties', 'ordinary', {});
    add('counterparties', 'busiest', {});
    add('counterparties', 'busiest', { direction: 'sent', limit: 200 });
    add('counterparties', 'busiest', { direction: 'received', limit: 200 });

    add('insights', 'ordinary', {});
    add('insights', 'busiest', {});
    add('insights', 'whale', {});

    add('internal', 'ordinary', {});
    add('internal', 'busiest', {});
    if (!pow) {
      add('internal', 'contract', {});
      add('internal', 'contract', { page: 4001, page_size: 25 }, { target: TARGETS.offset, note: 'offset 100,000' });
    }

    add('provenance', 'ordinary', {});
    add('provenance', 'busiest', {});

    add('slaves', 'ordinary', {});
    add('slaves', 'busiest', {});
    if (pow) add('slaves', 'slaveMaster', { limit: 200 });

    add('tokenHoldings', 'ordinary', {});
    add('tokenHoldings', 'busiest', {});
    if (!pow) add('tokenHoldings', 'tokenHolder', { limit: 500 });

    const busiest = inputs.txCounts[chain].busiest;
    add('transactions', 'ordinary', {}, { hot: true });
    add('transactions', 'busiest', {}, { hot: true });
    add('transactions', 'busiest', { limit: 100 });
    add('transactions', 'busiest', { direction: 'in' });
    add('transactions', 'busiest', { direction: 'out' });
    add('transactions', 'busiest', { tx_type: pow ? 'transfer' : 'contract_call' });
    for (const days of [30, 365]) {
      add('transactions', 'busiest', { time_from: inputs.end - days * DAY, time_to: inputs.end }, { shownQuery: { time_from: `end-${days}d`, time_to: 'end' } });
    }
    add('transactions', 'busiest', { offset: 1000 });
    add('transactions', 'busiest', { offset: 100_000 }, {
      target: TARGETS.offset,
      ...(busiest < 100_025 ? { note: `the address has ${busiest} transactions: the page is past the end` } : {}),
    });
    for (const depth of [25, 10_000, 100_000]) {
      if (depth >= busiest) continue;
      add('transactions', 'busiest', { cursor: `@${depth}` }, { cursorDepth: depth, note: `cursor page at position ${depth.toLocaleString('en')}` });
    }

    add('summary', undefined, {}, { hot: true, target: TARGETS.endpoint });

    // The chain's transactions (docs/api-transactions.md): the newest page, the largest, deep
    // cursors, a rare type and a common one; transaction pages of each shape the world has.
    const latest = (query: Query, extra: Partial<ApiCase> = {}) => add('chainTransactions', undefined, query, { target: TARGETS.endpoint, ...extra });
    latest({}, { hot: true });
    latest({ limit: 100 });
    for (const depth of [10_000, 100_000]) latest({ cursor: `@${depth}` }, { cursorDepth: depth, note: `cursor page at position ${depth.toLocaleString('en')}` });
    latest({ tx_type: pow ? 'slave' : 'contract_create' }, { note: 'a rare type' });
    latest({ tx_type: pow ? 'transfer' : 'contract_call', cursor: '@10000' }, { cursorDepth: 10_000, note: 'a common type, cursor page at position 10,000' });
    const page = (hash: string, note: string, shownHash?: string) => add('chainTransaction', undefined, {}, { target: TARGETS.endpoint, hash, shownHash, note });
    page('@latest', 'the newest transaction');
    page(pow ? '@latest:transfer' : '@latest:contract_call', pow ? 'the newest transfer (payouts have up to 100 recipients)' : 'the newest contract call (token and internal transfers)');
    if (pow) page(n.token, 'the system token\'s creation: every initial balance', 'token-creation');
    // The pending list: no indexer follows the benchmark's store, so the answer is its empty list
    // with the reason, from the poll's status alone.
    const pending = (query: Query) => add('pendingTransactions', undefined, query, { target: TARGETS.endpoint, note: 'no indexer follows: the empty list and why' });
    pending({});
    pending({ limit: 100 });

    // Tokens (docs/api-tokens.md): the list in each order and by a name or symbol prefix; the
    // system token's page, its holders and transfers (the first page, 100 items, cursor pages at
    // 25, 10,000 and 100,000: constant at any depth) and its days.
    const tokens = (route: RouteName, query: Query, extra: Partial<ApiCase> = {}) => add(route, undefined, query, { target: TARGETS.endpoint, ...extra });
    tokens('tokens', {}, { hot: true });
    tokens('tokens', { limit: 100 });
    tokens('tokens', { sort: 'transfers' });
    tokens('tokens', { sort: 'newest' });
    tokens('tokens', { q: 'q' }, { note: 'a one-letter prefix' });
    tokens('tokens', { q: 'qu', sort: 'transfers' });
    const token = n.token;
    tokens('token', {}, { token });
    tokens('tokenDaily', {}, { token });
    tokens('tokenDaily', { window: '365d' }, { token });
    tokens('tokenDaily', { window: 'all' }, { token });
    for (const route of ['tokenHolders', 'tokenTransfers'] as const) {
      tokens(route, {}, { token, hot: route === 'tokenHolders' });
      tokens(route, { limit: 100 }, { token });
      for (const depth of [25, 10_000, 100_000]) tokens(route, { cursor: `@${depth}` }, { token, cursorDepth: depth, note: `cursor page at position ${depth.toLocaleString('en')}` });
    }

    const top = (query: Query, extra: Partial<ApiCase> = {}) => add('topActive', undefined, query, { target: TARGETS['top-active'], ...extra });
    top({}, { hot: true });
    top({ page_size: 100 });
    top({ page: 4001 }, { target: TARGETS.offset, note: 'offset 100,000' });
    const busiestAddress = n.busiestHotWallet;
    top({ q: busiestAddress.slice(5, 13) }, { shownQuery: { q: '8 characters of the busiest address' } });
    top({ q: busiestAddress.slice(5, 8) }, { shownQuery: { q: '3 characters of the busiest address' } });
    top({ with_labels: true });
    top({ with_delta_30d: true });
    top({ positive_only: true });
    top({ exclude_sentinel: true });
    top({ exclude: `${busiestAddress},${n.whale}` }, { shownQuery: { exclude: 'busiest,whale' } });
    top({ min_balance_pct: 0.1 });
    top({ whale_only: true });
    for (const field of ['tx_count', 'balance', 'total_received', 'total_sent', 'total_fees_paid', 'first_seen', 'first_seen_asc', 'last_seen_asc']) {
      top({ sort: field });
      top({ sort: `-${field}` });
    }
    top({ whale_only: true, with_labels: true, sort: '-balance' });
    top({ positive_only: true, exclude_sentinel: true, with_delta_30d: true, with_labels: true, sort: '-balance', page: 2 });
    top({ q: busiestAddress.slice(5, 8), sort: '-balance', with_labels: true }, { shownQuery: { q: '3 characters', sort: '-balance', with_labels: true } });

    // Hostile: the most expensive requests the server accepts (issue 34): the deepest page of each
    // sort without a seek, the widest `q` (one character, `%`), alone and with a balance floor, and
    // the largest feed offset with a type filter, on the busiest address and on the coinbase sentinel.
    const bounds = inputs.bounds;
    if (bounds) {
      const hostile = (route: RouteName, subject: string | undefined, query: Query, extra: Partial<ApiCase>) =>
        add(route, subject, query, { target: TARGETS.hostile, ...extra });
      for (const field of RARE_SORTS) {
        hostile('topActive', undefined, { sort: field, page: bounds.topActivePage }, { shownQuery: { sort: field, page: 'deepest' }, note: `page ${bounds.topActivePage}` });
      }
      hostile('topActive', undefined, { q: '%' }, {});
      hostile('topActive', undefined, { q: '%', min_balance_pct: 0.0001 }, {});
      hostile('topActive', undefined, { q: '%', page: bounds.topActivePage, sort: '-total_sent' }, { shownQuery: { q: '%', page: 'deepest', sort: '-total_sent' }, note: `page ${bounds.topActivePage}` });
      const feedType = pow ? 'transfer' : 'contract_call';
      hostile('transactions', 'busiest', { offset: bounds.feedOffset, tx_type: feedType }, { shownQuery: { offset: 'largest', tx_type: feedType }, note: `offset ${bounds.feedOffset.toLocaleString('en')}` });
      if (pow) hostile('transactions', 'coinbase', { offset: bounds.feedOffset, tx_type: 'coinbase' }, { shownQuery: { offset: 'largest', tx_type: 'coinbase' }, note: `offset ${bounds.feedOffset.toLocaleString('en')}` });
    }

    // Blocks: the list (newest, a producer's, a day, a year back), a block by height and by hash,
    // its transactions and (pos) withdrawals, at the tip and deep in the chain.
    const tip = inputs.tips?.[chain];
    if (tip) {
      const blocks = (route: RouteName, query: Query, extra: Partial<ApiCase> = {}) => add(route, undefined, query, { target: TARGETS.endpoint, ...extra });
      blocks('blocks', {}, { hot: true });
      blocks('blocks', { limit: 100 });
      const producer = (pow ? n.miningPool : null) ?? tip.producer;
      if (producer) blocks('blocks', { producer }, { shownQuery: { producer: pow ? 'the largest pool' : 'the tip\'s fee recipient' } });
      blocks('blocks', { time_from: inputs.end - DAY, time_to: inputs.end }, { shownQuery: { time_from: 'end-1d', time_to: 'end' } });
      blocks('blocks', { time_to: inputs.end - 365 * DAY }, { shownQuery: { time_to: 'end-365d' }, note: 'a page a year below the tip' });
      const deep = String(Math.max(0, tip.height - 100_000));
      for (const [id, shown] of [[String(tip.height), 'tip'], [deep, 'tip-100000'], [tip.hash, 'tip hash']] as const) {
        blocks('block', {}, { blockId: id, shownQuery: { id: shown } });
        blocks('blockTransactions', { limit: 100 }, { blockId: id, shownQuery: { id: shown, limit: 100 } });
        if (!pow) blocks('blockWithdrawals', {}, { blockId: id, shownQuery: { id: shown } });
      }
    }

    // The search (both chains in one answer: measured once, under pos): each kind of identifier,
    // the widest prefixes (one letter: every label and token of the letter), whole texts, nothing.
    if (!pow) {
      const search = (q: string, shown: string, note?: string) => add('search', undefined, { q }, { target: TARGETS.endpoint, shownQuery: { q: shown }, ...(note ? { note } : {}) });
      const tips = inputs.tips;
      if (tips?.pos) {
        search(tips.pos.hash, 'pos tip hash');
        search(String(tips.pos.height), 'pos tip height', 'a height: the block of each chain');
      }
      if (tips?.pow) search(tips.pow.hash.toUpperCase(), 'pow tip hash, upper case');
      search(inputs.notable.pos.busiestHotWallet, 'busiest pos address');
      search(inputs.notable.pow.busiestHotWallet, 'busiest pow address');
      search(inputs.notable.pow.token, 'pow token creation', 'a transaction and a token');
      search(inputs.notable.pos.exchange.slice(0, 1), 'first letter of the largest exchange', 'the widest label prefix: its deposit addresses share a label');
      search(inputs.notable.pos.exchange, 'the largest exchange');
      search('QUSD', 'QUSD', 'a token symbol, whole');
      search('q', 'q', 'one letter: labels and tokens');
      search('zzzzzz', 'zzzzzz', 'names nothing');
    }
    // Validators (pos): the list in each order and filter, deep by cursor; the richest validator by
    // index and by its public key, its days, proposals and withdrawals.
    const richest = inputs.validator;
    if (!pow && richest) {
      const list = (query: Query, extra: Partial<ApiCase> = {}) => add('validators', undefined, query, { target: TARGETS.endpoint, ...extra });
      list({}, { hot: true });
      list({ limit: 100 });
      list({ sort: '-balance' });
      list({ status: 'active' });
      list({ status: 'active_ongoing', sort: '-balance', limit: 100 });
      list({ status: 'withdrawal', sort: 'balance' });
      list({ sort: '-balance', cursor: '@200' }, { cursorDepth: 200, note: 'cursor page at position 200' });
      const one = (route: RouteName, query: Query, validator: string, shown: string) =>
        add(route, undefined, query, { target: TARGETS.endpoint, validator, shownQuery: { validator: shown, ...query } });
      one('validator', {}, String(richest.index), 'richest');
      one('validator', {}, richest.pubkey, 'richest by public key');
      one('validatorDaily', {}, String(richest.index), 'richest');
      one('validatorDaily', { window: '30d' }, String(richest.index), 'richest');
      one('validatorBlocks', {}, String(richest.index), 'richest');
      one('validatorWithdrawals', {}, String(richest.index), 'richest');
      one('validatorWithdrawals', { limit: 100 }, String(richest.index), 'richest');
    }
    // One-time keys and multi-signature addresses (docs/api-ots.md), pow only: an ordinary user's own
    // key, the busiest wallet's (its slaves sign), the busiest key (a slave), a whale's second page;
    // the multisig address with most spends, its spends by cursor and by state.
    if (pow) {
      const keys = (route: RouteName, subject: string, query: Query, note?: string) => add(route, subject, query, { target: TARGETS.address, ...(note ? { note } : {}) });
      keys('ots', 'ordinary', {});
      keys('ots', 'busiest', {}, 'its slaves sign its transactions: its own key signs little');
      keys('ots', 'busiestSigner', {}, 'the key with the most signatures');
      keys('ots', 'whale', {});
      keys('multiSig', 'multiSig', {});
      keys('multiSigSpends', 'multiSig', {});
      keys('multiSigSpends', 'multiSig', { limit: 100 });
      keys('multiSigSpends', 'multiSig', { status: 'executed' });
    }

    const burners = (query: Query) => add('topBurners', undefined, query, { target: pow ? undefined : TARGETS.endpoint, ...(pow ? { note: 'pos only: an empty list on pow' } : {}) });
    burners({});
    burners({ window: '30d' });
    burners({ window: '365d' });
    burners({ limit: 500 });

    // Analytics: the default window and the longest (ten years).
    const analytics = (route: RouteName, query: Query) => add(route, undefined, query, { target: TARGETS.endpoint });
    for (const route of ANALYTICS_PER_CHAIN) {
      analytics(route, { chain });
      analytics(route, { chain, window: '3650d' });
    }
    for (const route of ANALYTICS_SINGLE_PER_CHAIN) analytics(route, { chain });
    analytics('cohorts', { chain, individuals_only: true });
    for (const route of ['whalesLeaderboard', 'whalesSummary', 'whalesMovers'] as const) analytics(route, { chain, threshold_pct: 0.1 });
    add('crossChain', 'whale', {}, { target: TARGETS.endpoint });
    if (pow) add('crossChain', 'migration', { page: 100, page_size: 200 }, { target: TARGETS.endpoint, note: 'the migration address: every burn' });
    if (!pow) {
      for (const route of ANALYTICS_ONCE) {
        analytics(route, {});
        analytics(route, { window: '3650d' });
      }
      for (const route of ANALYTICS_SINGLE) add(route, undefined, {}, { target: TARGETS.endpoint, ...(route === 'dashboard' ? { hot: true } : {}) });
      for (const metric of TIMELINE_METRICS) {
        add('timeline', undefined, {}, { target: TARGETS.endpoint, metric });
        add('timeline', undefined, { window: '10y' }, { target: TARGETS.endpoint, metric });
      }
    }
  }
  return cases;
}

function subjectAddress(chain: ChainId, n: NotableAccounts, subject: string, keys: CaseInputs['powKeys']): string | null {
  switch (subject) {
    case 'busiestSigner':
      return chain === 'pow' ? (keys?.busiestSigner ?? null) : null;
    case 'multiSig':
      return chain === 'pow' ? (keys?.multiSig ?? null) : null;
    case 'coinbase':
      return chain === 'pow' ? POW_COINBASE_SENTINEL : null;
    case 'ordinary':
      return n.ordinary;
    case 'busiest':
      return n.busiestHotWallet;
    case 'whale':
      return n.whale;
    case 'contract':
      return n.contract;
    case 'slaveMaster':
      return n.slaveMaster;
    case 'tokenHolder':
      return n.tokenHolder;
    case 'migration':
      return n.migrationAddress;
    default:
      throw new Error(`unknown subject ${subject}`);
  }
}

/** The request path of a case (a cursor case gets its cursor later). */
export function casePath(c: ApiCase, query: Query = c.query): string {
  const path = ROUTES[c.route].replace('{chain}', c.chain).replace('{address}', c.address ?? '').replace('{metric}', c.metric ?? '').replace('{id}', c.blockId ?? '').replace('{hash}', c.hash ?? '').replace('{validator}', c.validator ?? '').replace('{token}', c.token ?? '');
  const params = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}
