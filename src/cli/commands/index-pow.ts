/**
 * `quarry index pow`: flags and environment into settings, signals into a stop, and a progress bar;
 * the indexer itself is ingest/index-pow.ts.
 *
 *   quarry index pow --node HOST[:PORT] [--from HEIGHT] [--follow]
 */
import type { Command } from 'commander';
import { ConfigError, loadConfig } from '../../config/env.ts';
import { DEFAULT_POW_PORT, indexPow, type IndexPowSettings } from '../../ingest/index-pow.ts';
import { commonIndexSettings, indexGroup, maxReorgDepthOption, metricsPortOption, resolveMetricsPort, runIndexer, wholeNumberReader } from '../run-indexer.ts';

export type IndexPowCliSettings = IndexPowSettings & { progress: boolean };

interface CliOptions {
  metricsPort?: string;
  node?: string;
  from?: string;
  maxReorgDepth?: string;
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
  const count = wholeNumberReader(problems);
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
    ...commonIndexSettings(options, count, 'pow'),
    concurrency: count(options.concurrency, '--concurrency', 16, 1, 256),
    prefetch: count(options.prefetch, '--prefetch', 64, 1, 4096),
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return settings;
}

export function registerIndexPow(program: Command): void {
  const command = indexGroup(program).command('pow');
  metricsPortOption(maxReorgDepthOption(command, 'pow'))
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
      await runIndexer({ chain: 'pow', config, migrate: Boolean(options.migrate), progress: settings.progress, metricsPort: resolveMetricsPort(options.metricsPort, config) }, (store, deps) => indexPow(store, settings, deps));
    });
}
