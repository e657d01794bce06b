/**
 * The soak part (`npm run bench -- --parts soak [--minutes N]`): an operator's week of faults,
 * compressed, on the production layout of docs/deploy.md, all on this machine:
 *
 *   fake pow node (growing, reorgs) ─ proxy ─► quarry index pow --follow ─┐
 *   Anvil ◄ go-qrl fake (growing, reorgs) ─ proxy ─► quarry index pos ─────┼─► PostgreSQL primary ─► standby
 *                                                                           │        ▲                  ▲
 *   paced case mix + event streams ─► quarry serve --workers 2 ─────────────┘        │   quarry serve ──┘
 *                                      (Redis: the shared rate limits) ──────────────┘
 *
 * Both nodes make blocks many times faster than the real networks; the indexers follow them; both
 * APIs answer the benchmark's case mix (bench/parts/api-cases.ts) at a steady rate and hold event
 * streams open that reconnect with Last-Event-ID. After a steady phase it injects, one after
 * another: a PostgreSQL restart, a Redis restart, a SIGKILL of each indexer (restarted after the
 * unit's RestartSec, as systemd would), a killed API worker, a standby restart, nodes that answer
 * slowly, and nodes whose connections drop; then a second steady phase. At the end the nodes stop
 * growing, everything catches up and stops, and the checks of ../soak/checks.ts judge the run: the
 * store against a clean index of the nodes' final chains, the streams against the event log, the
 * answers, memory, the store's size per block, and the lag after each fault.
 *
 * `--minutes` is the length of the phases with load (setup and the checks come on top); the
 * schedule scales with it, so that `--minutes 3` runs every fault once (the short soak of
 * test/deploy/soak.test.ts).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import sql from 'sql-template-tag';
import { resolveIndexPosSettings } from '../../src/cli/commands/index-pos.ts';
import { resolveIndexPowSettings } from '../../src/cli/commands/index-pow.ts';
import type { ChainId } from '../../src/chain/chains.ts';
import { indexPos } from '../../src/ingest/index-pos.ts';
import { indexPow } from '../../src/ingest/index-pow.ts';
import { freePort, startLocalCluster, type LocalCluster } from '../../src/store/local-cluster.ts';
import { migrate } from '../../src/store/migrate.ts';
import { createPostgresDriver } from '../../src/store/postgres.ts';
import { createStore, type Store } from '../../src/store/store.ts';
import { DAY_SECONDS } from '../../src/time.ts';
import { storeDigest } from '../../test/fakes/qrl-node/world.ts';
import { startTestRedis, type TestRedis } from '../../test/support/redis.ts';
import { loadAverage, log, round, sleep } from '../proc.ts';
import { soakPaths } from '../soak/cases.ts';
import { judge, type SoakChecks } from '../soak/checks.ts';
import { PacedLoad, type ApiTarget } from '../soak/load.ts';
import { POS_BLOCK_SECONDS, startPosNode, startPowNode, type Head, type PosNode, type PowNode } from '../soak/nodes.ts';
import { startFaultProxy, type FaultProxy } from '../soak/proxy.ts';
import { childrenOf, getText, Samplers, type Watched } from '../soak/samplers.ts';
import { StreamClient } from '../soak/streams.ts';
import { Supervised } from '../soak/supervised.ts';
import { Timeline } from '../soak/timeline.ts';

export interface SoakOptions {
  /** Minutes of the phases with load. */
  minutes: number;
  /** Blocks a second each node makes. */
  powBlocksPerSecond: number;
  posBlocksPerSecond: number;
  /** Requests a second over both APIs. */
  requestsPerSecond: number;
}

export const SOAK_DEFAULTS: SoakOptions = { minutes: 20, powBlocksPerSecond: 4, posBlocksPerSecond: 1.5, requestsPerSecond: 12 };

/** The faults, in the order they come; each once per soak. */
export const FAULTS = ['postgres-restart', 'redis-restart', 'kill-pow-indexer', 'kill-pos-indexer', 'kill-api-worker', 'standby-restart', 'slow-nodes', 'dropping-nodes'] as const;
export type FaultName = (typeof FAULTS)[number];

export const FAULT_TITLES: Record<FaultName, string> = {
  'postgres-restart': 'PostgreSQL primary restarted (pg_ctl stop -m fast, 2 s down, start)',
  'redis-restart': 'Redis restarted (stopped, 2 s down, started empty)',
  'kill-pow-indexer': '`quarry index pow` killed with SIGKILL (restarted after RestartSec)',
  'kill-pos-indexer': '`quarry index pos` killed with SIGKILL (restarted after RestartSec)',
  'kill-api-worker': 'one worker of the primary\'s `quarry serve --workers 2` killed with SIGKILL',
  'standby-restart': 'the standby restarted (pg_ctl stop -m fast, 2 s down, start)',
  'slow-nodes': 'both nodes answer slowly (every chunk delayed 250 ms both ways)',
  'dropping-nodes': 'both nodes drop connections (each reset within 1 s of opening)',
};

/** The unit's RestartSec for the indexers (docs/deploy.md). */
const INDEXER_RESTART_MS = 5000;
/** The API unit's RestartSec. */
const API_RESTART_MS = 2000;
/** How long a stopped server stays down in a restart. */
const DOWN_MS = 2000;
/** Heights of pow served when the soak starts: the first sync's backfill (a midnight follows 60 s of growth later). */
const POW_START_BLOCKS = 1200;
const KEY = 'soak-operator-key-0123456789';
/** Paced load before the first steady phase, after the warm-up pass: caches, plans and heaps settle. */
const WARM_SECONDS = 30;

export interface Schedule {
  steadyStartSeconds: number;
  faultSlotSeconds: number;
  steadyEndSeconds: number;
  slowSeconds: number;
  dropSeconds: number;
}

/** The phases' lengths for `minutes` of load: steady 15 %, the faults 65 % in equal slots, steady 20 %. */
export function soakSchedule(minutes: number): Schedule {
  const total = minutes * 60;
  const slot = (0.65 * total) / FAULTS.length;
  return {
    steadyStartSeconds: round(0.15 * total),
    faultSlotSeconds: round(slot),
    steadyEndSeconds: round(0.2 * total),
    // "For a minute" from a 20-minute soak on; shorter soaks scale it down.
    slowSeconds: round(Math.min(60, 0.62 * slot)),
    dropSeconds: round(Math.min(30, 0.5 * slot)),
  };
}

/**
 * Mean blocks between reorgs: every 250 blocks (a few hundred), or often enough that a short soak
 * sees several on each chain (a quarter of the blocks it makes), but not more often than every 60.
 */
export function reorgEvery(blocksPerSecond: number, minutes: number): number {
  const blocks = blocksPerSecond * (minutes * 60 + WARM_SECONDS);
  return Math.round(Math.max(60, Math.min(250, blocks / 4)));
}

export interface FaultRecord {
  name: FaultName;
  title: string;
  /** Seconds from the soak's start. */
  start: number;
  /** When the fault itself was over (the server back up, the process restarted, the node normal again). */
  activeEnd: number;
  /** When everything had recovered (see `recovered` in the part); null if it did not within the limit. */
  recoveredAt: number | null;
  /** Per chain: the node's height when the fault ended, and when the indexer had stored it. */
  catchUp: Record<ChainId, { nodeAtEnd: number; caughtUpAt: number | null }>;
}

export interface SoakFigures {
  options: SoakOptions;
  schedule: Schedule;
  wallSeconds: number;
  /** Seconds before the warm-up: the clusters, the nodes, the first syncs, the APIs. */
  setupSeconds: number;
  /** The server's version() of the soak's own clusters. */
  postgres: string;
  loadAverage: { before: number[]; after: number[] };
  faults: FaultRecord[];
  /** What the chains went through: blocks at the end and grown during the soak, and the event log's reorgs and closed days. */
  chains: { paths: number } & Record<ChainId, { blocks: number; grown: number; reorgs: number; days: number }>;
  /** Connections each node's proxy accepted, and those it reset (the dropping nodes). */
  proxies: Record<ChainId, { accepted: number; reset: number }>;
  checks: SoakChecks;
  pass: boolean;
}

interface Deployment {
  timeline: Timeline;
  primary: LocalCluster;
  standby: LocalCluster;
  redis: TestRedis;
  pow: PowNode;
  pos: PosNode;
  proxies: Record<ChainId, FaultProxy>;
  indexers: Record<ChainId, Supervised>;
  apis: { primary: Supervised; standby: Supervised };
  targets: ApiTarget[];
  streams: StreamClient[];
  samplers: Samplers;
  schedule: Schedule;
}

export async function measureSoak(options: SoakOptions): Promise<SoakFigures> {
  const before = loadAverage();
  const started = performance.now();
  const schedule = soakSchedule(options.minutes);
  const timeline = new Timeline();
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'quarry-soak-'));
  const stops: (() => Promise<unknown>)[] = [];
  const cleanup = async () => {
    for (const stop of stops.reverse()) await stop().catch((error: unknown) => log(`soak: stopping: ${(error as Error).message}`));
  };
  try {
    log(`soak: ${options.minutes} min of load; faults every ${schedule.faultSlotSeconds} s`);
    const settings = { max_connections: '120', shared_buffers: '256MB', max_standby_streaming_delay: '30s' };
    const primary = await startLocalCluster({ settings });
    stops.push(() => primary.stop());
    const url = primary.urlFor('soak');
    await adminQuery(primary.url, 'CREATE DATABASE soak');
    const migrating = createStore(createPostgresDriver(url, { poolSize: 2 }));
    await migrate(migrating);
    await migrating.close();
    const standby = await startLocalCluster({ settings, standbyOf: primary });
    stops.push(() => standby.stop());
    const redis = await startTestRedis();
    stops.push(() => redis.stop());

    // The pow chain starts at a midnight; the pos clock crosses one a minute of growth in.
    const days = Math.ceil((POW_START_BLOCKS + options.powBlocksPerSecond * options.minutes * 60 * 1.3 + 600) / 1440) + 1;
    const end = Math.floor(Date.now() / 1000 / DAY_SECONDS) * DAY_SECONDS - 30 * DAY_SECONDS;
    log(`soak: starting the nodes (pow: ${days} days generated, ${POW_START_BLOCKS} blocks served at first)`);
    const [pow, pos] = await Promise.all([
      startPowNode({ seed: 5, days, scale: 4000, reorgEvery: reorgEvery(options.powBlocksPerSecond, options.minutes), startHeight: POW_START_BLOCKS - 1, end: new Date(end * 1000).toISOString() }),
      startPosNode({ genesisTs: end - 10 * DAY_SECONDS - 100 * POS_BLOCK_SECONDS - Math.round(60 * options.posBlocksPerSecond * POS_BLOCK_SECONDS), reorgEvery: reorgEvery(options.posBlocksPerSecond, options.minutes), perBlock: 4 }),
    ]);
    stops.push(() => pow.stop(), () => pos.stop());
    const proxies = {
      pow: await startFaultProxy({ host: '127.0.0.1', port: Number(pow.address.split(':')[1]) }),
      pos: await startFaultProxy({ host: '127.0.0.1', port: Number(new URL(pos.goQrl.url).port) }),
    };
    stops.push(() => proxies.pow.close(), () => proxies.pos.close());

    const common = { QUARRY_DATABASE_URL: url, QUARRY_DATA_DIR: scratch, QUARRY_LOG_LEVEL: 'info', QUARRY_CURSOR_SECRET: 'soak-cursor-secret' };
    const indexers = {
      pow: new Supervised('indexer pow', ['index', 'pow', '--follow', '--no-progress', '--poll-interval', '100'], { ...common, QUARRY_POW_NODE: proxies.pow.address, QUARRY_METRICS_PORT: String(await freePort()) }, timeline, INDEXER_RESTART_MS),
      pos: new Supervised('indexer pos', ['index', 'pos', '--follow', '--no-progress', '--poll-interval', '100'], { ...common, QUARRY_POS_RPC_URL: `http://${proxies.pos.address}`, QUARRY_METRICS_PORT: String(await freePort()) }, timeline, INDEXER_RESTART_MS),
    };
    for (const indexer of Object.values(indexers)) {
      indexer.start();
      stops.push(() => indexer.stop());
    }
    log('soak: the indexers backfill the nodes\' chains');
    await untilCaughtUp(url, { pow: () => pow.head.height, pos: () => pos.head.height }, 300_000);

    const apiEnv = {
      ...common,
      HOST: '127.0.0.1',
      QUARRY_REDIS_URL: redis.url,
      QUARRY_API_KEYS: KEY,
      QUARRY_LOG_LEVEL: 'warn',
      QUARRY_RATE_LIMIT_OPERATOR_MAX: '1000000000',
      QUARRY_EVENTS_MAX_STREAMS: '20',
      QUARRY_DB_POOL_SIZE: '4',
    };
    const ports = { primary: await freePort(), standby: await freePort() };
    const apis = {
      primary: new Supervised('api primary', ['serve', '--workers', '2'], { ...apiEnv, PORT: String(ports.primary) }, timeline, API_RESTART_MS),
      standby: new Supervised('api standby', ['serve', '--workers', '1'], { ...apiEnv, PORT: String(ports.standby), QUARRY_DATABASE_URL: standby.urlFor('soak') }, timeline, API_RESTART_MS),
    };
    const targets: ApiTarget[] = [
      { name: 'primary', base: `http://127.0.0.1:${ports.primary}` },
      { name: 'standby', base: `http://127.0.0.1:${ports.standby}` },
    ];
    for (const api of Object.values(apis)) {
      api.start();
      stops.push(() => api.stop());
    }
    for (const target of targets) await untilReady(target.base, 120_000);

    log('soak: the nodes grow; warming up');
    const setupSeconds = round(timeline.now());
    timeline.enter('warm-up');
    const grownFrom = { pow: pow.head.height, pos: pos.head.height };
    pow.grow(options.powBlocksPerSecond);
    pos.grow(options.posBlocksPerSecond);
    const headers = { authorization: `Bearer ${KEY}` };
    const caseStore = createStore(createPostgresDriver(url, { poolSize: 2 }));
    const paths = await soakPaths(caseStore, targets[0]!.base, headers, pos.goQrl.address(pos.traffic.contracts.splitter));
    await caseStore.close();
    log(`soak: ${paths.length} request paths in the mix, ${options.requestsPerSecond} requests/s over both APIs`);

    const load = new PacedLoad(targets, paths, options.requestsPerSecond, headers, timeline);
    const streams: StreamClient[] = [];
    for (const chain of ['pow', 'pos'] as const) {
      for (const [i, target] of [targets[0]!, targets[0]!, targets[1]!].entries()) {
        streams.push(new StreamClient(`${chain} on ${target.name} #${i + 1}`, target.base, chain, headers, timeline, [15, 60]));
      }
    }
    const samplers = new Samplers(
      timeline,
      url,
      { pow: () => pow.head.height, pos: () => pos.head.height },
      targets,
      () => watchedProcesses({ primary, standby, redis, pow, pos, indexers, apis }),
      () => [
        { source: 'api primary', url: `${targets[0]!.base}/metrics` },
        { source: 'api standby', url: `${targets[1]!.base}/metrics` },
        { source: 'indexer pow', url: `http://127.0.0.1:${indexers.pow.env.QUARRY_METRICS_PORT}/metrics` },
        { source: 'indexer pos', url: `http://127.0.0.1:${indexers.pos.env.QUARRY_METRICS_PORT}/metrics` },
      ],
    );
    samplers.start();
    stops.push(() => samplers.stop());
    for (const stream of streams) stream.start();
    await load.warm(4);
    load.start();
    await sleep(WARM_SECONDS * 1000);

    const deployment: Deployment = { timeline, primary, standby, redis, pow, pos, proxies, indexers, apis, targets, streams, samplers, schedule };
    timeline.enter('steady (start)');
    log(`soak: steady for ${schedule.steadyStartSeconds} s`);
    await sleep(schedule.steadyStartSeconds * 1000);
    const faults: FaultRecord[] = [];
    for (const name of FAULTS) {
      const slotStart = timeline.now();
      timeline.enter(name);
      log(`soak: ${FAULT_TITLES[name]}`);
      const record = await runFault(deployment, name);
      faults.push(record);
      log(`soak: ${name}: ${record.recoveredAt === null ? 'NOT recovered' : `recovered ${round(record.recoveredAt - record.start)} s after it began`}`);
      const rest = slotStart + schedule.faultSlotSeconds - timeline.now();
      await sleep(Math.max(1, rest) * 1000);
    }
    timeline.enter('steady (end)');
    log(`soak: steady for ${schedule.steadyEndSeconds} s`);
    await sleep(schedule.steadyEndSeconds * 1000);

    timeline.enter('final');
    log('soak: the nodes stop growing; everything catches up');
    const final: Record<ChainId, Head> = { pow: await pow.freeze(), pos: await pos.freeze() };
    const caughtUp = await untilCaughtUp(url, { pow: () => final.pow.height, pos: () => final.pos.height }, 180_000, final).then(
      () => true,
      () => false,
    );
    await untilStandbyReplayed(primary.urlFor('soak'), standby.urlFor('soak'), 60_000).catch(() => undefined);
    await untilStreamsDrained(samplers, streams, 30_000);
    await load.stop();
    for (const stream of streams) stream.stop();
    timeline.close();
    await samplers.sampleLag();
    const lastSize = await samplers.query<{ bytes: string }>('SELECT pg_database_size(current_database())::text AS bytes');
    await samplers.stop();

    log('soak: stopping the APIs and the indexers (SIGTERM)');
    const exitCodes: Record<string, number | null> = {};
    for (const child of [apis.primary, apis.standby, indexers.pow, indexers.pos]) exitCodes[child.name] = await child.stop();

    log('soak: the store against a clean index of the final chains');
    const eventLog = await readEventLog(url);
    const store = createStore(createPostgresDriver(url, { poolSize: 2 }));
    const soakDigest = await storeDigest(store);
    const finalBlocks = await readFinalBlocks(url);
    const unlogged = await store.query<{ name: string }>('soak.unlogged', sql`SELECT relname AS name FROM pg_class WHERE relpersistence = 'u' AND relkind = 'r'`);
    await store.close();
    const standbyStore = createStore(createPostgresDriver(standby.urlFor('soak'), { poolSize: 2 }));
    const standbyDigest = await storeDigest(standbyStore, unlogged.map((u) => u.name));
    await standbyStore.close();
    const clean = await cleanIndex(primary, { pow: pow.address, pos: pos.goQrl.url });

    const checks = judge({
      timeline,
      load,
      streams,
      samplers,
      faults,
      eventLog,
      finalBlocks,
      digests: { soak: soakDigest, clean: clean.digest, standby: standbyDigest },
      unlogged: unlogged.map((u) => u.name),
      size: { soakBytes: Number(lastSize.rows[0]!.bytes), cleanBytes: clean.bytes, emptyBytes: clean.emptyBytes, blocks: final.pow.height + 1 + final.pos.height + 1 },
      processes: [indexers.pow, indexers.pos, apis.primary, apis.standby],
      exitCodes,
      caughtUp,
      schedule,
    });
    return {
      options,
      schedule,
      wallSeconds: round((performance.now() - started) / 1000),
      setupSeconds,
      postgres: await serverVersion(primary.url),
      loadAverage: { before, after: loadAverage() },
      faults,
      chains: {
        paths: paths.length,
        ...(Object.fromEntries(
          (['pow', 'pos'] as const).map((chain) => [
            chain,
            {
              blocks: final[chain].height + 1,
              grown: final[chain].height - grownFrom[chain],
              reorgs: eventLog[chain].filter((e) => e.kind === 'reorg').length,
              days: eventLog[chain].filter((e) => e.kind === 'day').length,
            },
          ]),
        ) as Record<ChainId, { blocks: number; grown: number; reorgs: number; days: number }>),
      },
      proxies: { pow: proxies.pow.stats(), pos: proxies.pos.stats() },
      checks,
      pass: checks.verdicts.every((v) => v.pass),
    };
  } finally {
    await cleanup();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** One fault: injected, its active part waited out, then everything's recovery waited for. */
async function runFault(d: Deployment, name: FaultName): Promise<FaultRecord> {
  const start = d.timeline.now();
  switch (name) {
    case 'postgres-restart': {
      const window = d.timeline.outageStarts('primary');
      await d.primary.stopServer('fast');
      await sleep(DOWN_MS);
      await d.primary.startServer();
      await untilReady(d.targets[0]!.base, 120_000).catch(() => undefined);
      window.end = d.timeline.now();
      break;
    }
    case 'standby-restart': {
      const window = d.timeline.outageStarts('standby');
      await d.standby.stopServer('fast');
      await sleep(DOWN_MS);
      await d.standby.startServer();
      await untilReady(d.targets[1]!.base, 120_000).catch(() => undefined);
      window.end = d.timeline.now();
      break;
    }
    case 'redis-restart':
      await d.redis.stopServer();
      await sleep(DOWN_MS);
      await d.redis.startServer();
      break;
    case 'kill-pow-indexer':
    case 'kill-pos-indexer': {
      const indexer = d.indexers[name === 'kill-pow-indexer' ? 'pow' : 'pos'];
      const starts = indexer.starts;
      indexer.kill();
      await until(async () => indexer.starts > starts && indexer.pid !== undefined, 60_000);
      break;
    }
    case 'kill-api-worker': {
      const serve = d.apis.primary.pid;
      const [worker] = serve === undefined ? [] : childrenOf(serve);
      if (worker !== undefined) {
        process.kill(worker, 'SIGKILL');
        await until(async () => {
          const now = childrenOf(serve!);
          return now.length === 2 && !now.includes(worker);
        }, 60_000);
      }
      break;
    }
    case 'slow-nodes':
      for (const proxy of Object.values(d.proxies)) proxy.setMode({ kind: 'slow', delayMs: 250 });
      await sleep(d.schedule.slowSeconds * 1000);
      for (const proxy of Object.values(d.proxies)) proxy.setMode({ kind: 'pass' });
      break;
    case 'dropping-nodes':
      for (const proxy of Object.values(d.proxies)) proxy.setMode({ kind: 'drop', maxLifeMs: 1000 });
      await sleep(d.schedule.dropSeconds * 1000);
      for (const proxy of Object.values(d.proxies)) proxy.setMode({ kind: 'pass' });
      break;
  }
  const activeEnd = d.timeline.now();
  const catchUp: FaultRecord['catchUp'] = {
    pow: { nodeAtEnd: d.pow.head.height, caughtUpAt: null },
    pos: { nodeAtEnd: d.pos.head.height, caughtUpAt: null },
  };
  const limitMs = Math.max(60, 3 * d.schedule.faultSlotSeconds) * 1000;
  const recovered = await until(async () => {
    const heights = await d.samplers.indexedHeights();
    for (const chain of ['pow', 'pos'] as const) {
      if (catchUp[chain].caughtUpAt === null && heights && (heights[chain] ?? -1) >= catchUp[chain].nodeAtEnd) catchUp[chain].caughtUpAt = d.timeline.now();
    }
    if (catchUp.pow.caughtUpAt === null || catchUp.pos.caughtUpAt === null) return false;
    for (const target of d.targets) if ((await getText(`${target.base}/readyz`, 5000)).status !== 200) return false;
    const serve = d.apis.primary.pid;
    if (serve === undefined || childrenOf(serve).length !== 2) return false;
    if ([...Object.values(d.indexers), d.apis.standby].some((p) => p.pid === undefined)) return false;
    return d.streams.every((s) => s.connected);
  }, limitMs).then(
    () => true,
    () => false,
  );
  return { name, title: FAULT_TITLES[name], start, activeEnd, recoveredAt: recovered ? d.timeline.now() : null, catchUp };
}

/** Polls `check` every 250 ms until it holds; rejects after `ms`. */
async function until(check: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(250);
  }
}

async function serverVersion(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ v: string }>('SELECT version() AS v')).rows[0]!.v.split(' on ')[0]!;
  } finally {
    await client.end();
  }
}

async function adminQuery(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** Waits until the stored height of each chain reaches `heights` (and, given `heads`, holds their hashes). */
async function untilCaughtUp(url: string, heights: Record<ChainId, () => number>, ms: number, heads?: Record<ChainId, Head>): Promise<void> {
  const pool = new pg.Pool({ connectionString: url, max: 1, connectionTimeoutMillis: 2000 });
  pool.on('error', () => undefined);
  try {
    await until(async () => {
      const { rows } = await pool.query<{ chain: ChainId; height: string; hash: string }>('SELECT chain, height::text AS height, hash FROM checkpoints');
      return (['pow', 'pos'] as const).every((chain) => {
        const row = rows.find((r) => r.chain === chain);
        if (!row || Number(row.height) < heights[chain]()) return false;
        return !heads || (Number(row.height) === heads[chain].height && row.hash === heads[chain].hash);
      });
    }, ms);
  } finally {
    await pool.end();
  }
}

async function untilReady(base: string, ms: number): Promise<void> {
  await until(async () => (await getText(`${base}/readyz`, 5000)).status === 200, ms);
}

async function untilStandbyReplayed(primaryUrl: string, standbyUrl: string, ms: number): Promise<void> {
  const p = new pg.Client({ connectionString: primaryUrl });
  const s = new pg.Client({ connectionString: standbyUrl });
  await p.connect();
  await s.connect();
  try {
    const { rows } = await p.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
    await until(async () => (await s.query<{ done: boolean }>('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done', [rows[0]!.lsn])).rows[0]!.done, ms);
  } finally {
    await p.end();
    await s.end();
  }
}

/** Waits (up to `ms`) until every stream has received the newest event of its chain's log. */
async function untilStreamsDrained(samplers: Samplers, streams: StreamClient[], ms: number): Promise<void> {
  await until(async () => {
    const { rows } = await samplers.query<{ chain: ChainId; id: string }>('SELECT chain, max(id)::text AS id FROM chain_events GROUP BY chain');
    const newest = new Map(rows.map((r) => [r.chain, Number(r.id)]));
    return streams.every((s) => (s.received.at(-1)?.id ?? -1) >= (newest.get(s.chain) ?? 0));
  }, ms).catch(() => undefined);
}

export interface LoggedEvent {
  id: number;
  kind: string;
  height?: number;
  hash?: string;
}

async function readEventLog(url: string): Promise<Record<ChainId, LoggedEvent[]>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ chain: ChainId; id: string; kind: string; data: { height?: number; hash?: string } }>('SELECT chain, id::text AS id, kind, data FROM chain_events ORDER BY chain, id');
    const out: Record<ChainId, LoggedEvent[]> = { pow: [], pos: [] };
    for (const r of rows) out[r.chain].push({ id: Number(r.id), kind: r.kind, ...(r.kind === 'block' ? { height: r.data.height, hash: r.data.hash } : {}) });
    for (const chain of ['pow', 'pos'] as const) out[chain].sort((a, b) => a.id - b.id);
    return out;
  } finally {
    await client.end();
  }
}

/** The stored chain: height → hash, per chain. */
async function readFinalBlocks(url: string): Promise<Record<ChainId, Map<number, string>>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ chain: ChainId; height: string; hash: string }>('SELECT chain, height::text AS height, hash FROM blocks');
    const out: Record<ChainId, Map<number, string>> = { pow: new Map(), pos: new Map() };
    for (const r of rows) out[r.chain].set(Number(r.height), r.hash);
    return out;
  } finally {
    await client.end();
  }
}

/**
 * The reference: both final chains indexed into an empty database from the nodes themselves (not
 * through the proxies), as a first `quarry index` of each would; its digest and size, and the
 * size of an empty migrated database.
 */
async function cleanIndex(primary: LocalCluster, nodes: { pow: string; pos: string }): Promise<{ digest: Record<string, string>; bytes: number; emptyBytes: number }> {
  await adminQuery(primary.url, 'CREATE DATABASE soak_clean');
  await adminQuery(primary.url, 'CREATE DATABASE soak_empty');
  const size = async (database: string) => {
    const client = new pg.Client({ connectionString: primary.urlFor(database) });
    await client.connect();
    try {
      return Number((await client.query<{ bytes: string }>('SELECT pg_database_size(current_database())::text AS bytes')).rows[0]!.bytes);
    } finally {
      await client.end();
    }
  };
  const empty = createStore(createPostgresDriver(primary.urlFor('soak_empty'), { poolSize: 2 }));
  await migrate(empty);
  await empty.close();
  const store: Store = createStore(createPostgresDriver(primary.urlFor('soak_clean'), { poolSize: 4 }));
  try {
    await migrate(store);
    const logger = pino({ level: 'silent' });
    await indexPow(store, resolveIndexPowSettings({ node: nodes.pow, progress: false }, {}), { logger });
    await indexPos(store, resolveIndexPosSettings({ rpc: nodes.pos, progress: false }, {}), { logger });
    return { digest: await storeDigest(store), bytes: await size('soak_clean'), emptyBytes: await size('soak_empty') };
  } finally {
    await store.close();
  }
}

/** Every process of the deployment whose memory the soak samples. */
function watchedProcesses(d: Pick<Deployment, 'primary' | 'standby' | 'redis' | 'pow' | 'pos' | 'indexers' | 'apis'>): Watched[] {
  const postmaster = (cluster: LocalCluster) => {
    try {
      return Number(readFileSync(path.join(cluster.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    } catch {
      return undefined;
    }
  };
  const serve = d.apis.primary.pid;
  return [
    { role: 'indexer pow', pid: d.indexers.pow.pid },
    { role: 'indexer pos', pid: d.indexers.pos.pid },
    { role: 'api primary (cluster primary)', pid: serve },
    ...(serve === undefined ? [] : childrenOf(serve).map((pid) => ({ role: 'api primary worker', pid }))),
    { role: 'api standby', pid: d.apis.standby.pid },
    { role: 'postgres primary', pid: postmaster(d.primary), withChildren: true },
    { role: 'postgres standby', pid: postmaster(d.standby), withChildren: true },
    { role: 'redis', pid: d.redis.pid() },
    { role: 'fake pow node', pid: d.pow.pid },
    { role: 'anvil', pid: d.pos.anvil.pid },
    { role: 'soak (load, streams, go-qrl fake, proxies)', pid: process.pid },
  ];
}
