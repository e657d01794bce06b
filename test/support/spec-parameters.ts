/**
 * The query parameters of the Addresses API as the spec states them (spec/api.md sections 4.1 and
 * 8), copied by hand so that the tests need nothing outside this repository. When the spec
 * changes, change this table with it: the OpenAPI contract test holds the document to it.
 *
 * `type` is the spec's type; `boolean` parameters are documented as the strings true/false/1/0
 * (docs/api-conventions.md). A bound or default left out is one the spec does not state.
 */
export interface SpecParameter {
  type: 'integer' | 'number' | 'string' | 'boolean';
  default?: string | number | boolean;
  minimum?: number;
  maximum?: number;
  /** The allowed values, where the spec lists them. */
  enum?: readonly string[];
  /** Required (the spec's parameters never are; a route beyond it may have one, as the search's q). */
  required?: true;
}

/** The fields `sort` takes on top/active; each also with a leading `-`. */
const SORT_FIELDS = ['tx_count', 'balance', 'total_received', 'total_sent', 'total_fees_paid', 'first_seen', 'first_seen_asc', 'last_seen_asc'];

/** Path (after /api/v1/{chain}/addresses) → query parameters. Every endpoint of section 4.1, none left out. */
export const SPEC_ADDRESS_PARAMETERS: Record<string, Record<string, SpecParameter>> = {
  '/{address}': {
    with_labels: { type: 'boolean', default: false },
  },
  '/{address}/activity-heatmap': {},
  '/{address}/balance-history': {
    // "when omitted or `all` the full history is returned (default)"
    window: { type: 'string', default: 'all' },
  },
  '/{address}/counterparties': {
    direction: { type: 'string', default: 'both', enum: ['sent', 'received', 'both'] },
    limit: { type: 'integer', minimum: 1, maximum: 200, default: 20 },
  },
  '/{address}/insights': {},
  '/{address}/internal-transactions': {
    page: { type: 'integer', minimum: 1, default: 1 },
    page_size: { type: 'integer', minimum: 1, maximum: 100, default: 25 },
  },
  '/{address}/provenance': {},
  '/{address}/slaves': {
    limit: { type: 'integer', minimum: 1, maximum: 200, default: 25 },
    offset: { type: 'integer', minimum: 0, default: 0 },
  },
  '/{address}/token-holdings': {
    limit: { type: 'integer', minimum: 1, maximum: 500, default: 100 },
  },
  '/{address}/transactions': {
    cursor: { type: 'string' },
    offset: { type: 'integer', minimum: 0, default: 0 },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 25 },
    direction: { type: 'string', default: 'both', enum: ['in', 'out', 'both'] },
    tx_type: { type: 'string' },
    time_from: { type: 'integer' },
    time_to: { type: 'integer' },
  },
  '/stats/summary': {},
  '/top/active': {
    page: { type: 'integer', minimum: 1, default: 1 },
    page_size: { type: 'integer', minimum: 1, maximum: 100, default: 25 },
    q: { type: 'string' },
    with_labels: { type: 'boolean', default: false },
    with_delta_30d: { type: 'boolean', default: false },
    positive_only: { type: 'boolean', default: false },
    exclude_sentinel: { type: 'boolean', default: false },
    exclude: { type: 'string' },
    min_balance_pct: { type: 'number' },
    whale_only: { type: 'boolean', default: false },
    sort: { type: 'string', default: '-tx_count', enum: [...SORT_FIELDS, ...SORT_FIELDS.map((field) => `-${field}`)] },
  },
  '/top/burners': {
    limit: { type: 'integer', minimum: 1, maximum: 500, default: 50 },
    window: { type: 'string', default: '7d' },
  },
};

/**
 * The routes beyond the spec (/work/shared/ARCHITECTURE.md, "Routes beyond the spec"), with their
 * query parameters as their pages in docs/ state them: full OpenAPI path → parameters. The contract
 * test holds the document to it, so a route added beside these is added here too.
 */
export const EXPLORER_PARAMETERS: Record<string, Record<string, SpecParameter>> = {
  // docs/api-blocks.md
  '/api/v1/{chain}/blocks': {
    cursor: { type: 'string' },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 25 },
    producer: { type: 'string' },
    time_from: { type: 'integer', minimum: 0 },
    time_to: { type: 'integer', minimum: 0 },
  },
  '/api/v1/{chain}/blocks/{id}': {},
  '/api/v1/{chain}/blocks/{id}/transactions': {
    cursor: { type: 'string' },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 25 },
  },
  '/api/v1/pos/blocks/{id}/withdrawals': {
    cursor: { type: 'string' },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 25 },
  },
  // docs/api-transactions.md
  '/api/v1/{chain}/transactions': {
    cursor: { type: 'string' },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 25 },
    tx_type: { type: 'string' },
  },
  '/api/v1/{chain}/transactions/{hash}': {},
  // docs/api-search.md
  '/api/v1/search': {
    q: { type: 'string', required: true },
  },
  '/api/v1/{chain}/transactions/pending': {
    cursor: { type: 'string' },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 25 },
  },
  // docs/api-validators.md
  '/api/v1/pos/validators': {
    cursor: { type: 'string' },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 25 },
    status: {
      type: 'string',
      enum: ['pending_initialized', 'pending_queued', 'active_ongoing', 'active_exiting', 'active_slashed', 'exited_unslashed', 'exited_slashed', 'withdrawal_possible', 'withdrawal_done', 'pending', 'active', 'exited', 'withdrawal'],
    },
    sort: { type: 'string', enum: ['index', '-index', 'balance', '-balance'], default: 'index' },
  },
  '/api/v1/pos/validators/{validator}': {},
  '/api/v1/pos/validators/{validator}/daily': { window: { type: 'string', default: 'all' } },
  '/api/v1/pos/validators/{validator}/blocks': {
    cursor: { type: 'string' },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 25 },
  },
  '/api/v1/pos/validators/{validator}/withdrawals': {
    cursor: { type: 'string' },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 25 },
  },
  // docs/api-ots.md
  '/api/v1/pow/addresses/{address}/ots': {
    page: { type: 'integer', minimum: 1, default: 1 },
  },
  '/api/v1/pow/addresses/{address}/multisig': {},
  '/api/v1/pow/addresses/{address}/multisig/spends': {
    cursor: { type: 'string' },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 25 },
    status: { type: 'string', enum: ['open', 'executed', 'expired'] },
  },
  // docs/api-tokens.md
  '/api/v1/{chain}/tokens': {
    cursor: { type: 'string' },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 25 },
    sort: { type: 'string', default: 'holders', enum: ['holders', 'transfers', 'newest'] },
    q: { type: 'string' },
  },
  '/api/v1/{chain}/tokens/{token}': {},
  '/api/v1/{chain}/tokens/{token}/holders': {
    cursor: { type: 'string' },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 25 },
  },
  '/api/v1/{chain}/tokens/{token}/transfers': {
    cursor: { type: 'string' },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 25 },
  },
  '/api/v1/{chain}/tokens/{token}/daily': {
    window: { type: 'string', default: '30d' },
  },
};

/** The path parameters of the routes beyond the spec, besides `chain`: name → where it is documented. */
export const EXPLORER_PATH_PARAMETERS: Record<string, readonly string[]> = {
  '/api/v1/{chain}/blocks': ['chain'],
  '/api/v1/{chain}/blocks/{id}': ['chain', 'id'],
  '/api/v1/{chain}/blocks/{id}/transactions': ['chain', 'id'],
  '/api/v1/pos/blocks/{id}/withdrawals': ['id'],
  '/api/v1/{chain}/transactions': ['chain'],
  '/api/v1/{chain}/transactions/{hash}': ['chain', 'hash'],
  '/api/v1/search': [],
  '/api/v1/{chain}/transactions/pending': ['chain'],
  '/api/v1/pos/validators': [],
  '/api/v1/pos/validators/{validator}': ['validator'],
  '/api/v1/pos/validators/{validator}/daily': ['validator'],
  '/api/v1/pos/validators/{validator}/blocks': ['validator'],
  '/api/v1/pos/validators/{validator}/withdrawals': ['validator'],
  '/api/v1/pow/addresses/{address}/ots': ['address'],
  '/api/v1/pow/addresses/{address}/multisig': ['address'],
  '/api/v1/pow/addresses/{address}/multisig/spends': ['address'],
  '/api/v1/{chain}/tokens': ['chain'],
  '/api/v1/{chain}/tokens/{token}': ['chain', 'token'],
  '/api/v1/{chain}/tokens/{token}/holders': ['chain', 'token'],
  '/api/v1/{chain}/tokens/{token}/transfers': ['chain', 'token'],
  '/api/v1/{chain}/tokens/{token}/daily': ['chain', 'token'],
};
