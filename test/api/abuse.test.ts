/**
 * Every documented route under hostile parameters generated from the served OpenAPI document:
 * bounds and one past them, the largest offsets and pages, windows up to ten years and beyond,
 * malformed numbers, patterns' near misses, wildcard and injection text, repeated and unknown
 * parameters, each alone and all of them at their worst together. Whatever is sent: never a 5xx;
 * a 400 is problem+json naming the parameter it refuses; a 200 matches the documented schema; no
 * answer takes longer than REQUEST_BUDGET_MS; and, on the embedded store, where the store's work runs
 * in this process and shows in its CPU time, no answer of the Addresses API costs much more than the
 * same route's answer to its defaults (WORK_RATIO, WORK_FLOOR_MS): the seed is small, so work that
 * grows with a parameter (an offset walked row by row, a deep page skipped entry by entry, a count
 * over every address) shows as a ratio long before it shows as seconds. The analytics routes answer
 * windows of up to ten years and whale thresholds down to every holder, whose answers grow with the
 * parameter by design: they keep the time budget only.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Ajv } from 'ajv';
import { POW_COINBASE_SENTINEL, type ChainId } from '../../src/chain/chains.ts';
import { AUTH } from '../support/app.ts';
import { loadAnalyticsWorld, type AnalyticsWorld } from '../support/analytics-world.ts';
import { describeSeededApp, type SeededApp } from '../support/seeded-app.ts';
import { PAGED_ROWS } from '../../src/api/context.ts';

const SORTS = ['tx_count', 'balance', 'total_received', 'total_sent', 'total_fees_paid', 'first_seen', 'first_seen_asc', 'last_seen_asc'];

/**
 * The longest any answer here may take. The seed is small, so a request that runs into it does
 * work its parameters decide, not the data: an offset walked row by row, a count over every address.
 */
const REQUEST_BUDGET_MS = 2_000;

/**
 * On the embedded store: an answer's CPU time may be at most WORK_RATIO times that of the same
 * route and path's answer to its defaults, or WORK_FLOOR_MS, whichever is more (the floor absorbs a
 * garbage collection or a first plan landing on one request). On this seed a walk of a few thousand
 * rows stays under the floor: the bounds themselves are checked in bounds.test.ts, with the bound
 * lowered into the seed; this holds the rest of the Addresses API to work of the same order as
 * its defaults.
 */
const WORK_RATIO = 8;
const WORK_FLOOR_MS = 150;

interface Schema {
  type?: string;
  enum?: string[];
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  maxLength?: number;
  default?: unknown;
}
interface Parameter {
  name: string;
  in: 'query' | 'path';
  schema: Schema;
}
interface Operation {
  parameters?: Parameter[];
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
}
interface Document {
  paths: Record<string, { get?: Operation }>;
  components?: { schemas?: Record<string, unknown> };
}

/** Text that has broken parsers, patterns and SQL elsewhere. */
const HOSTILE_TEXT = ['', ' ', '%', '_', '%_%', '\\', "'", "' OR '1'='1", '"; DROP TABLE blocks; --', '\u0000', 'ä€😀', 'x'.repeat(4096), '%25%00'];

/** Values of one parameter: its bounds, one past them, and what is not of its type at all. */
function hostileValues(schema: Schema): string[] {
  if (schema.enum) return [...schema.enum, `${schema.enum[0]}x`, schema.enum[0]!.toUpperCase(), ...HOSTILE_TEXT.slice(0, 6)];
  if (schema.type === 'integer' || schema.type === 'number') {
    const min = schema.minimum ?? schema.exclusiveMinimum ?? 0;
    const max = schema.maximum ?? Number.MAX_SAFE_INTEGER;
    const numbers = [min, min - 1, max, max + 1, 5_000_000, 1_000_000_000, Number.MAX_SAFE_INTEGER].map(String);
    const malformed = ['1.5', '1e3', '1e309', '-0', '0x10', 'NaN', 'Infinity', '9'.repeat(40), ' 1', 'ten'];
    const fractions = schema.type === 'number' ? ['0.000001', '1e-300', '99.9999', String(max - Number.EPSILON * max)] : [];
    return [...numbers, ...malformed, ...fractions];
  }
  if (schema.pattern) {
    // Windows (`7d`, `all`): every unit at the ten-year bound, past it, and near misses.
    return ['1m', '59m', '1h', '24h', '1d', '3650d', '3651d', '520w', '10y', '11y', '87600h', '5256000m', '9'.repeat(30) + 'd', '0d', '-1d', 'd', '7', '7D', 'all', 'ALL', ...HOSTILE_TEXT.slice(0, 6)];
  }
  // Free text (`q`, `tx_type`, `cursor`): wildcards, injections, the longest allowed and longer.
  const longest = schema.maxLength ?? 512;
  return [...HOSTILE_TEXT, 'a'.repeat(longest), 'a'.repeat(longest + 1), 'Q', '0x', 'Q0', 'coinbase', 'transfer', 'eyJ4IjoxfQ', 'AAAA.BBBB'];
}

/** The worst value of a parameter that is still valid: the largest page or offset, the longest window, the widest filter. */
function worstValid(schema: Schema): string | undefined {
  if (schema.enum) return schema.enum.at(-1);
  if (schema.type === 'integer') return String(Math.min(schema.maximum ?? 5_000_000, 5_000_000));
  if (schema.type === 'number') return String(schema.exclusiveMinimum !== undefined ? 0.000001 : (schema.minimum ?? 0));
  if (schema.pattern) return '3650d';
  return '%';
}

/**
 * The addresses of a chain with the most and with the fewest transactions in the seed, and on pow
 * the coinbase sentinel, which sends every coinbase (the demo's `offset=5000000&tx_type=coinbase`).
 */
function busiestAndQuietest(world: AnalyticsWorld, chain: ChainId): string[] {
  const counts = new Map<string, number>();
  for (const block of world.blocks[chain]) {
    for (const tx of block.transactions) {
      for (const address of [tx.from, tx.to]) if (address) counts.set(address, (counts.get(address) ?? 0) + 1);
    }
  }
  const byCount = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const picked = [byCount[0]![0], byCount.at(-1)![0]];
  return chain === 'pow' && !picked.includes(POW_COINBASE_SENTINEL) ? [...picked, POW_COINBASE_SENTINEL] : picked;
}

/** Hostile values of a path parameter. */
function hostilePath(parameter: Parameter): string[] {
  if (parameter.schema.enum) return ['eth', 'POS', 'x'.repeat(300)];
  if (parameter.name === 'address') return ['nope', 'Q' + 'zz'.repeat(39), '0x' + 'AB'.repeat(20) + '00', 'Q'.repeat(200), '%00', "Q' OR 1=1"];
  if (parameter.name === 'id') return ['-1', '01', '1e3', '9'.repeat(40), '0x' + 'g'.repeat(64), 'a'.repeat(65), "1' OR 1=1", '%00'];
  if (parameter.name === 'hash') return ['nope', '0x' + 'g'.repeat(64), 'ab'.repeat(33), '0x' + 'ab'.repeat(31), 'f'.repeat(300), '%00', "' OR 1=1"];
  if (parameter.name === 'validator') return ['-1', '01', '1e3', '9'.repeat(40), '0x', '0x' + 'g'.repeat(5184), '0x' + 'ab'.repeat(2593), 'ab'.repeat(2592), 'x'.repeat(6000), '%00', "1' OR 1=1"];
  if (parameter.name === 'token') return ['nope', 'Q' + 'zz'.repeat(20), '0x' + 'ab'.repeat(32), 'ab'.repeat(33), 'Q'.repeat(200), '%00', "' OR 1=1"];
  return HOSTILE_TEXT.slice(0, 4);
}

/** A chain's newest transaction and the one with the most recipients and transfers: the largest pages. */
function largestAndNewest(world: AnalyticsWorld, chain: ChainId): string[] {
  const txs = world.blocks[chain].flatMap((block) => block.transactions);
  const size = (tx: (typeof txs)[number]) => (tx.recipients?.length ?? 0) + tx.tokenTransfers.length + tx.internal.length;
  const largest = [...txs].sort((a, b) => size(b) - size(a))[0];
  return [...new Set([txs.at(-1)!.hash, largest!.hash])];
}

/** Validators: the first by index, and by public key (in capitals) the one paid the most withdrawals. */
function validatorsOf(world: AnalyticsWorld): string[] {
  const counts = new Map<number, number>();
  for (const block of world.blocks.pos) for (const w of block.withdrawals) counts.set(w.validatorIndex, (counts.get(w.validatorIndex) ?? 0) + 1);
  const busiest = [...counts].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]![0];
  const key = world.world.staking.validators.find((v) => v.validatorIndex === busiest)!.pubkey;
  return ['0', `0x${key.slice(2).toUpperCase()}`];
}

/** A chain's tokens with the most and the fewest transfers: its longest and its shortest lists. */
function mostAndLeastMoved(world: AnalyticsWorld, chain: ChainId): string[] {
  const counts = new Map<string, number>();
  for (const block of world.blocks[chain]) for (const tx of block.transactions) for (const t of tx.tokenTransfers) counts.set(t.contract, (counts.get(t.contract) ?? 0) + 1);
  const byCount = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return [...new Set([byCount[0]![0], byCount.at(-1)![0]])];
}

/**
 * Valid path values: each chain, with its busiest and its quietest address (a path of one chain:
 * that chain's; a multisig route: the multi-signature addresses), its largest and newest
 * transaction; every metric.
 */
function validPaths(template: string, path: Parameter[], world: AnalyticsWorld): Record<string, string>[] {
  const addresses = (chain: ChainId) => busiestAndQuietest(world, chain);
  const fixed = /^\/api\/v1\/(pow|pos)\//.exec(template)?.[1] as ChainId | undefined;
  const multiSig = world.blocks.pow.flatMap((b) => b.transactions.flatMap((tx) => (tx.multiSig?.kind === 'create' ? [tx.multiSig.address] : [])));
  let combos: Record<string, string>[] = [{}];
  for (const p of path) {
    combos = combos.flatMap((values) => {
      if (p.schema.enum) return p.schema.enum.map((value) => ({ ...values, [p.name]: value }));
      if (p.name === 'id') {
        // Blocks: genesis, the tip by height and its hash in capitals; pos-only routes have no chain parameter.
        const chain = (values.chain ?? 'pos') as ChainId;
        const tip = world.blocks[chain].at(-1)!;
        return ['0', String(tip.height), tip.hash.toUpperCase().replace(/^0X/, '0x')].map((id) => ({ ...values, id }));
      }
      if (p.name === 'hash') return largestAndNewest(world, values.chain as ChainId).map((hash) => ({ ...values, hash }));
      if (p.name === 'validator') return validatorsOf(world).map((validator) => ({ ...values, validator }));
      if (p.name === 'token') return mostAndLeastMoved(world, values.chain as ChainId).map((token) => ({ ...values, token }));
      if (p.name !== 'address') throw new Error(`no values for the path parameter ${p.name}`);
      if (template.includes('/multisig')) {
        if (multiSig.length === 0) throw new Error(`${template}: the world has no multi-signature address`);
        return multiSig.map((address) => ({ ...values, address }));
      }
      const chains: ChainId[] = values.chain ? [values.chain as ChainId] : fixed ? [fixed] : ['pow', 'pos'];
      return chains.flatMap(addresses).map((address) => ({ ...values, address }));
    });
  }
  return combos;
}

interface Case {
  url: string;
  /** The parameter made hostile, when one is: a 400 must name it. */
  param?: string;
}

/** The requests for one documented GET route. */
function casesOf(template: string, op: Operation, world: AnalyticsWorld): Case[] {
  const parameters = op.parameters ?? [];
  const path = parameters.filter((p) => p.in === 'path');
  const query = parameters.filter((p) => p.in === 'query');
  // Every timeline metric; each chain with an address of its own.
  const paths = validPaths(template, path, world);
  const fill = (values: Record<string, string>) => template.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(values[name]!));
  const cases: Case[] = [];
  const withQuery = (url: string, pairs: [string, string][]) => (pairs.length ? `${url}?${pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}` : url);
  for (const values of paths) {
    const url = fill(values);
    cases.push({ url });
    for (const p of query) for (const value of hostileValues(p.schema)) cases.push({ url: withQuery(url, [[p.name, value]]), param: p.name });
    // Every parameter at its worst valid value at once: deepest page, widest filter, longest window.
    const worst = query.flatMap((p): [string, string][] => {
      const value = worstValid(p.schema);
      return value === undefined ? [] : [[p.name, value]];
    });
    cases.push({ url: withQuery(url, worst) });
    // The largest offsets with each type filter, past the bound and at it; deep pages of every sort; q with a balance threshold.
    const txType = query.find((p) => p.name === 'tx_type');
    if (txType) {
      for (const type of ['coinbase', 'transfer', 'contract_call']) {
        cases.push({ url: withQuery(url, [['offset', '5000000'], ['tx_type', type]]) });
        cases.push({ url: withQuery(url, [['offset', String(PAGED_ROWS - 100)], ['limit', '100'], ['tx_type', type]]) });
        cases.push({ url: withQuery(url, [['offset', '5000000'], ['tx_type', type], ['direction', 'in'], ['time_from', '1']]) });
      }
    }
    if (query.some((p) => p.name === 'sort') && query.some((p) => p.name === 'q') && query.some((p) => p.name === 'page')) {
      for (const sort of SORTS) {
        cases.push({ url: withQuery(url, [['sort', sort], ['page_size', '100'], ['page', String(PAGED_ROWS / 100)]]) });
        cases.push({ url: withQuery(url, [['sort', sort], ['page_size', '100'], ['page', String(PAGED_ROWS / 100 + 1)]]), param: 'page' });
        cases.push({ url: withQuery(url, [['sort', sort], ['exclude_sentinel', 'true'], ['page_size', '100'], ['page', String(PAGED_ROWS / 100)]]) });
      }
      for (const q of ['q', 'q0', '0000', 'q0105', 'q010500', '0000000000', 'ab']) {
        for (const pct of ['0.000001', '0.01']) cases.push({ url: withQuery(url, [['q', q], ['min_balance_pct', pct], ['page_size', '100'], ['page', String(PAGED_ROWS / 100)]]) });
      }
    }
    // A cursor list with orders and a prefix filter (the tokens): each order with the widest prefix and the shortest.
    const sortEnum = query.find((p) => p.name === 'sort' && p.schema.enum)?.schema.enum;
    if (sortEnum && query.some((p) => p.name === 'q') && query.some((p) => p.name === 'cursor')) {
      for (const sort of sortEnum) for (const q of ['', 'a', 'Q', '%', 'ze', 'x'.repeat(64)]) cases.push({ url: withQuery(url, [['sort', sort], ['q', q], ['limit', '100']]) });
    }
    if (query.some((p) => p.name === 'page') && query.some((p) => p.name === 'page_size')) {
      cases.push({ url: withQuery(url, [['page_size', '100'], ['page', String(PAGED_ROWS / 100)]]) });
    }
    // Repeated and unknown parameters.
    for (const p of query) cases.push({ url: withQuery(url, [[p.name, String(worstValid(p.schema) ?? '1')], [p.name, String(worstValid(p.schema) ?? '1')]]), param: p.name });
    cases.push({ url: withQuery(url, [['zzz', '1'], ['__proto__', 'x'], ['constructor', 'y']]) });
  }
  for (const p of path) for (const value of hostilePath(p)) cases.push({ url: fill({ ...paths[0], [p.name]: value }), param: p.name });
  return cases;
}

describeSeededApp('hostile parameters on every route', loadAnalyticsWorld, (s: SeededApp<AnalyticsWorld>, kind) => {
  it('never a 5xx; a 400 names its parameter; a 200 matches its schema; every answer within the budget', async (t) => {
    const doc = (await s.t().app.inject({ url: '/api/v1/openapi.json' })).json() as Document;
    const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: false });
    ajv.addSchema({ ...doc, $id: 'openapi' });
    const failures: string[] = [];
    let requests = 0;
    let slowest = { ms: 0, url: '' };
    // CPU time of each path's answer to its defaults (the first case of the path), and the costliest ratio to it.
    const baseline = new Map<string, number>();
    let costliest = { ratio: 0, cpuMs: 0, url: '' };
    const routes = Object.entries(doc.paths).filter(([path, item]) => path.startsWith('/api/v1/') && item.get && item.get.responses['200']?.content?.['application/json']);
    assert.ok(routes.length >= 60, `${routes.length} JSON routes documented`);
    for (const [template, item] of routes) {
      const pointer = `openapi#/paths/${template.replace(/~/g, '~0').replace(/\//g, '~1')}/get/responses/200/content/application~1json/schema`;
      const validate = ajv.getSchema(pointer);
      assert.ok(validate, `a schema for ${template}`);
      for (const { url, param } of casesOf(template, item.get!, s.seeded())) {
        requests++;
        const started = performance.now();
        const cpu = process.cpuUsage();
        const res = await s.t().app.inject({ url, headers: AUTH });
        const used = process.cpuUsage(cpu);
        const ms = performance.now() - started;
        const cpuMs = (used.user + used.system) / 1000;
        if (ms > slowest.ms) slowest = { ms, url };
        const where = `${url.slice(0, 160)} → ${res.statusCode}`;
        if (ms > REQUEST_BUDGET_MS) failures.push(`${where}: ${Math.round(ms)} ms`);
        const path = url.split('?')[0]!;
        const base = baseline.get(path);
        if (base === undefined) baseline.set(path, cpuMs);
        else if (kind === 'pglite' && path.includes('/addresses/')) {
          const ratio = cpuMs / base;
          if (cpuMs > WORK_FLOOR_MS && ratio > costliest.ratio) costliest = { ratio, cpuMs, url };
          if (cpuMs > Math.max(WORK_FLOOR_MS, WORK_RATIO * base)) failures.push(`${where}: ${Math.round(cpuMs)} ms CPU, ${ratio.toFixed(1)} × the defaults' ${Math.round(base)} ms`);
        }
        if (res.statusCode >= 500) failures.push(`${where}: ${res.body.slice(0, 200)}`);
        else if (res.statusCode >= 400) {
          if (!String(res.headers['content-type']).startsWith('application/problem+json')) failures.push(`${where}: ${res.headers['content-type']}`);
          else if (res.statusCode === 400) {
            const body = res.json() as { errors?: { param: string }[] };
            const named = (body.errors ?? []).map((e) => e.param);
            if (named.length === 0) failures.push(`${where}: names no parameter`);
            else if (param && !named.includes(param)) failures.push(`${where}: names ${named.join(', ')}, not ${param}`);
          }
        } else if (res.statusCode === 200 && !validate!(res.json())) {
          failures.push(`${where}: ${ajv.errorsText(validate!.errors).slice(0, 200)}`);
        }
      }
    }
    t.diagnostic(`slowest ${Math.round(slowest.ms)} ms: ${slowest.url}; costliest above the floor ${costliest.ratio.toFixed(1)} × (${Math.round(costliest.cpuMs)} ms CPU): ${costliest.url}`);
    assert.deepEqual(failures.slice(0, 40), [], `${failures.length} of ${requests} requests failed`);
    assert.ok(requests > 2_000, `${requests} requests`);
    assert.ok(slowest.ms < REQUEST_BUDGET_MS, `slowest ${Math.round(slowest.ms)} ms: ${slowest.url}`);
  });
  // On every store: PGlite's queries run in this process, where their CPU time bounds each request's work.
}, { everyStore: true });
