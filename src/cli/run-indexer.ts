/**
 * What `quarry index pos` and `quarry index pow` do around their indexer: open the store (migrated
 * when asked, always on the embedded one), take the chain's writer lock and hold it to the end
 * (store/writer-lock.ts: a second writer of the chain exits at once, naming this one), turn the first
 * SIGINT/SIGTERM into a stop that writes what is fetched (a second one exits at once), show the
 * progress bar on a terminal, serve its Prometheus metrics when a metrics port is set
 * (indexer-metrics.ts), and log the result. And the options both commands take alike
 * (`commonIndexOptions`, read by `commonIndexSettings`), listed after each chain's own.
 */
import type { Command } from 'commander';
import { ConfigError, type Config } from '../config/env.ts';
import type { ChainId } from '../chain/chains.ts';
import { DEFAULT_MAX_REORG_DEPTH, StoppedError, type IndexerDeps } from '../ingest/indexer.ts';
import { DEFAULT_PENDING_INTERVAL_MS } from '../ingest/pending.ts';
import { createLogger } from '../log.ts';
import { migrate } from '../store/migrate.ts';
import { openStore } from '../store/open.ts';
import type { Store } from '../store/store.ts';
import { acquireWriterLock, type WriterLock } from '../store/writer-lock.ts';
import { createProgress } from './progress.ts';
import { createIndexerMetrics } from './indexer-metrics.ts';
import { serveMetrics, type MetricsServer } from '../api/metrics/registry.ts';

export interface RunIndexerOptions {
  chain: 'pos' | 'pow';
  config: Config;
  /** The command's options: `--migrate`, and `--metrics-port` (else QUARRY_METRICS_PORT; none when unset or metrics are off). */
  options: CommonIndexOptions;
  /** Whether to show the backfill's progress bar (on a terminal). */
  progress: boolean;
}

export async function runIndexer(
  options: RunIndexerOptions,
  /** `deps.writerLock` is the chain's writer lock, held while `index` runs (taken again after a store outage). */
  index: (store: Store, deps: IndexerDeps) => Promise<object>,
): Promise<void> {
  const metricsPort = resolveMetricsPort(options.options.metricsPort, options.config);
  const logger = createLogger(options.config.logLevel);
  const store = await openStore(options.config, 'indexer');
  let lock: WriterLock | undefined;
  const metrics = options.config.metrics.enabled && metricsPort !== undefined ? createIndexerMetrics(store, [options.chain]) : undefined;
  let metricsServer: MetricsServer | undefined;
  try {
    if (metrics) {
      metricsServer = await serveMetrics(metrics.registry, options.config.host, metricsPort!);
      logger.info({ url: metricsServer.url }, 'indexer metrics');
    }
    if (store.kind === 'pglite' || options.options.migrate) await migrate(store);
    lock = await acquireWriterLock(store, [options.chain], { command: `index ${options.chain}`, logger });
    const controller = new AbortController();
    let signals = 0;
    const stop = () => {
      if (++signals > 1) process.exit(130);
      logger.info('stopping: writing what is fetched, then exiting (again to force)');
      controller.abort();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    try {
      const progress = options.progress && process.stderr.isTTY ? createProgress : undefined;
      const result = await index(store, { logger, signal: controller.signal, progress, writerLock: lock });
      logger.info({ ...result }, `${options.chain} indexing stopped`);
    } catch (error) {
      if (!(error instanceof StoppedError)) throw error;
      logger.info(error.message);
    }
  } finally {
    await metricsServer?.close();
    metrics?.close();
    await lock?.release();
    await store.close();
  }
}

/** The indexer's metrics port: `--metrics-port`, else QUARRY_METRICS_PORT, else none. */
function resolveMetricsPort(option: string | undefined, config: Config): number | undefined {
  if (option === undefined) return config.metrics.port;
  const problems: string[] = [];
  const port = wholeNumberReader(problems)(option, '--metrics-port', 0, 0, 65535);
  if (problems.length > 0) throw new ConfigError(problems);
  return port;
}

/** The options every `quarry index` command takes alike, after its own (`commonIndexSettings` and `runIndexer` read them). */
export function commonIndexOptions(command: Command, chain: ChainId): Command {
  return command
    .option('--from <height>', 'first height to index (default: after the last indexed block, or 0)')
    .option('--follow', 'keep following the head after catching up')
    .option('--poll-interval <ms>', 'how often to ask for a new head while following', '1000')
    .option('--pending-interval <ms>', 'how often to read the node\'s pool of pending transactions while following (0: never)', String(DEFAULT_PENDING_INTERVAL_MS))
    .option('--max-reorg-depth <n>', `deepest reorg rolled back; a deeper fork stops the chain (default ${DEFAULT_MAX_REORG_DEPTH[chain]}; docs/ingest.md)`)
    .option('--migrate', 'apply schema migrations first (always done on the embedded store)')
    .option('--no-progress', 'no progress bar during the backfill')
    .option('--metrics-port <port>', 'serve Prometheus metrics at /metrics on this port (env QUARRY_METRICS_PORT; off with QUARRY_METRICS=off)');
}

/** `quarry index`, the group both chains' commands join (whichever registers first creates it). */
export function indexGroup(program: Command): Command {
  return program.commands.find((command) => command.name() === 'index') ?? program.command('index').description('index a chain from its node into the store');
}

/** A reader of whole-number options: what is out of `min`..`max` goes to `problems` and the fallback is used. */
export function wholeNumberReader(problems: string[]) {
  return (value: string | undefined, name: string, fallback: number, min: number, max: number): number => {
    if (value === undefined) return fallback;
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      problems.push(`${name}: must be a whole number from ${min} to ${max}`);
      return fallback;
    }
    return Number(value);
  };
}

export interface CommonIndexOptions {
  from?: string;
  maxReorgDepth?: string;
  follow?: boolean;
  pollInterval?: string;
  pendingInterval?: string;
  progress?: boolean;
  migrate?: boolean;
  metricsPort?: string;
}

/** The settings every `quarry index` command takes the same way. */
export function commonIndexSettings(options: CommonIndexOptions, count: ReturnType<typeof wholeNumberReader>, chain: ChainId) {
  return {
    fromHeight: options.from === undefined ? undefined : count(options.from, '--from', 0, 0, Number.MAX_SAFE_INTEGER),
    maxReorgDepth: count(options.maxReorgDepth, '--max-reorg-depth', DEFAULT_MAX_REORG_DEPTH[chain], 1, Number.MAX_SAFE_INTEGER),
    follow: options.follow ?? false,
    pollIntervalMs: count(options.pollInterval, '--poll-interval', 1000, 10, 600_000),
    pendingIntervalMs: count(options.pendingInterval, '--pending-interval', DEFAULT_PENDING_INTERVAL_MS, 0, 600_000),
    progress: options.progress ?? true,
  };
}
