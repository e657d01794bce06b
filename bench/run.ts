/**
 * `npm run bench`: measures Quarry's speed, cost and scaling in one command. See bench/README.md.
 *
 *   npm run bench -- --tiers S,M --parts generate,copy,ingest,api,demo,anvil --stores postgres,pglite
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { Command, Option } from 'commander';
import type { StoreKind } from '../src/store/store.ts';
import { openBenchServer, type BenchServer } from './cluster.ts';
import { measureAnvil } from './parts/anvil.ts';
import { measurePowNode } from './parts/pow-node.ts';
import { measurePowMainnet } from './parts/pow-mainnet.ts';
import { measurePowArchive } from './parts/pow-archive.ts';
import { measureSoak, SOAK_DEFAULTS } from './parts/soak.ts';
import { measureApi } from './parts/api.ts';
import { measureCopyCeiling } from './parts/ceiling.ts';
import { measureDemo } from './parts/demo.ts';
import { DISK_MARGIN, ensureTier, notableAccounts } from './parts/generate.ts';
import { ensureWork, measureIngest } from './parts/ingest.ts';
import { loadAverage, log, ROOT, round, WORK_DIR } from './proc.ts';
import { renderAgain, writeResults } from './report.ts';
import type { BenchResults, TierResult } from './results.ts';
import { freeBytes, tierStore } from './stores.ts';
import { parseTiers, type Tier } from './tiers.ts';

/** In the order they run; copy and api use the work copy that ingest completes. */
const PARTS = ['generate', 'ingest', 'copy', 'api', 'demo', 'anvil', 'pow-node', 'pow-mainnet', 'pow-archive', 'soak'] as const;
/** Parts that run only when named (they take long). */
const ON_REQUEST: readonly Part[] = ['pow-mainnet', 'pow-archive', 'soak'];
type Part = (typeof PARTS)[number];
/** PGlite holds a whole database in one process's memory: the larger tiers are PostgreSQL's. */
const PGLITE_TIERS = new Set(['T', 'S']);

interface CliOptions {
  tiers: string;
  parts: string;
  stores: string;
  rebuild?: boolean;
  connections: string;
  seconds?: string;
  cases?: string;
  workers?: string;
  serverLogLevel: string;
  anvilBlocks: string;
  powNodeDays: string;
  powMainnetBlocks: string;
  powArchiveBlocks: string;
  minutes: string;
  write: boolean;
  render?: string;
}

const program = new Command()
  .name('bench')
  .description("measures Quarry's speed, cost and scaling: generator, ingest pipeline, COPY ceiling, API latency, demo start-up")
  .option('--tiers <list>', 'tiers to build and measure: T (tiny), S, M, L', 'S')
  .option('--parts <list>', `parts to run: ${PARTS.join(', ')} (${ON_REQUEST.join(', ')} only when named)`, PARTS.filter((p) => !ON_REQUEST.includes(p)).join(','))
  .option('--stores <list>', 'stores for the tiers: postgres, pglite (T and S only)', 'postgres')
  .option('--rebuild', 'build the tier databases again even if a build of the same world and schema exists')
  .option('--connections <n>', 'concurrent connections of the API load', '10')
  .option('--seconds <n>', "seconds of load per API case (default: the tier's)")
  .option('--cases <regex>', 'only API cases whose id matches')
  .option('--workers <n>', 'API processes on one port, as `quarry serve --workers N` (default: 2 on PostgreSQL, 1 on PGlite)')
  .addOption(new Option('--server-log-level <level>', 'log level of the API process').default('warn').choices(['fatal', 'error', 'warn', 'info', 'silent']))
  .option('--anvil-blocks <n>', 'blocks the anvil part fills the node with', '1000')
  .option('--pow-node-days <n>', 'days of generated pow chain the pow-node part serves', '2')
  .option('--pow-mainnet-blocks <n>', 'blocks from genesis of the mainnet-shaped pow history the pow-mainnet part backfills (at least 440000 for a figure that counts)', '440000')
  .option('--pow-archive-blocks <n>', 'blocks from genesis of the mainnet-shaped pow history the pow-archive part imports as a v1 archive', '100000')
  .option('--minutes <n>', 'minutes of load in the soak part (setup and checks come on top; 3 runs every fault once)', String(SOAK_DEFAULTS.minutes))
  .option('--no-write', 'print the results instead of writing them under bench/results/')
  .option('--render <json>', 'only write the Markdown of a results file again, with the current report code');

program.parse();
const options = program.opts<CliOptions>();
if (options.render) {
  log(`written ${renderAgain(options.render)}`);
  process.exit(0);
}

const tiers = parseTiers(options.tiers);
const parts = options.parts.split(',').map((p) => p.trim()) as Part[];
for (const part of parts) if (!PARTS.includes(part)) throw new Error(`unknown part ${part}: use ${PARTS.join(', ')}`);
const stores = options.stores.split(',').map((s) => s.trim()) as StoreKind[];
for (const store of stores) if (store !== 'postgres' && store !== 'pglite') throw new Error(`unknown store ${store}: use postgres, pglite`);
const connections = Number(options.connections);
const secondsOverride = options.seconds !== undefined ? Number(options.seconds) : null;
const tierParts = parts.filter((p) => p === 'generate' || p === 'ingest' || p === 'copy' || p === 'api');

const started = performance.now();
const results: BenchResults = {
  format: 1,
  startedAt: new Date().toISOString(),
  finishedAt: '',
  wallSeconds: 0,
  command: `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim(),
  git: gitState(),
  machine: {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model.trim() ?? 'unknown',
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    loadAverage: { start: loadAverage(), end: [] },
    postgres: null,
  },
  options: { tiers: tiers.map((t) => t.name), parts, stores, connections, seconds: secondsOverride },
  tiers: [],
  errors: [],
};

const needsServer = (tierParts.length > 0 && stores.includes('postgres')) || parts.includes('anvil') || parts.includes('pow-node') || parts.includes('pow-mainnet') || parts.includes('pow-archive');
let server: BenchServer | null = null;
try {
  if (needsServer) {
    server = await openBenchServer();
    results.machine.postgres = { origin: server.origin, version: server.version, settings: server.settings };
    log(`PostgreSQL ${server.version} (${server.origin})`);
  }
  if (tierParts.length > 0) {
    for (const tier of tiers) {
      for (const kind of stores) {
        if (kind === 'pglite' && !PGLITE_TIERS.has(tier.name)) {
          log(`${tier.name}/pglite: skipped (PGlite runs tiers ${[...PGLITE_TIERS].join(', ')})`);
          continue;
        }
        const result = await runTier(tier, kind);
        if (result) results.tiers.push(result);
      }
    }
  }
  if (parts.includes('demo')) await attempt('demo', undefined, async () => (results.demo = await measureDemo()));
  if (parts.includes('anvil') && server) {
    const s = server;
    await attempt('anvil', undefined, async () => (results.anvil = await measureAnvil(s, { blocks: Number(options.anvilBlocks), perBlock: 10 })));
  }
  if (parts.includes('pow-node') && server) {
    const s = server;
    await attempt('pow-node', undefined, async () => (results.powNode = await measurePowNode(s, { days: Number(options.powNodeDays), scale: 4000 })));
  }
  if (parts.includes('pow-mainnet') && server) {
    const s = server;
    await attempt('pow-mainnet', undefined, async () => (results.powMainnet = await measurePowMainnet(s, { blocks: Number(options.powMainnetBlocks) })));
  }
  if (parts.includes('pow-archive') && server) {
    const s = server;
    await attempt('pow-archive', undefined, async () => (results.powArchive = await measurePowArchive(s, { blocks: Number(options.powArchiveBlocks) })));
  }
  if (parts.includes('soak')) {
    await attempt('soak', undefined, async () => {
      const soak = (results.soak = await measureSoak({ ...SOAK_DEFAULTS, minutes: Number(options.minutes) }));
      const failed = soak.checks.verdicts.filter((v) => !v.pass);
      if (failed.length > 0) throw new Error(`soak checks failed: ${failed.map((v) => `${v.check}: ${v.measured}`).join('; ')}`);
    });
  }
} finally {
  await server?.stop().catch((error: unknown) => log(`stopping PostgreSQL: ${(error as Error).message}`));
}

results.finishedAt = new Date().toISOString();
results.wallSeconds = round((performance.now() - started) / 1000);
results.machine.loadAverage.end = loadAverage();
if (options.write) {
  const files = writeResults(results);
  log(`results: ${files.markdown.replace(ROOT + '/', '')} and .json (${Math.round(results.wallSeconds)} s in all)`);
} else {
  console.log(JSON.stringify(results, null, 2));
}
process.exit(results.errors.length > 0 ? 1 : 0);

async function runTier(tier: Tier, kind: StoreKind): Promise<TierResult | null> {
  const target = tierStore(kind, tier, server);
  const partSeconds: Record<string, number> = {};
  const timed = async <T>(part: string, fn: () => Promise<T>): Promise<T | undefined> => {
    const t = performance.now();
    try {
      return await attempt(part, `${tier.name} ${kind}`, fn);
    } finally {
      partSeconds[part] = round((performance.now() - t) / 1000);
    }
  };
  const ensured = await timed('generate', () => ensureTier(target, { rebuild: Boolean(options.rebuild) && parts.includes('generate') }));
  if (!ensured) return null;
  const result: TierResult = { tier: tier.name, store: kind, description: tier.description, build: ensured.record, built: ensured.built, partSeconds };

  if (parts.includes('ingest') || parts.includes('copy') || parts.includes('api')) {
    // Two copies where the disk allows; the space of the old work copy is freed before copying.
    const local = kind === 'pglite' || server?.origin === 'local';
    if (local) {
      const need = (await target.bytes('base')) + DISK_MARGIN;
      const free = freeBytes(WORK_DIR) + (target.singleCopy ? 0 : await target.bytes('work'));
      if (free < need) {
        target.singleCopy = true;
        log(`${tier.name}/${kind}: ${Math.round(free / 2 ** 30)} GB free: one copy of the tier only (the ingest part completes the base itself)`);
      }
    }
  }
  if (parts.includes('ingest')) {
    result.ingest = await timed('ingest', () => measureIngest(target, ensured.record));
  } else if (parts.includes('copy') || parts.includes('api')) {
    await timed('prepare', () => ensureWork(target));
  }
  if (parts.includes('copy')) {
    result.copy = await timed('copy', async () => {
      const store = await target.open('work');
      try {
        return await measureCopyCeiling(target, store);
      } finally {
        await store.close();
      }
    });
  }
  if (parts.includes('api')) {
    result.api = await timed('api', () =>
      measureApi(target, ensured.record, notableAccounts(target), {
        connections,
        seconds: secondsOverride ?? tier.apiSeconds,
        logLevel: options.serverLogLevel,
        // The embedded store is one process (`quarry serve` runs no workers on it).
        workers: kind === 'pglite' ? 1 : options.workers !== undefined ? Number(options.workers) : 2,
        ...(options.cases ? { filter: new RegExp(options.cases) } : {}),
      }),
    );
  }
  return result;
}

/** Runs one part; a failure is recorded and the run goes on with the next part. */
async function attempt<T>(part: string, tier: string | undefined, fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (error) {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    log(`${part}${tier ? ` (${tier})` : ''} failed: ${message}`);
    results.errors.push({ part, ...(tier ? { tier } : {}), message });
    return undefined;
  }
}

function gitState(): BenchResults['git'] {
  try {
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], { cwd: ROOT, encoding: 'utf8' }).trim().length > 0;
    return { commit, dirty };
  } catch {
    return { commit: 'unknown', dirty: false };
  }
}
