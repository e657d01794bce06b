/**
 * `quarry index pow`: flags and environment into settings, signals into a stop, and a progress bar;
 * the indexer itself is ingest/index-pow.ts.
 *
 *   quarry index pow --node HOST[:PORT] [--from HEIGHT] [--follow]
 *   quarry index pow --archive DIR|shards.json [--node HOST[:PORT] [--follow]]
 */
import type { Command } from 'commander';
import { ConfigError, loadConfig } from '../../config/env.ts';
import { DEFAULT_POW_PORT, indexPow, indexPowArchive, type IndexPowSettings } from '../../ingest/index-pow.ts';
import { commonIndexOptions, commonIndexSettings, indexGroup, runIndexer, wholeNumberReader, type CommonIndexOptions } from '../run-indexer.ts';

export type IndexPowCliSettings = IndexPowSettings & {
  progress: boolean;
  /** A QRL v1 archive (its directory or shards.json) to index first; `node` is then optional ('' when none). */
  archive?: string;
};

interface CliOptions extends CommonIndexOptions {
  node?: string;
  archive?: string;
  concurrency?: string;
  prefetch?: string;
}

const HOST_PORT = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/;

/** Options win over the environment (QUARRY_POW_NODE, not read with --archive). */
export function resolveIndexPowSettings(options: CliOptions, env: Record<string, string | undefined>): IndexPowCliSettings {
  const problems: string[] = [];
  const count = wholeNumberReader(problems);
  const name = options.node !== undefined ? '--node' : 'QUARRY_POW_NODE';
  const archive = options.archive?.trim();
  // With an archive a node takes over only when named on the command line, not from the environment.
  const raw = (options.node ?? (archive === undefined ? env.QUARRY_POW_NODE : undefined) ?? '').trim();
  let node = '';
  if (archive === '') problems.push('--archive: the path of a QRL v1 archive (its directory or shards.json) is required');
  if (archive !== undefined && options.from !== undefined) problems.push('--from: not with --archive (an archive is indexed from genesis, and resumes after the last indexed block)');
  if (raw === '') {
    if (archive === undefined) problems.push('--node (or QUARRY_POW_NODE): the QRL node address HOST[:PORT] is required');
    else if (options.follow) problems.push('--follow: needs --node (an archive has no head to follow)');
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
    ...(archive === undefined ? {} : { archive }),
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return settings;
}

export function registerIndexPow(program: Command): void {
  const command = indexGroup(program)
    .command('pow')
    .description('index the pow chain (legacy QRL) from a QRL node over gRPC, or from a QRL v1 archive')
    .option('--node <host:port>', `the node's public gRPC API (env QUARRY_POW_NODE; default port ${DEFAULT_POW_PORT}); with --archive, takes over at the archive's terminal block`)
    .option('--archive <path>', 'a QRL v1 archive (its directory, or its shards.json): its blocks first, checked shard by shard; without --node the chain is final at its terminal block')
    .option('--concurrency <n>', 'gRPC calls in flight to the node', '16')
    .option('--prefetch <n>', 'blocks fetched ahead of the one being written', '64');
  commonIndexOptions(command, 'pow').action(async (options: CliOptions) => {
    const config = loadConfig();
    const settings = resolveIndexPowSettings(options, { QUARRY_POW_NODE: process.env.QUARRY_POW_NODE });
    const { archive, ...nodeSettings } = settings;
    await runIndexer({ chain: 'pow', config, options, progress: settings.progress }, (store, deps) =>
      archive === undefined ? indexPow(store, nodeSettings, deps) : indexPowArchive(store, { archive, node: nodeSettings.node === '' ? undefined : nodeSettings }, deps),
    );
  });
}
