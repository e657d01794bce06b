/**
 * Prometheus metrics at /metrics (src/api/metrics/, docs/metrics-prometheus.md): scraped without a
 * key after known requests on a seeded app, parsed from the text format, and checked against what
 * the test did and what the seed holds: requests per route pattern and status, their latency
 * counts, 429s, the answer cache, store statements by label, each chain's tip, node lag, blocks,
 * dead letters and stall; off when turned off; on a port of its own when one is set.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import sql from 'sql-template-tag';
import { loadConfig } from '../../src/config/env.ts';
import { startServer } from '../../src/api/server.ts';
import { ingest } from '../../src/ingest/pipeline.ts';
import { recordNodeTip } from '../../src/ingest/node-tip.ts';
import { recordStall } from '../../src/ingest/stalls.ts';
import { createLogger } from '../../src/log.ts';
import type { Store } from '../../src/store/store.ts';
import { AUTH, buildTestApp, TEST_KEY } from '../support/app.ts';
import { addr, ChainBuilder, coins } from '../support/chain-builder.ts';
import { describeSeededApp } from '../support/seeded-app.ts';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The Prometheus text format (0.0.4), parsed: samples, and each family's TYPE. */
function parseMetrics(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) {
      types.set(type[1]!, type[2]!);
      continue;
    }
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(match, `a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const label of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[label[1]!] = label[2]!.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
    }
    const raw = match[3]!;
    samples.push({ name: match[1]!, labels, value: raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : Number(raw) });
  }
  return { samples, types };
}

class Scrape {
  constructor(readonly samples: Sample[]) {}
  /** The sample of `name` whose labels include `labels`; 0 when there is none (a counter not yet incremented). */
  value(name: string, labels: Record<string, string> = {}): number {
    const found = this.all(name, labels);
    assert.ok(found.length <= 1, `one sample of ${name} ${JSON.stringify(labels)}, found ${found.length}`);
    return found[0]?.value ?? 0;
  }
  all(name: string, labels: Record<string, string> = {}): Sample[] {
    return this.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  }
  has(name: string, labels: Record<string, string> = {}): boolean {
    return this.all(name, labels).length > 0;
  }
}

async function scrape(t: { app: { inject: (options: { url: string }) => Promise<{ statusCode: number; body: string; headers: Record<string, unknown> }> } }): Promise<Scrape> {
  const res = await t.app.inject({ url: '/metrics' });
  assert.equal(res.statusCode, 200, res.body);
  assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  return new Scrape(parseMetrics(res.body).samples);
}

const SUMMARY = '/api/v1/:chain/addresses/stats/summary';
const BLOCK_SIZE = '/api/v1/analytics/block-size';
const T0 = Date.UTC(2026, 2, 1, 12) / 1000;
const NODE_AHEAD = 7;

interface Seeded {
  pos: ChainBuilder;
  pow: ChainBuilder;
  stallHeight: number;
}

/** Two chains through the pipeline, a node tip ahead of pos, open and resolved dead letters and a stall on pow. */
async function seed(store: Store): Promise<Seeded> {
  const pos = new ChainBuilder('pos', T0, 12);
  const [alice, bob] = [addr('pos', 'metrics alice'), addr('pos', 'metrics bob')];
  pos.block((b) => b.genesis([{ address: alice, amount: coins('pos', 1000) }]));
  for (let i = 0; i < 12; i++) pos.block((b) => void (i % 2 === 0 && b.transfer(alice, bob, coins('pos', 1))));
  const pow = new ChainBuilder('pow', T0, 60);
  const miner = addr('pow', 'metrics miner');
  pow.block(() => {});
  for (let i = 0; i < 9; i++) pow.block((b) => b.coinbase(miner, 6_000_000_000n));
  await ingest(store, pos.source());
  await ingest(store, pow.source());
  await recordNodeTip(store, 'pos', pos.tip!.height + NODE_AHEAD);
  const letters = [
    { height: 3, item: 'tx-a', resolved: null },
    { height: 4, item: 'tx-b', resolved: null },
    { height: 5, item: 'tx-c', resolved: T0 + 100 },
  ];
  for (const letter of letters) {
    await store.query(
      'test.dead_letter',
      sql`INSERT INTO dead_letters (chain, source, height, item, error, created_ts, resolved_ts)
          VALUES ('pow', 'test', ${letter.height}, ${letter.item}, 'test error', ${T0}, ${letter.resolved})`,
    );
  }
  const stallHeight = pow.tip!.height + 1;
  await recordStall(store, { chain: 'pow', source: 'test', height: stallHeight, reason: 'a test stall', sinceTs: T0 + 600 });
  return { pos, pow, stallHeight };
}

describeSeededApp('Prometheus metrics', seed, (s, kind) => {
  it('counts each request by route pattern and status, with its latency, and no raw URL', async () => {
    const t = s.t();
    const before = await scrape(t);
    for (let i = 0; i < 3; i++) assert.equal((await t.app.inject({ url: '/api/v1/pos/addresses/stats/summary', headers: AUTH })).statusCode, 200);
    assert.equal((await t.app.inject({ url: '/api/v1/pow/addresses/stats/summary', headers: AUTH })).statusCode, 200);
    for (let i = 0; i < 2; i++) assert.equal((await t.app.inject({ url: '/api/v1/pos/addresses/stats/summary' })).statusCode, 401);
    assert.equal((await t.app.inject({ url: '/api/v1/nowhere/at/all', headers: AUTH })).statusCode, 404);
    assert.equal((await t.app.inject({ url: '/healthz' })).statusCode, 200);
    const after = await scrape(t);

    const delta = (name: string, labels: Record<string, string>) => after.value(name, labels) - before.value(name, labels);
    assert.equal(delta('quarry_http_requests_total', { method: 'GET', route: SUMMARY, status: '200' }), 4, 'both chains share the route pattern');
    assert.equal(delta('quarry_http_requests_total', { method: 'GET', route: SUMMARY, status: '401' }), 2);
    assert.equal(delta('quarry_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }), 1);
    assert.equal(delta('quarry_http_requests_total', { method: 'GET', route: '/healthz', status: '200' }), 1);
    assert.equal(delta('quarry_http_request_duration_seconds_count', { method: 'GET', route: SUMMARY, status_class: '2xx' }), 4);
    assert.equal(delta('quarry_http_request_duration_seconds_bucket', { method: 'GET', route: SUMMARY, status_class: '2xx', le: '+Inf' }), 4);
    assert.ok(delta('quarry_http_request_duration_seconds_sum', { method: 'GET', route: SUMMARY, status_class: '2xx' }) > 0);
    // The buckets around the 10 ms target, in seconds.
    const les = after.all('quarry_http_request_duration_seconds_bucket', { route: SUMMARY, status_class: '2xx' }).map((b) => b.labels.le);
    assert.deepEqual(les, ['0.001', '0.0025', '0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '+Inf']);
    // Scrapes are not counted, and no label holds a requested path.
    assert.equal(after.has('quarry_http_requests_total', { route: '/metrics' }), false);
    for (const sample of after.samples) {
      for (const value of Object.values(sample.labels)) assert.ok(!/\/api\/v1\/(pos|pow|nowhere)/.test(value), `${sample.name} has no raw URL label: ${value}`);
    }
  });

  it('names every metric quarry_, and times the store statements by label', async () => {
    const t = s.t();
    const stat = () => s.store().stats().get('addresses.stats_summary')?.count ?? 0;
    const before = await scrape(t);
    const statementsBefore = stat();
    // The operator's no-cache computes the answer anew each time (it is kept per snapshot otherwise).
    const fresh = { ...AUTH, 'cache-control': 'no-cache' };
    for (let i = 0; i < 2; i++) assert.equal((await t.app.inject({ url: '/api/v1/pos/addresses/stats/summary', headers: fresh })).statusCode, 200);
    const ran = stat() - statementsBefore;
    assert.ok(ran >= 2, 'the summary ran its statement for each request');
    const res = await t.app.inject({ url: '/metrics' });
    const { samples, types } = parseMetrics(res.body);
    const after = new Scrape(samples);
    for (const name of types.keys()) assert.match(name, /^quarry_/);
    assert.ok(types.get('quarry_store_query_duration_seconds') === 'histogram');
    assert.ok(types.get('quarry_process_cpu_user_seconds_total') === 'counter', 'the process figures are prefixed too');
    const label = { statement: 'addresses.stats_summary' };
    assert.equal(after.value('quarry_store_query_duration_seconds_count', label) - before.value('quarry_store_query_duration_seconds_count', label), ran);
    assert.ok(after.value('quarry_store_query_duration_seconds_sum', label) > before.value('quarry_store_query_duration_seconds_sum', label));
  });

  it('counts answer cache hits and misses', async () => {
    const t = s.t();
    const before = await scrape(t);
    // A URL no other test asks for: computed once, then served from the cache.
    const url = `${BLOCK_SIZE}?chain=pos&window=3649d`;
    for (let i = 0; i < 3; i++) assert.equal((await t.app.inject({ url, headers: AUTH })).statusCode, 200);
    const after = await scrape(t);
    const delta = (result: string) => after.value('quarry_answer_cache_requests_total', { result }) - before.value('quarry_answer_cache_requests_total', { result });
    assert.equal(delta('miss') + delta('hit'), 3);
    // On the run's shared PostgreSQL server another test file's write may move the snapshot between
    // two requests (the cache's key is the server's snapshot), making a hit a miss; PGlite is this file's alone.
    if (kind === 'pglite') assert.equal(delta('miss'), 1);
    else assert.ok(delta('miss') >= 1, `${delta('miss')} misses`);
    assert.equal(after.value('quarry_http_requests_total', { route: BLOCK_SIZE, status: '200' }) - before.value('quarry_http_requests_total', { route: BLOCK_SIZE, status: '200' }), 3);
  });

  it("shows each chain's tip, node lag, blocks, dead letters and stall as the seed made them", async () => {
    const { pos, pow, stallHeight } = s.seeded();
    const m = await scrape(s.t());
    assert.equal(m.value('quarry_store_up'), 1);
    for (const [chain, builder] of [['pos', pos], ['pow', pow]] as const) {
      const tip = Math.max(...builder.blocks.map((b) => b.height));
      const tipTs = builder.blocks.find((b) => b.height === tip)!.timestamp;
      assert.equal(m.value('quarry_chain_tip_height', { chain }), tip, `${chain} tip`);
      assert.equal(m.value('quarry_chain_tip_timestamp_seconds', { chain }), tipTs, `${chain} tip time`);
      assert.equal(m.value('quarry_chain_blocks_indexed', { chain }), builder.blocks.length, `${chain} blocks`);
    }
    assert.equal(m.value('quarry_chain_node_tip_height', { chain: 'pos' }), pos.tip!.height + NODE_AHEAD);
    assert.equal(m.value('quarry_chain_node_lag_blocks', { chain: 'pos' }), NODE_AHEAD);
    assert.equal(m.has('quarry_chain_node_lag_blocks', { chain: 'pow' }), false, 'no node tip recorded for pow: no lag shown');
    assert.equal(m.value('quarry_chain_dead_letters_open', { chain: 'pow' }), 2, 'the resolved one is not open');
    assert.equal(m.value('quarry_chain_dead_letters_open', { chain: 'pos' }), 0);
    assert.equal(m.value('quarry_chain_stalled', { chain: 'pow' }), 1);
    assert.equal(m.value('quarry_chain_stall_height', { chain: 'pow' }), stallHeight);
    assert.equal(m.value('quarry_chain_stalled_since_timestamp_seconds', { chain: 'pow' }), T0 + 600);
    assert.equal(m.value('quarry_chain_stalled', { chain: 'pos' }), 0);
    // Neither test store is a standby.
    assert.equal(m.value('quarry_store_standby'), 0, kind);
    assert.equal(m.value('quarry_store_replica_lag_seconds'), 0);
  });

  it('reads the chains from the store at most once per period, however many scrapes', async () => {
    const t = s.t();
    const reads = () => s.store().stats().get('metrics.chains')?.count ?? 0;
    await scrape(t);
    const before = reads();
    await Promise.all(Array.from({ length: 20 }, () => scrape(t)));
    assert.ok(reads() - before <= 1, `read ${reads() - before} times for 20 scrapes`);
  });

  it('counts a 429 once the rate limit is exceeded', async () => {
    const t = await buildTestApp(s.store(), { QUARRY_RATE_LIMIT_MAX: '3', QUARRY_RATE_LIMIT_WINDOW: '1h' });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await t.app.inject({ url: '/api/v1/pos/addresses/stats/summary', headers: AUTH })).statusCode);
      const refused = statuses.filter((status) => status === 429).length;
      assert.ok(refused >= 1, `refused some of ${statuses.join(', ')}`);
      const m = await scrape(t);
      assert.equal(m.value('quarry_http_rate_limited_total', { route: SUMMARY }), refused);
      assert.equal(m.value('quarry_http_requests_total', { route: SUMMARY, status: '429' }), refused);
      assert.equal(m.value('quarry_http_requests_total', { route: SUMMARY, status: '200' }), 5 - refused);
    } finally {
      await t.close();
    }
  });

  it('still answers when the store does not, with quarry_store_up 0 and no chain figures', async () => {
    const store = s.store();
    const failing: Store = {
      ...store,
      query: async (label, statement, options) => {
        if (label.startsWith('metrics.')) throw new Error('the store is unreachable');
        return store.query(label, statement, options);
      },
    };
    const t = await buildTestApp(failing);
    try {
      const m = await scrape(t);
      assert.equal(m.value('quarry_store_up'), 0);
      assert.equal(m.has('quarry_chain_tip_height'), false);
      assert.ok(m.has('quarry_process_cpu_seconds_total'));
    } finally {
      await t.close();
    }
  });

  it('answers 404 at /metrics when turned off', async () => {
    const t = await buildTestApp(s.store(), { QUARRY_METRICS: 'off' });
    try {
      assert.equal(t.app.metrics, undefined);
      const res = await t.app.inject({ url: '/metrics' });
      assert.equal(res.statusCode, 404);
      assert.equal((await t.app.inject({ url: '/api/v1/pos/addresses/stats/summary', headers: AUTH })).statusCode, 200);
    } finally {
      await t.close();
    }
  });

  it('serves /metrics on its own port when one is set, and not on the API port', async () => {
    const config = loadConfig({ PORT: '0', QUARRY_METRICS_PORT: '0', QUARRY_API_KEYS: TEST_KEY, QUARRY_LOG_LEVEL: 'silent' });
    const server = await startServer(config, s.store(), createLogger('silent'));
    try {
      assert.ok(server.metricsUrl, 'a metrics URL');
      assert.notEqual(new URL(server.metricsUrl).port, new URL(server.url).port);
      assert.equal((await fetch(`${server.url}/metrics`)).status, 404);
      const api = await fetch(`${server.url}/api/v1/pos/addresses/stats/summary`, { headers: AUTH });
      assert.equal(api.status, 200);
      await api.arrayBuffer();
      const res = await fetch(server.metricsUrl);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
      const m = new Scrape(parseMetrics(await res.text()).samples);
      assert.equal(m.value('quarry_http_requests_total', { route: SUMMARY, status: '200' }), 1);
      assert.equal(m.value('quarry_http_requests_total', { route: 'unmatched', status: '404' }), 1, 'the API port has no /metrics');
      assert.equal(m.value('quarry_chain_tip_height', { chain: 'pos' }), s.seeded().pos.tip!.height);
      assert.equal((await fetch(server.metricsUrl.replace(/\/metrics$/, '/other'))).status, 404);
    } finally {
      await server.close();
    }
  });
  // On every store: the store's figures (its statements, its answer cache keyed by its snapshot, its role).
}, { everyStore: true });
