/**
 * The API part: starts the API process on a tier's work copy, finds its routes in the OpenAPI
 * document and runs each case of api-cases.ts at one connection (service time) and under
 * `connections` (load, requests/s); hot cases also against the static route of the same size
 * (bench/README.md, "api"). Any answer other than 2xx fails the case.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { cachedCompiledTree } from '../../bin/compiled-sources.js';
import type { ChainId } from '../../src/chain/chains.ts';
import type { NotableAccounts } from '../../src/sources/synthetic/index.ts';
import { runLoad, runSequential, STATIC_PREFIX, type LoadResult } from '../load.ts';
import { CLI_NODE_FLAGS, freePort, loadAverage, log, memoryOf, ROOT, round, startNode, waitFor, type Child } from '../proc.ts';
import type { TierStore } from '../stores.ts';
import { buildCases, casePath, DEFAULT_DEEPEST_OFFSET, ROUTES, type ApiCase, type CaseInputs, type HostileBounds, type RouteName, type Target, type TipBlock } from './api-cases.ts';
import type { BuildRecord } from './generate.ts';

export interface CaseResult {
  id: string;
  route: string;
  chain: ChainId;
  subject: string | null;
  path: string;
  target: Target | null;
  note: string | null;
  status: 'measured' | 'route missing' | 'skipped' | 'failed';
  /** Why it was skipped or failed. */
  problem?: string;
  /** A hostile case the server refused (a 4xx naming the parameter): a bound, not a failure. */
  refused?: { status: number; detail: string };
  bytes?: number;
  single?: LoadResult;
  /**
   * One connection again with `Cache-Control: no-cache`: every answer computed anew, as the first
   * request after each block is (src/api/plugins/snapshot-cache.ts); `single` gets the answers the
   * API keeps between blocks where the route allows it.
   */
  computed?: LoadResult;
  /**
   * One connection as a browser asks (`Accept-Encoding: gzip, deflate, br`): answers over 1 KiB
   * come compressed (docs/api-conventions.md). Explorer front ends are browsers.
   */
  compressed?: LoadResult;
  loaded?: LoadResult;
  /**
   * The latency target judged on p99 of one connection, plain and compressed: the time a request
   * takes on a server that is not queueing (bench/README.md, "Reading the figures"). `passLoaded`
   * is the same limit applied to p99 under the concurrent load, shown beside it.
   */
  pass?: boolean;
  passLoaded?: boolean;
  cursorDepth?: number;
  ceiling?: { loaded: LoadResult; ratio: number };
}

export interface ApiFigures {
  store: string;
  connections: number;
  seconds: number;
  routes: { path: string; cases: number }[];
  /** Served routes without a parameter table. */
  notBenchmarked: string[];
  cases: CaseResult[];
  /** Cursor pages: p50 (one connection) of each depth against the second page. */
  cursor: { chain: ChainId; route: string; depth: number; p50: number; firstP50: number; ratio: number; pass: boolean }[];
  /**
   * `peakRssMb` is the largest peak (VmHWM) of one API process; with workers, `processes` has each
   * (the primary, which only forks, and every worker) and `totalPeakRssMb` the sum of their peaks.
   */
  server: {
    startSeconds: number;
    rssAfterStartMb: number | null;
    peakRssMb: number | null;
    rssEndMb: number | null;
    logLevel: string;
    workers?: number;
    nodeFlags?: string[];
    processes?: { pid: number; role: 'primary' | 'worker'; rssAfterStartMb: number | null; peakRssMb: number | null; rssEndMb: number | null }[];
    totalPeakRssMb?: number | null;
  };
  /** The deepest pages the hostile cases asked for (from the served OpenAPI). */
  bounds?: HostileBounds;
  /** The VACUUM run before the cases (vacuumLikeAutovacuum), in seconds; null on the embedded store. */
  vacuumSeconds: number | null;
  loadAverage: { before: number[]; after: number[] };
  wallSeconds: number;
}

export interface ApiOptions {
  connections: number;
  seconds: number;
  logLevel: string;
  /** API processes (node:cluster workers on one port, as `quarry serve --workers N`); 1 runs the app in the process itself. */
  workers: number;
  /** Only cases whose id matches. */
  filter?: RegExp;
}

const SERVER = path.join('bench', 'api-server.ts');

/** The API server's script, compiled as bin/quarry.js runs `quarry serve` (bin/compiled-sources.js); the TypeScript if the cache cannot be written. */
async function serverScript(): Promise<{ script: string; flags: string[] }> {
  const tree = await cachedCompiledTree(['src', 'bench'], ROOT);
  if (tree === undefined) return { script: path.join(ROOT, SERVER), flags: [] };
  return { script: path.join(tree, SERVER.replace(/\.ts$/, '.js')), flags: ['--enable-source-maps'] };
}

export async function measureApi(target: TierStore, build: BuildRecord, notable: Record<ChainId, NotableAccounts>, options: ApiOptions): Promise<ApiFigures> {
  const name = `${target.tier.name}/${target.kind}`;
  const vacuumSeconds = await vacuumLikeAutovacuum(target);
  if (vacuumSeconds !== null) log(`${name}: VACUUM of the work copy took ${round(vacuumSeconds)} s`);
  const started = performance.now();
  const before = loadAverage();
  const key = `bench_${randomBytes(18).toString('base64url')}`;
  const port = await freePort();
  const workers = Math.max(1, options.workers);
  // The node flags `quarry serve` runs with (bin/quarry.js), not the benchmark's own.
  const server = await serverScript();
  const child = startNode(
    server.script,
    [],
    {
      ...target.env('work'),
      PORT: String(port),
      HOST: '127.0.0.1',
      QUARRY_API_KEYS: key,
      // The limit is a real plugin on every request; it only must not answer 429 to the benchmark.
      QUARRY_RATE_LIMIT_MAX: '1000000000',
      QUARRY_LOG_LEVEL: options.logLevel,
      BENCH_API_WORKERS: String(workers),
    },
    [...CLI_NODE_FLAGS, ...server.flags],
  );
  const base = `http://127.0.0.1:${port}`;
  const headers = { authorization: `Bearer ${key}` };
  let workerPids: number[] = [];
  try {
    await waitFor(
      'the API process',
      async () => {
        if (workers > 1) {
          // The primary names its workers once every one listens.
          const line = /^\{"workers":.*$/m.exec(child.output())?.[0];
          if (!line) return false;
          workerPids = (JSON.parse(line) as { workers: number[] }).workers;
        }
        return (await fetch(`${base}/readyz`)).ok;
      },
      { timeoutMs: 120_000, alive: () => child.process.exitCode === null },
    );
  } catch (error) {
    await child.stop();
    throw new Error(`${name}: ${(error as Error).message}\n${child.output().slice(-4000)}`);
  }
  const startSeconds = (performance.now() - started) / 1000;
  const pids = [child.pid, ...workerPids];
  const afterStart = new Map(pids.map((pid) => [pid, memoryOf(pid)?.rssMb ?? null]));
  log(`${name}: API process ${child.pid}${workers > 1 ? ` (workers ${workerPids.join(', ')})` : ''} ready in ${round(startSeconds)} s`);

  try {
    const openapi = (await (await fetch(`${base}/api/v1/openapi.json`)).json()) as OpenApi;
    const served = Object.entries(openapi.paths).filter(([p, ops]) => p.startsWith('/api/v1/') && 'get' in ops).map(([p]) => p);
    const bounds = hostileBounds(openapi);
    const inputs: CaseInputs = {
      bounds,
      tips: { pow: await tipBlock(base, headers, 'pow'), pos: await tipBlock(base, headers, 'pos') },
      validator: await richestValidator(base, headers),
      notable,
      txCounts: {
        pow: { busiest: build.facts.notable.pow.busiestHotWallet.txCount, ordinary: build.facts.notable.pow.ordinary.txCount },
        pos: { busiest: build.facts.notable.pos.busiestHotWallet.txCount, ordinary: build.facts.notable.pos.ordinary.txCount },
      },
      end: Math.floor(target.tier.world.end.getTime() / 1000),
      powKeys: build.facts.powKeys,
    };
    const all = buildCases(inputs).filter((c) => !options.filter || options.filter.test(c.id));
    const routeNames = new Map(Object.entries(ROUTES).map(([k, v]) => [v as string, k as RouteName]));
    const notBenchmarked = served.filter((p) => !routeNames.has(p));
    const routes = served.filter((p) => routeNames.has(p)).map((p) => ({ path: p, cases: all.filter((c) => ROUTES[c.route] === p).length }));
    for (const p of notBenchmarked) log(`${name}: ${p} is served but has no parameter table: not benchmarked`);
    const missing = new Set(Object.values(ROUTES).filter((p) => !served.includes(p)));
    if (missing.size > 0) log(`${name}: ${missing.size} of ${Object.keys(ROUTES).length} benchmarked routes not served yet: ${[...missing].map((p) => p.replace('/api/v1/{chain}/addresses', '…')).join(', ')}`);

    const results: CaseResult[] = [];
    const measured = all.filter((c) => !missing.has(ROUTES[c.route]));
    let done = 0;
    for (const c of all) {
      const result: CaseResult = {
        id: c.id,
        route: ROUTES[c.route],
        chain: c.chain,
        subject: c.subject ?? null,
        path: casePath(c),
        target: c.target ?? null,
        note: c.note ?? null,
        status: 'measured',
        ...(c.cursorDepth !== undefined ? { cursorDepth: c.cursorDepth } : {}),
      };
      results.push(result);
      if (missing.has(ROUTES[c.route])) {
        result.status = 'route missing';
        continue;
      }
      done++;
      await measureCase(base, headers, c, result, options);
      const l = result.loaded;
      log(
        `${name} [${done}/${measured.length}] ${c.id}: ` +
          (l ? `p50 ${result.single!.p50} ms, p99 ${l.p99} ms @${l.connections}, ${l.rps}/s${result.ceiling ? `, ${Math.round(result.ceiling.ratio * 100)}% of static` : ''}${result.pass === false ? ' FAIL' : ''}` : `${result.status}: ${result.problem}`),
      );
    }
    const processes = pids.map((pid) => {
      const memory = memoryOf(pid);
      return { pid, role: pid === child.pid && workers > 1 ? ('primary' as const) : ('worker' as const), rssAfterStartMb: afterStart.get(pid) ?? null, peakRssMb: memory?.peakRssMb ?? null, rssEndMb: memory?.rssMb ?? null };
    });
    const serving = processes.filter((p) => p.role === 'worker');
    const peaks = serving.map((p) => p.peakRssMb).filter((v): v is number => v !== null);
    const total = processes.map((p) => p.peakRssMb).filter((v): v is number => v !== null);
    const ends = serving.map((p) => p.rssEndMb).filter((v): v is number => v !== null);
    const starts = serving.map((p) => p.rssAfterStartMb).filter((v): v is number => v !== null);
    log(`${name}: peak RSS per API process ${processes.map((p) => `${p.role} ${p.pid} ${p.peakRssMb} MB`).join(', ')}`);
    return {
      store: target.kind,
      connections: options.connections,
      seconds: options.seconds,
      routes,
      notBenchmarked,
      cases: results,
      cursor: cursorConstancy(results),
      vacuumSeconds: vacuumSeconds === null ? null : round(vacuumSeconds, 1),
      server: {
        startSeconds: round(startSeconds, 2),
        rssAfterStartMb: starts.length > 0 ? Math.max(...starts) : null,
        peakRssMb: peaks.length > 0 ? Math.max(...peaks) : null,
        rssEndMb: ends.length > 0 ? Math.max(...ends) : null,
        logLevel: options.logLevel,
        workers,
        nodeFlags: CLI_NODE_FLAGS,
        processes,
        totalPeakRssMb: total.length > 0 ? round(total.reduce((a, b) => a + b, 0)) : null,
      },
      bounds,
      loadAverage: { before, after: loadAverage() },
      wallSeconds: round((performance.now() - started) / 1000),
    };
  } finally {
    await stopServer(child);
  }
}

interface OpenApi {
  paths: Record<string, Record<string, { parameters?: { name: string; in: string; schema?: { maximum?: number; default?: number } }[] }>>;
}

/**
 * The deepest pages the served API accepts: the `maximum` of top/active's `page` and of the feed's
 * `offset`; where none is documented, an offset of 10,000 (page 401 of 25).
 */
export function hostileBounds(openapi: OpenApi): HostileBounds {
  const param = (route: string, name: string) => openapi.paths[route]?.get?.parameters?.find((p) => p.in === 'query' && p.name === name)?.schema;
  const pageSize = param(ROUTES.topActive, 'page_size')?.default ?? 25;
  // A maximum of a million or more is no bound a request can reach the end of (Number.MAX_SAFE_INTEGER where none is set).
  const bound = (value: number | undefined) => (value !== undefined && value < 1_000_000 ? value : undefined);
  const page = bound(param(ROUTES.topActive, 'page')?.maximum);
  const offset = bound(param(ROUTES.transactions, 'offset')?.maximum);
  return {
    topActivePage: page ?? Math.floor(DEFAULT_DEEPEST_OFFSET / pageSize) + 1,
    feedOffset: offset ?? DEFAULT_DEEPEST_OFFSET,
    documented: page !== undefined && offset !== undefined,
  };
}

/**
 * A live chain's tables are vacuumed by autovacuum within minutes of their blocks (migration 0035
 * sets thresholds of about 1 % of a table), which marks their pages all-visible for index-only
 * scans. The ingest part has just written a day of blocks and autovacuum may not have come round
 * yet, so the benchmark runs that vacuum itself, before the API is measured, instead of waiting for
 * the daemon (and instead of measuring the daemon's work in the middle of a case). Returns its
 * duration, or null on the embedded store (no autovacuum there; its reads are not benchmarked).
 */
async function vacuumLikeAutovacuum(target: TierStore): Promise<number | null> {
  if (target.kind !== 'postgres') return null;
  const started = performance.now();
  const store = await target.open('work');
  try {
    await store.exec('bench.vacuum', 'VACUUM');
  } finally {
    await store.close();
  }
  return (performance.now() - started) / 1000;
}

/** A case's p99 at one connection, plain or compressed, whichever is slower (Infinity if not measured). */
export const worstP99 = (c: CaseResult): number => (c.single ? Math.max(c.single.p99, c.compressed?.p99 ?? 0) : Infinity);

/** The encodings a browser accepts. */
const AS_A_BROWSER = { 'accept-encoding': 'gzip, deflate, br' };

async function measureCase(base: string, headers: Record<string, string>, c: ApiCase, result: CaseResult, options: ApiOptions): Promise<void> {
  if (c.hash?.startsWith('@')) {
    const hash = await newestHash(base, headers, c);
    if (!hash) {
      result.status = 'skipped';
      result.problem = `no transaction for ${c.hash}`;
      return;
    }
    c = { ...c, hash };
    result.path = casePath(c);
  }
  let query = c.query;
  if (c.cursorDepth !== undefined) {
    const cursor = await cursorAt(base, headers, c, c.cursorDepth);
    if (!cursor) {
      result.status = 'skipped';
      result.problem = `no next_cursor at position ${c.cursorDepth}`;
      return;
    }
    query = { ...c.query, cursor };
  }
  const url = base + casePath(c, query);
  const probe = await fetch(url, { headers });
  const body = await probe.text();
  const namesAParameter = () => Object.keys(c.query).some((name) => body.includes(`"${name}"`) || body.includes(`${name} `));
  if (c.target?.kind === 'hostile' && probe.status >= 400 && probe.status < 500 && /problem\+json/.test(probe.headers.get('content-type') ?? '') && namesAParameter()) {
    // Refused with a 4xx naming one of its parameters: the bound holds, and there is no answer to time.
    result.refused = { status: probe.status, detail: String((JSON.parse(body) as { detail?: unknown }).detail ?? '').slice(0, 300) };
    result.pass = true;
    result.passLoaded = true;
    return;
  }
  if (!probe.ok) {
    result.status = 'failed';
    result.problem = `HTTP ${probe.status}: ${body.slice(0, 300)}`;
    return;
  }
  result.bytes = Buffer.byteLength(body);
  // Warm the path (plans, caches, connections of the pool) before anything is kept.
  await runLoad(url, { connections: options.connections, amount: options.connections * 3, headers });
  result.single = await runLoad(url, { connections: 1, seconds: options.seconds, headers });
  result.computed = await runLoad(url, { connections: 1, seconds: options.seconds, headers: { ...headers, 'cache-control': 'no-cache' } });
  result.compressed = await runSequential(url, { seconds: options.seconds, headers: { ...headers, ...AS_A_BROWSER } });
  result.loaded = await runLoad(url, { connections: options.connections, seconds: options.seconds, headers });
  const failures = [result.single, result.computed, result.compressed, result.loaded].reduce((n, load) => n + load.non2xx + load.errors, 0);
  if (failures > 0) {
    result.status = 'failed';
    result.problem = `${failures} answers were not 2xx or failed: ${JSON.stringify({ ...result.single.statuses, ...result.loaded.statuses })}`;
  }
  if (c.target) {
    result.pass = failures === 0 && result.single.p99 <= c.target.ms && result.compressed.p99 <= c.target.ms;
    result.passLoaded = failures === 0 && result.loaded.p99 <= c.target.ms;
  }
  if (c.hot) {
    const staticUrl = `${base}${STATIC_PREFIX}/${result.bytes}`;
    await runLoad(staticUrl, { connections: options.connections, amount: options.connections * 10, headers });
    const loaded = await runLoad(staticUrl, { connections: options.connections, seconds: options.seconds, headers });
    result.ceiling = { loaded, ratio: round(result.loaded.rps / Math.max(1, loaded.rps), 3) };
  }
}

/**
 * A cursor for the page at `depth` of a case's listing: an offset page ending just before it
 * gives its next_cursor (offset pages carry one); failing that, cursor pages are walked.
 */
export async function cursorAt(base: string, headers: Record<string, string>, c: ApiCase, depth: number): Promise<string | null> {
  const { cursor: _placeholder, ...query } = c.query;
  const limit = Number(query.limit ?? 25);
  const viaOffset = await getJson(base + casePath(c, { ...query, offset: depth - limit, limit }), headers);
  // Only a route that pages by offset too (it echoes the offset) gives the cursor at that depth.
  if (typeof viaOffset?.next_cursor === 'string' && viaOffset.offset === depth - limit) return viaOffset.next_cursor;
  let cursor: string | null = null;
  for (let position = 0; position < depth; position += 100) {
    const page = await getJson(base + casePath(c, { ...query, limit: Math.min(100, depth - position), ...(cursor ? { cursor } : {}) }), headers);
    cursor = typeof page?.next_cursor === 'string' ? page.next_cursor : null;
    if (!cursor) return null;
  }
  return cursor;
}

/** A chain's latest block, from the served block list (null where the route is not served yet). */
export async function tipBlock(base: string, headers: Record<string, string>, chain: ChainId): Promise<TipBlock | null> {
  const page = await getJson(`${base}/api/v1/${chain}/blocks?limit=1`, headers);
  const item = (page?.items as TipBlock[] | undefined)?.[0];
  return item ? { height: item.height, hash: item.hash, producer: item.producer } : null;
}

/** The richest validator, from the served list (null where the route is not served yet or there is none). */
async function richestValidator(base: string, headers: Record<string, string>): Promise<{ index: number; pubkey: string } | null> {
  const page = await getJson(`${base}/api/v1/pos/validators?sort=-balance&limit=1`, headers);
  const item = (page?.items as { index: number; pubkey: string }[] | undefined)?.[0];
  return item ? { index: item.index, pubkey: item.pubkey } : null;
}

/** The hash a case's `@latest` (`@latest:<tx_type>`) stands for: the newest of the chain's list. */
export async function newestHash(base: string, headers: Record<string, string>, c: ApiCase): Promise<string | null> {
  const type = c.hash!.split(':')[1];
  const list = await getJson(`${base}/api/v1/${c.chain}/transactions?limit=1${type ? `&tx_type=${type}` : ''}`, headers);
  const first = (list?.items as { tx_hash?: string }[] | undefined)?.[0];
  return first?.tx_hash ?? null;
}

async function getJson(url: string, headers: Record<string, string>): Promise<Record<string, unknown> | null> {
  const response = await fetch(url, { headers });
  return response.ok ? ((await response.json()) as Record<string, unknown>) : null;
}

export function cursorConstancy(results: CaseResult[]): ApiFigures['cursor'] {
  const out: ApiFigures['cursor'] = [];
  for (const chain of ['pow', 'pos'] as const) {
    const pages = results.filter((r) => r.chain === chain && r.cursorDepth !== undefined && r.single);
    // Each route's deep pages against its own second page (position 25); a route without one
    // (the chain's transactions) against the address feed's.
    const second = (route: string) => pages.find((r) => r.route === route && r.cursorDepth === 25);
    const feed = second(ROUTES.transactions);
    for (const page of pages) {
      const first = second(page.route) ?? feed;
      if (!first?.single || page === first) continue;
      const ratio = round(page.single!.p50 / Math.max(0.01, first.single.p50), 2);
      // Constant time: the service time within half again of the second page's (plus half a
      // millisecond of noise). Whether it is fast enough is the address target's question.
      const pass = page.single!.p50 <= first.single.p50 * 1.5 + 0.5;
      out.push({ chain, route: page.route, depth: page.cursorDepth!, p50: page.single!.p50, firstP50: first.single.p50, ratio, pass });
    }
  }
  return out;
}

async function stopServer(child: Child): Promise<void> {
  const code = await child.stop();
  if (code !== 0 && code !== null) log(`API process exited with ${code}:\n${child.output().slice(-2000)}`);
}
