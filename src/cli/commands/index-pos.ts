/**
 * `quarry index pos`: flags and environment into settings, signals into a stop, and a progress bar;
 * the indexer itself is ingest/index-pos.ts.
 *
 *   quarry index pos --rpc URL [--rpc-namespace qrl|zond|eth] [--beacon URL [--beacon-api qrl|zond|eth]]
 *                    [--from HEIGHT] [--follow] [--genesis FILE] [--no-traces]
 */
import type { Command } from 'commander';
import { ConfigError, loadConfig } from '../../config/env.ts';
import { indexPos, type IndexPosSettings } from '../../ingest/index-pos.ts';
import { RPC_NAMESPACES, type RpcNamespace } from '../../sources/evm-rpc/methods.ts';
import { BEACON_APIS, type BeaconApi } from '../../sources/beacon/client.ts';
import { commonIndexOptions, commonIndexSettings, indexGroup, runIndexer, wholeNumberReader, type CommonIndexOptions } from '../run-indexer.ts';

/** The indexer's settings, and whether to show the backfill's progress bar. */
export type IndexPosCliSettings = IndexPosSettings & { progress: boolean };

interface CliOptions extends CommonIndexOptions {
  rpc?: string;
  rpcNamespace?: string;
  beacon?: string;
  beaconApi?: string;
  genesis?: string;
  concurrency?: string;
  batchSize?: string;
  /** false with --no-traces (commander's negated flag). */
  traces?: boolean;
}

/** Options win over the configuration (QUARRY_POS_RPC_URL, QUARRY_POS_RPC_NAMESPACE, QUARRY_POS_BEACON_URL, QUARRY_POS_BEACON_API, QUARRY_POS_TRACES, read by config/env.ts). */
export function resolveIndexPosSettings(options: CliOptions, env: Record<string, string | undefined>): IndexPosCliSettings {
  const problems: string[] = [];
  const url = (value: string | undefined, name: string): string | undefined => {
    if (value === undefined || value.trim() === '') return undefined;
    try {
      const parsed = new URL(value.trim());
      if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return value.trim();
    } catch {
      // reported below
    }
    problems.push(`${name}: must be an http:// or https:// URL`);
    return undefined;
  };
  const count = wholeNumberReader(problems);
  const rpcUrl = url(options.rpc ?? env.QUARRY_POS_RPC_URL, options.rpc !== undefined ? '--rpc' : 'QUARRY_POS_RPC_URL');
  if (rpcUrl === undefined && problems.length === 0) problems.push('--rpc (or QUARRY_POS_RPC_URL): the execution node URL is required');
  const rawNamespace = options.rpcNamespace ?? env.QUARRY_POS_RPC_NAMESPACE;
  let namespace: RpcNamespace | undefined;
  if (rawNamespace !== undefined && rawNamespace !== '') {
    if ((RPC_NAMESPACES as readonly string[]).includes(rawNamespace)) namespace = rawNamespace as RpcNamespace;
    else problems.push(`${options.rpcNamespace !== undefined ? '--rpc-namespace' : 'QUARRY_POS_RPC_NAMESPACE'}: must be one of ${RPC_NAMESPACES.join(', ')}`);
  }
  const rawBeaconApi = options.beaconApi ?? env.QUARRY_POS_BEACON_API;
  let beaconApi: BeaconApi | undefined;
  if (rawBeaconApi !== undefined && rawBeaconApi !== '') {
    if ((BEACON_APIS as readonly string[]).includes(rawBeaconApi)) beaconApi = rawBeaconApi as BeaconApi;
    else problems.push(`${options.beaconApi !== undefined ? '--beacon-api' : 'QUARRY_POS_BEACON_API'}: must be one of ${BEACON_APIS.join(', ')}`);
  }
  const settings: IndexPosCliSettings = {
    rpcUrl: rpcUrl ?? '',
    namespace,
    beaconApi,
    beaconUrl: url(options.beacon ?? env.QUARRY_POS_BEACON_URL, options.beacon !== undefined ? '--beacon' : 'QUARRY_POS_BEACON_URL'),
    ...commonIndexSettings(options, count, 'pos'),
    genesisFile: options.genesis,
    concurrency: count(options.concurrency, '--concurrency', 8, 1, 256),
    batchSize: count(options.batchSize, '--batch-size', 100, 1, 10_000),
    noTraces: options.traces === false || env.QUARRY_POS_TRACES === 'off',
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return settings;
}

export function registerIndex(program: Command): void {
  const command = indexGroup(program)
    .command('pos')
    .description('index the pos chain (QRL 2.0) from an execution node, and staking from a beacon node')
    .option('--rpc <url>', 'execution node JSON-RPC URL (env QUARRY_POS_RPC_URL)')
    .option('--rpc-namespace <ns>', `method prefix: ${RPC_NAMESPACES.join('|')} (env QUARRY_POS_RPC_NAMESPACE; default: detected)`)
    .option('--beacon <url>', 'beacon node HTTP API URL for validators and staking figures (env QUARRY_POS_BEACON_URL)')
    .option('--beacon-api <prefix>', `beacon route prefix: ${BEACON_APIS.join('|')} (env QUARRY_POS_BEACON_API; default: detected)`)
    .option('--genesis <file>', 'genesis.json whose alloc names the balances funded at genesis')
    .option('--no-traces', 'index without internal transfers, on a node without a tracer (env QUARRY_POS_TRACES=off); the API then says they are not indexed')
    .option('--concurrency <n>', 'HTTP requests in flight to the node', '8')
    .option('--batch-size <n>', 'JSON-RPC calls per HTTP request', '100');
  commonIndexOptions(command, 'pos').action(async (options: CliOptions) => {
    const config = loadConfig();
    const settings = resolveIndexPosSettings(options, {
      QUARRY_POS_RPC_URL: config.posNode.rpcUrl,
      QUARRY_POS_RPC_NAMESPACE: config.posNode.rpcNamespace,
      QUARRY_POS_BEACON_URL: config.posNode.beaconUrl,
      QUARRY_POS_TRACES: config.posNode.traces ? 'on' : 'off',
      QUARRY_POS_BEACON_API: config.posNode.beaconApi,
    });
    await runIndexer({ chain: 'pos', config, options, progress: settings.progress }, (store, deps) => indexPos(store, settings, deps));
  });
}
