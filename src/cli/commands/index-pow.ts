/**
 * `quarry index pow`: flags and environment into settings, signals into a stop, and a progress bar;
 * the indexer itself is ingest/index-pow.ts.
 *
 *   quarry index pow --node HOST[:PORT] [--from HEIGHT] [--follow]
 */
import type { Command } from 'commander';
import { ConfigError, loadConfig } from '../../config/env.ts';
import { createLogger } from '../../log.ts';
import { DEFAULT_POW_PORT, indexPow, type IndexPowSettings } from '../../ingest/index-pow.ts';
import { StoppedError } from '../../ingest/indexer.ts';
import { migrate } from '../../store/migrate.ts';
import { openStore } from '../../store/open.ts';
import { createProgress } from '../progress.ts';

export type IndexPowCliSettings = IndexPowSettings & { progress: boolean };

interface CliOptions {
  node?: string;
  from?: string;
  follow?: boolean;
  migrate?: boolean;
  progress?: boolean;
  concurrency?: string;
  prefetch?: string;
  pollInterval?: string;
}

const HOST_PORT = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/;

/** Options win over the environment (QUARRY_POW_NODE). */
export function resolveIndexPowSettings(options: CliOptions, env: Record<string, string | undefined>): IndexPowCliSettings {
  const problems: string[] = [];
  const count = (value: string | undefined, name: string, fallback: number, min: number, max: number): number => {
    if (value === undefined) return fallback;
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      problems.push(`${name}: must be a whole number from ${min} to ${max}`);
      return fallback;
    }
    return Number(value);
  };
  const name = options.node !== undefined ? '--node' : 'QUARRY_POW_NODE';
  const raw = (options.node ?? env.QUARRY_POW_NODE ?? '').trim();
  let node = '';
  if (raw === '') {
    problems.push('--node (or QUARRY_POW_NODE): the QRL node address HOST[:PORT] is required');
  } else {
    const match = HOST_PORT.exec(raw);
    const port = match?.[2] === undefined ? DEFAULT_POW_PORT : Number(match[2]);
    if (!match || port < 1 || port > 65535) problems.push(`${name}: must be HOST or HOST:PORT (port 1-65535; default ${DEFAULT_POW_PORT})`);
    else node = `${match[1]}:${port}`;
  }
  const settings: IndexPowCliSettings = {
    node,
    fromHeight: options.from === undefined ? undefined : count(options.from, '--from', 0, 0, Number.MAX_SAFE_INTEGER),
    follow: options.follow ?? false,
    concurrency: count(options.concurrency, '--concurrency', 16, 1, 256),
    prefetch: count(options.prefetch, '--prefetch', 64, 1, 4096),
    pollIntervalMs: count(options.pollInterval, '--poll-interval', 1000, 10, 600_000),
    progress: options.progress ?? true,
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return settings;
}

export function registerIndexPow(program: Command): void {
  // `index` may already exist with other chains' subcommands.
  const index = program.commands.find((command) => command.name() === 'index') ?? program.command('index').description('index a chain from its node into the store');
  index
    .command('pow')
    .description('index the pow chain (legacy QRL) from a QRL node over gRPC')
    .option('--node <host:port>', `the node's public gRPC API (env QUARRY_POW_NODE; default port ${DEFAULT_POW_PORT})`)
    .option('--from <height>', 'first height to index (default: after the last indexed block, or 0)')
    .option('--follow', 'keep following the head after catching up')
    .option('--migrate', 'apply schema migrations first (always done on the embedded store)')
    .option('--no-progress', 'no progress bar during the backfill')
    .option('--concurrency <n>', 'gRPC calls in flight to the node', '16')
    .option('--prefetch <n>', 'blocks fetched ahead of the one being written', '64')
    .option('--poll-interval <ms>', 'how often to ask for a new head while following', '1000')
    .action(async (options: CliOptions) => {
      const config = loadConfig();
      const settings = resolveIndexPowSettings(options, { QUARRY_POW_NODE: process.env.QUARRY_POW_NODE });
      const logger = createLogger(config.logLevel);
      const store = await openStore(config, 'indexer');
      try {
        if (store.kind === 'pglite' || options.migrate) await migrate(store);
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
          const progress = settings.progress && process.stderr.isTTY ? createProgress : undefined;
          const result = await indexPow(store, settings, { logger, signal: controller.signal, progress });
          logger.info({ ...result }, 'pow indexing stopped');
        } catch (error) {
          if (!(error instanceof StoppedError)) throw error;
          logger.info(error.message);
        }
      } finally {
        await store.close();
      }
    });
}
