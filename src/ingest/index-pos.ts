/**
 * The pos indexer: blocks from an execution node's JSON-RPC through the pipeline, and (with a
 * beacon URL) the staking figures beside them. Without `follow` it indexes up to the head seen at
 * start; with it, it keeps following. It resumes from the store's checkpoint, so it is safe to stop
 * at any moment. `quarry index pos` and the benchmark call it. See docs/indexing-pos.md.
 */
import sql from 'sql-template-tag';
import type { Store } from '../store/store.ts';
import { createRpcClient } from '../sources/evm-rpc/transport.ts';
import { isRetryable } from '../sources/evm-rpc/errors.ts';
import { detectNamespace, latestHead, type EvmNode, type RpcNamespace } from '../sources/evm-rpc/methods.ts';
import { createEvmRpcSource, type TracesMode } from '../sources/evm-rpc/source.ts';
import { noTracerMessage, probeTraces } from '../sources/evm-rpc/traces-probe.ts';
import { recordInternalTransfersIndexedFrom, recordInternalTransfersNotIndexed } from '../store/internal-transfers.ts';
import { readGenesisAlloc } from '../sources/evm-rpc/genesis.ts';
import { createBeaconClient, type BeaconApi } from '../sources/beacon/client.ts';
import type { IngestResult } from './pipeline.ts';
import { followStaking } from './staking-sync.ts';
import { followChainClock } from './chain-clock.ts';
import { createEvmPoolReader } from '../sources/evm-rpc/pool.ts';
import { settleAddressWidth } from './address-width.ts';
import { logNodeRetry, runNodeIndexer, startHeight, untilReachable, type IndexerDeps, type NodeIndexSettings } from './indexer.ts';
import { nodeTipRecorder } from './node-tip.ts';

/** `concurrency` counts HTTP requests; the pool read while following is txpool_content's. */
export interface IndexPosSettings extends NodeIndexSettings {
  rpcUrl: string;
  namespace: RpcNamespace | undefined;
  beaconUrl: string | undefined;
  /** The beacon API's route prefix; detected when not given. */
  beaconApi?: BeaconApi;
  genesisFile: string | undefined;
  /** JSON-RPC calls per HTTP request. */
  batchSize: number;
  /** Index without internal transfers on a node without a tracer (else such a node is refused); recorded in the store. */
  noTraces?: boolean;
}

export async function indexPos(store: Store, settings: IndexPosSettings, deps: IndexerDeps): Promise<IngestResult> {
  const { logger, signal } = deps;
  const client = createRpcClient({
    url: settings.rpcUrl,
    concurrency: settings.concurrency,
    batchSize: settings.batchSize,
    onRetry: logNodeRetry(logger),
  });
  const namespace = settings.namespace ?? (await untilReachable('detecting the RPC namespace', () => detectNamespace(client), isRetryable, deps));
  const node: EvmNode = { client, namespace };
  node.addressBytes = await untilReachable('reading the address width', () => settleAddressWidth(store, node, settings.rpcUrl), isRetryable, deps);
  const { from } = await startHeight(store, 'pos', 'evm-rpc', settings.fromHeight);
  const knownTokens = (await store.query<{ address: string }>('index-pos.tokens', sql`SELECT address FROM token_contracts WHERE chain = 'pos'`)).map((r) => r.address);
  const head = await untilReachable('reading the head', () => latestHead(node), isRetryable, deps);
  const traces = await tracesFor(store, node, settings, from, head.height, deps);
  const source = createEvmRpcSource({
    node,
    follow: settings.follow,
    pollIntervalMs: settings.pollIntervalMs,
    genesisAlloc: settings.genesisFile ? await readGenesisAlloc(settings.genesisFile, node.addressBytes) : [],
    knownTokens,
    logger,
    traces,
    tracesRequired: traces !== 'none',
    onHead: nodeTipRecorder(store, 'pos', logger),
  });
  logger.info({ rpc: settings.rpcUrl, namespace, from, head: head.height, follow: settings.follow }, 'indexing pos');
  const staking = settings.beaconUrl ? followStaking(store, createBeaconClient({ url: settings.beaconUrl, api: settings.beaconApi }), { follow: settings.follow, logger, signal }) : undefined;
  // Without the beacon's spec, the slot time the stored blocks show (chain-clock.ts).
  const clock = followChainClock(store, 'pos', { follow: settings.follow, logger, signal });
  try {
    return await runNodeIndexer(store, source, createEvmPoolReader(node), { from, head: head.height, caughtUpFields: () => source.capabilities() }, settings, deps);
  } finally {
    await clock.done();
    await staking?.done();
    client.close();
  }
}

/**
 * The tracer the run uses: the node's, found at start; none with `noTraces`, recorded in the store
 * from the first height indexed. A node without one is refused unless told (docs/indexing-pos.md,
 * "Capabilities").
 */
async function tracesFor(store: Store, node: EvmNode, settings: IndexPosSettings, from: number, head: number, deps: IndexerDeps): Promise<TracesMode> {
  if (settings.noTraces) {
    await recordInternalTransfersNotIndexed(store, 'pos', from);
    deps.logger.warn({ from }, 'indexing without internal transfers (--no-traces): balances of contracts that pass value on will be wrong');
    return 'none';
  }
  const mode = await untilReachable('asking for the node\'s tracer', () => probeTraces(node, head), isRetryable, deps);
  if (mode === 'none') throw new Error(noTracerMessage(settings.rpcUrl));
  await recordInternalTransfersIndexedFrom(store, 'pos', from);
  return mode;
}
