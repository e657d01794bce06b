/**
 * Every /api/v1 GET operation of the app's OpenAPI document, and concrete requests for each: its
 * path parameters filled from the seed (both chains, addresses that take part in what the Addresses
 * routes list, blocks with transactions and withdrawals, every timeline metric), its required query parameters from the seed
 * too (the search's q), the rest at the defaults, with each chain where it takes one.
 * The suites that must cover every route (CSV exports, freshness headers) iterate these, so a new
 * route is covered when it is registered; a path parameter this file cannot fill fails the suite.
 */
import type { ChainId } from '../../src/chain/chains.ts';
import type { CanonicalBlock } from '../../src/chain/model.ts';
import { AUTH, type TestApp } from './app.ts';

const CHAIN_IDS: readonly ChainId[] = ['pow', 'pos'];

export interface OpenApiParameter {
  name: string;
  in: 'path' | 'query';
  required?: boolean;
  schema: { enum?: string[]; default?: unknown; type?: string };
}

export interface Operation {
  path: string;
  operationId: string;
  parameters: OpenApiParameter[];
  responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, { schema: Record<string, any> }> }>;
}

export interface OpenApiDoc {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Record<string, any>> };
}

export async function openApiDoc(t: TestApp): Promise<OpenApiDoc> {
  const res = await t.app.inject({ url: '/api/v1/openapi.json' });
  if (res.statusCode !== 200) throw new Error(`openapi.json: ${res.statusCode}`);
  return res.json();
}

/** Every GET operation under /api/v1 that answers a whole body, with its path: all but the event stream (docs/events.md), which never ends. */
export function apiOperations(doc: OpenApiDoc): Operation[] {
  return Object.entries(doc.paths)
    .filter(([path, item]) => path.startsWith('/api/v1/') && item.get && !item.get.responses['200']?.content?.['text/event-stream'])
    .map(([path, item]) => ({ ...item.get!, path, parameters: item.get!.parameters ?? [] }));
}

/** A schema with its `$ref` resolved against the document's components. */
export function resolved(doc: OpenApiDoc, schema: Record<string, any>): Record<string, any> {
  const ref = schema?.$ref as string | undefined;
  if (!ref) return schema;
  const name = ref.replace('#/components/schemas/', '');
  const target = doc.components?.schemas?.[name];
  if (!target) throw new Error(`unresolved ${ref}`);
  return resolved(doc, target);
}

/** Addresses of each chain that appear in what the Addresses routes list, busiest first; blocks whose pages list something; transaction hashes of each chain. */
export interface Candidates {
  pow: string[];
  pos: string[];
  /** Block ids per chain (`{id}` of the block routes): the block with most transactions by height, the one with most withdrawals by hash. */
  blocks?: Record<ChainId, string[]>;
  /** For a `{hash}` of /{chain}/transactions/{hash}. */
  transactions?: Record<ChainId, string[]>;
  /** For the search's required `q`: queries that find something of several kinds. */
  search?: string[];
  /** For a `{validator}` of /pos/validators/{validator}: an index or a public key. */
  validators?: string[];
  /** pow multi-signature addresses (the `{address}` of /pow/addresses/{address}/multisig…). */
  multiSig?: string[];
  /** For a `{token}` of /{chain}/tokens/{token}: the token with most transfers. */
  tokens?: Record<ChainId, string[]>;
}

/** Per chain: the height of the block with most transactions and the hash of the one with most withdrawals. */
function candidateBlocks(blocks: Record<ChainId, CanonicalBlock[]>): Record<ChainId, string[]> {
  const most = (list: CanonicalBlock[], n: (b: CanonicalBlock) => number) => list.reduce<CanonicalBlock | undefined>((best, b) => (!best || n(b) > n(best) ? b : best), undefined);
  const out = { pow: [] as string[], pos: [] as string[] };
  for (const chain of CHAIN_IDS) {
    const busy = most(blocks[chain], (b) => b.transactions.length);
    const paid = most(blocks[chain], (b) => b.withdrawals.length);
    out[chain] = [...new Set([busy ? String(busy.height) : null, paid && paid.withdrawals.length > 0 ? paid.hash : null].filter((id): id is string => id !== null))];
  }
  return out;
}

/** The validator paid most withdrawals in the pos blocks (its withdrawals list is the longest), by index. */
function candidateValidators(blocks: CanonicalBlock[]): string[] {
  const counts = new Map<number, number>();
  for (const block of blocks) for (const w of block.withdrawals) counts.set(w.validatorIndex, (counts.get(w.validatorIndex) ?? 0) + 1);
  const top = [...counts].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0];
  return top ? [String(top[0])] : [];
}

/**
 * Per chain: the address in most transactions, the master with most slave registrations, the
 * address in most internal transfers, the one receiving most token transfers, and a migration
 * party: lists of every Addresses route are then not all empty; and the token with most transfers.
 */
export function candidateAddresses(blocks: Record<ChainId, CanonicalBlock[]>): Candidates {
  const top = (counts: Map<string, number>) => [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0];
  const multiSig = blocks.pow.flatMap((b) => b.transactions.flatMap((tx) => (tx.multiSig?.kind === 'create' ? [tx.multiSig.address] : [])));
  const out: Candidates = { pow: [], pos: [], blocks: candidateBlocks(blocks), transactions: { pow: [], pos: [] }, search: [], validators: candidateValidators(blocks.pos), multiSig, tokens: { pow: [], pos: [] } };
  for (const chain of CHAIN_IDS) {
    // The newest transaction, and the one with the most token transfers.
    const txs = blocks[chain].flatMap((block) => block.transactions);
    const busiest = [...txs].sort((a, b) => b.tokenTransfers.length - a.tokenTransfers.length)[0];
    out.transactions![chain] = [...new Set([txs.at(-1)?.hash, busiest?.hash].filter((h): h is string => h !== undefined))];
    const kinds = { txs: new Map<string, number>(), masters: new Map<string, number>(), internal: new Map<string, number>(), tokens: new Map<string, number>(), migration: new Map<string, number>() };
    const bump = (m: Map<string, number>, a: string | null | undefined) => a && m.set(a, (m.get(a) ?? 0) + 1);
    for (const block of blocks[chain]) {
      for (const tx of block.transactions) {
        if (tx.type !== 'coinbase') {
          bump(kinds.txs, tx.from);
          bump(kinds.txs, tx.to);
        }
        if (tx.slaves.length > 0) bump(kinds.masters, tx.from);
        for (const i of tx.internal) {
          bump(kinds.internal, i.from);
          bump(kinds.internal, i.to);
        }
        for (const tt of tx.tokenTransfers) bump(kinds.tokens, tt.to);
        if (tx.migration) bump(kinds.migration, tx.migration.role === 'burn' ? tx.from : tx.to);
      }
    }
    const picked = Object.values(kinds).map(top).filter((a): a is string => a !== undefined);
    out[chain] = [...new Set(picked)];
    const moved = new Map<string, number>();
    for (const tx of txs) for (const tt of tx.tokenTransfers) bump(moved, tt.contract);
    const token = top(moved);
    out.tokens![chain] = token === undefined ? [] : [token];
  }
  // A height both chains have, a transaction's hash, an address, and a letter labels start with.
  out.search = ['1', out.transactions!.pos[0]!, out.pow[0]!, 'b'];
  return out;
}

export interface ApiRequest {
  /** Path and query. */
  url: string;
  /** The chain the request is about, by the spec's parameters (path or query `chain`, or a path of one chain); null for none. */
  chain: ChainId | null;
}

/** Concrete requests of an operation: every combination of its path parameters, its required query parameters and its `chain` query parameter. */
export function requestsOf(op: Operation, candidates: Candidates, extraQuery: Record<string, string> = {}): ApiRequest[] {
  const pathParams = op.parameters.filter((p) => p.in === 'path');
  const query = new Set(op.parameters.filter((p) => p.in === 'query').map((p) => p.name));
  const fixed = /^\/api\/v1\/(pow|pos)\//.exec(op.path)?.[1] as ChainId | undefined;
  let variants: { path: string; chain: ChainId | null }[] = [{ path: op.path, chain: fixed ?? null }];
  // The chain first: an address parameter takes that chain's addresses.
  for (const param of [...pathParams].sort((a, b) => (a.name === 'chain' ? -1 : b.name === 'chain' ? 1 : 0))) {
    variants = variants.flatMap((v) => {
      const fill = (value: string, chain = v.chain) => ({ path: v.path.replace(`{${param.name}}`, encodeURIComponent(value)), chain });
      switch (param.name) {
        case 'chain':
          return CHAIN_IDS.map((c) => fill(c, c));
        case 'address':
          if (op.path.includes('/multisig')) {
            if (!candidates.multiSig?.length) throw new Error(`${op.path}: no multi-signature address to fill {address} with`);
            return candidates.multiSig.map((a) => fill(a));
          }
          // The chain's addresses (of the chain parameter, or of a path of one chain); without one (cross-chain history) of either chain.
          return (v.chain ? candidates[v.chain] : [...candidates.pow, ...candidates.pos]).map((a) => fill(a));
        case 'id': {
          // A block id of the request's chain.
          const ids = v.chain ? candidates.blocks?.[v.chain] : undefined;
          if (!ids || ids.length === 0) throw new Error(`${op.path}: no block ids for the path parameter id`);
          return ids.map((id) => fill(id));
        }
        case 'hash':
          if (!v.chain || !candidates.transactions) throw new Error(`${op.path}: no transaction hashes to fill {hash} with`);
          return candidates.transactions[v.chain].map((h) => fill(h));
        case 'validator':
          if (!candidates.validators || candidates.validators.length === 0) throw new Error(`${op.path}: no validators to fill {validator} with`);
          return candidates.validators.map((id) => fill(id));
        case 'token':
          if (!v.chain || !candidates.tokens?.[v.chain]?.length) throw new Error(`${op.path}: no tokens to fill {token} with`);
          return candidates.tokens[v.chain].map((id) => fill(id));
        default:
          if (param.schema.enum) return param.schema.enum.map((value) => fill(value));
          throw new Error(`${op.path}: no values for the path parameter ${param.name}`);
      }
    });
  }
  // A required query parameter (the search's q): each candidate value.
  const required = op.parameters.filter((p) => p.in === 'query' && p.required);
  let fills: Record<string, string>[] = [{}];
  for (const param of required) {
    if (param.name !== 'q' || !candidates.search) throw new Error(`${op.path}: no values for the required query parameter ${param.name}`);
    fills = fills.flatMap((f) => candidates.search!.map((value) => ({ ...f, [param.name]: value })));
  }
  const out: ApiRequest[] = [];
  for (const v of variants) {
    const chains: (ChainId | null)[] = query.has('chain') ? [...CHAIN_IDS] : [v.chain];
    for (const [chain, fill] of chains.flatMap((c) => fills.map((f) => [c, f] as const))) {
      const params = new URLSearchParams(fill);
      if (query.has('chain')) params.set('chain', chain!);
      for (const [name, value] of Object.entries(extraQuery)) if (query.has(name)) params.set(name, value);
      const qs = params.toString();
      out.push({ url: qs ? `${v.path}?${qs}` : v.path, chain });
    }
  }
  return out;
}

/** GET `url` with the test key and `headers`. */
export function get(t: TestApp, url: string, headers: Record<string, string> = {}) {
  return t.app.inject({ url, headers: { ...AUTH, ...headers } });
}
