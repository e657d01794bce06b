/**
 * `quarry index pos`: indexes the pos chain (QRL 2.0) from an execution node's JSON-RPC, and its
 * staking figures from a beacon node, into the store.
 *
 *   quarry index pos --rpc URL [--rpc-namespace qrl|zond|eth] [--beacon URL] [--from HEIGHT]
 *                    [--follow] [--genesis FILE]
 *
 * Without --follow it indexes up to the node's head as seen at start and exits 0; with it, it
 * keeps following the head. It resumes from the store's checkpoint, so it is safe to stop (Ctrl-C,
 * SIGTERM, or a kill) and start again at any moment. A progress bar shows the backfill; structured
 * logs (pino) report while following. See docs/indexing-pos.md.
 */
import type { Command } from 'commander';
import cliProgress from 'cli-progress';
import type { Logger } from 'pino';
import sql from 'sql-template-tag';
import { ConfigError, loadConfig } from '../../config/env.ts';
import type { BlockSource, SourceItem } from '../../chain/model.ts';
import { createLogger } from '../../log.ts';
import { ingest, type IngestResult } from '../../ingest/pipeline.ts';
import { readCheckpoint } from '../../ingest/checkpoint.ts';
import { migrate } from '../../store/migrate.ts';
import { openStore } from '../../store/open.ts';
import type { Store } from '../../store/store.ts';
import { createRpcClient } from '../../sources/evm-rpc/transport.ts';
import { isRetryable } from '../../sources/evm-rpc/errors.ts';
import { detectNamespace, latestHead, RPC_NAMESPACES, type EvmNode, type RpcNamespace } from '../../sources/evm-rpc/methods.ts';
import { createEvmRpcSource, type EvmRpcSource } from '../../sources/evm-rpc/source.ts';
import { readGenesisAlloc } from '../../sources/evm-rpc/genesis.ts';
import { createBeaconClient } from '../../sources/beacon/client.ts';
import { syncStaking } from '../../sources/beacon/staking.ts';

export interface IndexPosSettings {
  rpcUrl: string;
  namespace: RpcNamespace | undefined;
  beaconUrl: string | undefined;
  fromHeight: number | undefined;
  follow: boolean;
  genesisFile: string | undefined;
  concurrency: number;
  batchSize: number;
  pollIntervalMs: number;
  progress: boolean;
}

interface CliOptions {
  rpc?: string;
  rpcNamespace?: string;
  beacon?: string;
  from?: string;
  follow?: boolean;
  genesis?: string;
  migrate?: boolean;
  progress?: boolean;
  concurrency?: string;
  batchSize?: string;
  pollInterval?: string;
}

/** Options win over the configuration (QUARRY_POS_RPC_URL, QUARRY_POS_RPC_NAMESPACE, QUARRY_POS_BEACON_URL, read by config/env.ts). */
export function resolveIndexPosSettings(options: CliOptions, env: Record<string, string | undefined>): IndexPosSettings {
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
  const count = (value: string | undefined, name: string, fallback: number, min: number, max: number): number => {
    if (value === undefined) return fallback;
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      problems.push(`${name}: must be a whole number from ${min} to ${max}`);
      return fallback;
    }
    return Number(value);
  };
  const rpcUrl = url(options.rpc ?? env.QUARRY_POS_RPC_URL, options.rpc !== undefined ? '--rpc' : 'QUARRY_POS_RPC_URL');
  if (rpcUrl === undefined && problems.length === 0) problems.push('--rpc (or QUARRY_POS_RPC_URL): the execution node URL is required');
  const rawNamespace = options.rpcNamespace ?? env.QUARRY_POS_RPC_NAMESPACE;
  let namespace: RpcNamespace | undefined;
  if (rawNamespace !== undefined && rawNamespace !== '') {
    if ((RPC_NAMESPACES as readonly string[]).includes(rawNamespace)) namespace = rawNamespace as RpcNamespace;
    else problems.push(`${options.rpcNamespace !== undefined ? '--rpc-namespace' : 'QUARRY_POS_RPC_NAMESPACE'}: must be one of ${RPC_NAMESPACES.join(', ')}`);
  }
  const settings: IndexPosSettings = {
    rpcUrl: rpcUrl ?? '',
    namespace,
    beaconUrl: url(options.beacon ?? env.QUARRY_POS_BEACON_URL, options.beacon !== undefined ? '--beacon' : 'QUARRY_POS_BEACON_URL'),
    fromHeight: options.from === undefined ? undefined : count(options.from, '--from', 0, 0, Number.MAX_SAFE_INTEGER),
    follow: options.follow ?? false,
    genesisFile: options.genesis,
    concurrency: count(options.concurrency, '--concurrency', 8, 1, 256),
    batchSize: count(options.batchSize, '--batch-size', 100, 1, 10_000),
    pollIntervalMs: count(options.pollInterval, '--poll-interval', 1000, 10, 600_000),
    progress: options.progress ?? true,
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return settings;
}

export function registerIndex(program: Command): void {
  // `index` may already exist with other chains' subcommands.
  const index = program.commands.find((command) => command.name() === 'index') ?? program.command('index').description('index a chain from its node into the store');
  index
    .command('pos')
    .description('index the pos chain (QRL 2.0) from an execution node, and staking from a beacon node')
    .option('--rpc <url>', 'execution node JSON-RPC URL (env QUARRY_POS_RPC_URL)')
    .option('--rpc-namespace <ns>', `method prefix: ${RPC_NAMESPACES.join('|')} (env QUARRY_POS_RPC_NAMESPACE; default: detected)`)
    .option('--beacon <url>', 'beacon node HTTP API URL for validators and staking figures (env QUARRY_POS_BEACON_URL)')
    .option('--from <height>', 'first height to index (default: after the last indexed block, or 0)')
    .option('--follow', 'keep following the head after catching up')
    .option('--genesis <file>', 'genesis.json whose alloc names the balances funded at genesis')
    .option('--migrate', 'apply schema migrations first (always done on the embedded store)')
    .option('--no-progress', 'no progress bar during the backfill')
    .option('--concurrency <n>', 'HTTP requests in flight to the node', '8')
    .option('--batch-size <n>', 'JSON-RPC calls per HTTP request', '100')
    .option('--poll-interval <ms>', 'how often to ask for a new head while following', '1000')
    .action(async (options: CliOptions) => {
      const config = loadConfig();
      const settings = resolveIndexPosSettings(options, {
        QUARRY_POS_RPC_URL: config.posNode.rpcUrl,
        QUARRY_POS_RPC_NAMESPACE: config.posNode.rpcNamespace,
        QUARRY_POS_BEACON_URL: config.posNode.beaconUrl,
      });
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
          const result = await indexPos(store, settings, { logger, signal: controller.signal });
          logger.info({ ...result }, 'pos indexing stopped');
        } catch (error) {
          if (!(error instanceof StoppedError)) throw error;
          logger.info(error.message);
        }
      } finally {
        await store.close();
      }
    });
}

export interface IndexPosDeps {
  logger: Logger;
  signal?: AbortSignal;
}

/** Runs the indexer (the command's body, callable from tests). */
export async function indexPos(store: Store, settings: IndexPosSettings, deps: IndexPosDeps): Promise<IngestResult> {
  const { logger, signal } = deps;
  const client = createRpcClient({
    url: settings.rpcUrl,
    concurrency: settings.concurrency,
    batchSize: settings.batchSize,
    onRetry: ({ method, attempt, delayMs, error }) => logger.debug({ method, attempt, delayMs, err: error.message }, 'node call retried'),
  });
  const namespace = settings.namespace ?? (await untilReachable('detecting the RPC namespace', () => detectNamespace(client), logger, signal));
  const node: EvmNode = { client, namespace };
  const stored = await readCheckpoint(store, 'pos', 'evm-rpc');
  // BIGINT columns may arrive as strings.
  const checkpoint = stored ? { height: Number(stored.height), hash: stored.hash } : null;
  if (settings.fromHeight !== undefined && checkpoint && settings.fromHeight > checkpoint.height + 1) {
    throw new ConfigError([`--from ${settings.fromHeight}: the store holds pos up to ${checkpoint.height}; a gap would leave balances wrong (omit --from to resume)`]);
  }
  const knownTokens = (await store.query<{ address: string }>('index-pos.tokens', sql`SELECT address FROM token_contracts WHERE chain = 'pos'`)).map((r) => r.address);
  const source = createEvmRpcSource({
    node,
    follow: settings.follow,
    pollIntervalMs: settings.pollIntervalMs,
    genesisAlloc: settings.genesisFile ? await readGenesisAlloc(settings.genesisFile) : [],
    knownTokens,
    logger,
  });
  signal?.addEventListener('abort', () => source.close(), { once: true });

  const from = settings.fromHeight ?? (checkpoint ? checkpoint.height + 1 : 0);
  const head = await untilReachable('reading the head', () => latestHead(node), logger, signal);
  logger.info({ rpc: settings.rpcUrl, namespace, from, head: head.height, follow: settings.follow }, 'indexing pos');

  const showBar = settings.progress && process.stderr.isTTY === true && head.height >= from;
  const progress = createProgress(showBar, Math.max(0, head.height - from + 1));
  let following = false;
  const watched: BlockSource = {
    chain: source.chain,
    name: source.name,
    hashAt: source.hashAt?.bind(source),
    blockAt: source.blockAt?.bind(source),
    async *blocks(fromHeight: number): AsyncIterable<SourceItem> {
      for await (const item of source.blocks(fromHeight)) {
        if (item.kind === 'block') progress.tick(item.block.height);
        if (item.kind === 'caught-up' && !following) {
          progress.stop();
          const { receipts, traces } = (source as EvmRpcSource).capabilities();
          logger.info({ height: progress.height(), receipts, traces }, settings.follow ? 'caught up with the node; following its head' : 'caught up with the node');
          following = true;
        }
        yield item;
      }
    },
  };

  const staking = settings.beaconUrl ? stakingLoop(store, settings.beaconUrl, settings.follow, logger, signal) : undefined;
  try {
    const result = await ingest(store, watched, {
      fromHeight: settings.fromHeight,
      logger,
      signal,
      onProgress: (p) => {
        if (following) logger.info({ height: p.height, blocks: p.blocks, transactions: p.transactions, reorgs: p.reorgs, deadLetters: p.deadLetters }, 'pos blocks written');
      },
    });
    return result;
  } finally {
    progress.stop();
    source.close();
    await staking?.done(true);
    client.close();
  }
}

/** Stopped (SIGINT/SIGTERM) before the node answered at all: nothing to write, not a failure. */
export class StoppedError extends Error {
  override name = 'StoppedError';
}

/** Waits out a node that is down or starting (retryable failures), until it answers or we are stopped. */
async function untilReachable<T>(what: string, fn: () => Promise<T>, logger: Logger, signal: AbortSignal | undefined): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (signal?.aborted) throw new StoppedError(`stopped while ${what}`);
      if (!isRetryable(error)) throw error;
      const delayMs = Math.min(30_000, 1000 * attempt);
      logger.warn({ err: error instanceof Error ? error.message : String(error), delayMs }, `${what}: the node does not answer; waiting`);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}

/** The backfill's bar: blocks, blocks/s and ETA (on stderr, only on a terminal). */
function createProgress(enabled: boolean, total: number) {
  const started = Date.now();
  let done = 0;
  let height = -1;
  let stopped = !enabled;
  const bar = enabled
    ? new cliProgress.SingleBar(
        { format: 'pos {bar} {value}/{total} blocks | {speed} blocks/s | ETA {eta_formatted} | height {height}', stream: process.stderr, etaBuffer: 200, hideCursor: true },
        cliProgress.Presets.shades_classic,
      )
    : undefined;
  bar?.start(total, 0, { speed: '0', height: '-' });
  return {
    tick(h: number) {
      done++;
      height = h;
      if (!stopped) {
        if (done > total) bar!.setTotal(done);
        bar!.update(done, { speed: (done / Math.max(0.001, (Date.now() - started) / 1000)).toFixed(1), height: String(h) });
      }
    },
    height: () => height,
    stop() {
      if (!stopped) bar!.stop();
      stopped = true;
    },
  };
}

/**
 * Staking figures from the beacon node: once after the backfill, and every epoch-ish while
 * following. A failure is logged and retried next round; it never stops block indexing.
 */
function stakingLoop(store: Store, url: string, follow: boolean, logger: Logger, signal: AbortSignal | undefined) {
  const beacon = createBeaconClient({ url });
  let stopping = false;
  let wake: (() => void) | undefined;
  const run = async () => {
    try {
      const result = await syncStaking(store, beacon, { logger });
      logger.info({ validators: result.validators, days: result.days, finalizedEpoch: result.finalizedEpoch }, 'staking figures updated');
    } catch (error) {
      logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'staking figures not updated');
    }
  };
  const stop = () => {
    stopping = true;
    wake?.();
  };
  signal?.addEventListener('abort', stop, { once: true });
  const loop = (async () => {
    if (!follow) return;
    while (!stopping) {
      await run();
      if (stopping) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 384_000); // one Ethereum-style epoch (32 × 12 s)
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  })();
  return {
    async done(final: boolean) {
      stop();
      await loop;
      if (final && !follow && !signal?.aborted) await run();
    },
  };
}
