/**
 * The chains' state as metrics, read from the store when scraped: each chain's indexed tip, its
 * node's tip and the lag between them, blocks indexed, open dead letters and a recorded stall; and
 * the store's replication lag when it is a standby. Two statements, each on small tables or one
 * index probe per chain, and their answer is kept for a short while (`ttlMs`), shared by the
 * scrapes that arrive meanwhile, so a flood of scrapes costs the store at most one read per period.
 */
import sql from 'sql-template-tag';
import { Gauge, type Registry } from 'prom-client';
import { CHAINS, type ChainId } from '../../chain/chains.ts';
import type { Store } from '../../store/store.ts';
import { readReplication } from '../../store/replication.ts';
import { METRIC_PREFIX } from './registry.ts';

export interface ChainState {
  chain: ChainId;
  tipHeight: number | null;
  tipTs: number | null;
  blocksIndexed: number;
  deadLettersOpen: number;
  nodeTipHeight: number | null;
  nodeTipSeenTs: number | null;
  stallHeight: number | null;
  stallSinceTs: number | null;
}

export interface MonitoringState {
  chains: ChainState[];
  /** The store is a standby (pg_is_in_recovery). */
  standby: boolean;
  /** Seconds the standby's replay is behind (0 when all it received is replayed); null on a primary. */
  replicaLagSeconds: number | null;
  /** Bytes of WAL the standby received and has not replayed; null on a primary. */
  replicaLagBytes: number | null;
}

/** How long a read of the chains' state serves scrapes. */
export const CHAIN_STATE_TTL_MS = 5000;

type Num = number | string | null;
const num = (value: Num): number | null => (value === null ? null : Number(value));

/**
 * What /metrics and /readyz report of the store: each chain's tip, blocks, open dead letters and node
 * tip, and the replication (the freshness headers' own read of the snapshot and tips is plugins/freshness.ts).
 */
export async function readMonitoringState(store: Store): Promise<MonitoringState> {
  const rows = await store.query<{
    chain: ChainId;
    tip_height: Num;
    tip_ts: Num;
    blocks: Num;
    dead_letters: Num;
    node_height: Num;
    node_seen_ts: Num;
    stall_height: Num;
    stall_since_ts: Num;
  }>(
    'metrics.chains',
    sql`SELECT c.chain, t.height AS tip_height, t.ts AS tip_ts,
               (SELECT s.block_count FROM chain_stats s WHERE s.chain = c.chain) AS blocks,
               (SELECT count(*) FROM dead_letters d WHERE d.chain = c.chain AND d.resolved_ts IS NULL) AS dead_letters,
               n.height AS node_height, n.seen_ts AS node_seen_ts, st.height AS stall_height, st.since_ts AS stall_since_ts
        FROM unnest(${[...CHAINS]}::text[]) AS c(chain)
        LEFT JOIN LATERAL (SELECT b.height, b.ts FROM blocks b WHERE b.chain = c.chain ORDER BY b.height DESC LIMIT 1) AS t ON true
        LEFT JOIN chain_node_tips n ON n.chain = c.chain
        LEFT JOIN ingest_stalls st ON st.chain = c.chain
        ORDER BY c.chain`,
  );
  const replica = await readReplication(store);
  return {
    chains: rows.map((row) => ({
      chain: row.chain,
      tipHeight: num(row.tip_height),
      tipTs: num(row.tip_ts),
      blocksIndexed: num(row.blocks) ?? 0,
      deadLettersOpen: num(row.dead_letters) ?? 0,
      nodeTipHeight: num(row.node_height),
      nodeTipSeenTs: num(row.node_seen_ts),
      stallHeight: num(row.stall_height),
      stallSinceTs: num(row.stall_since_ts),
    })),
    standby: replica.role === 'standby',
    replicaLagSeconds: replica.lagSeconds,
    replicaLagBytes: replica.lagBytes,
  };
}

/**
 * `read` kept for `ttlMs` after it succeeds, one read in flight at a time; a failed read is not
 * kept (the next scrape tries again) and answers null.
 */
export function cachedReader<T>(read: () => Promise<T>, ttlMs: number, now: () => number = Date.now): () => Promise<T | null> {
  let kept: { value: T; at: number } | undefined;
  let inFlight: Promise<T | null> | undefined;
  return () => {
    if (kept && now() - kept.at < ttlMs) return Promise.resolve(kept.value);
    inFlight ??= read().then(
      (value) => {
        kept = { value, at: now() };
        return value;
      },
      () => null,
    ).finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };
}

/**
 * Registers the chain gauges, filled at each scrape from `state` (null: the store did not answer:
 * `quarry_store_up` is 0 and the chains' gauges are absent). `skip` says the store is known to be down (the API's outage
 * guard): the scrape then does not wait on it.
 */
export function registerChainMetrics(registry: Registry, state: () => Promise<MonitoringState | null>, skip: () => boolean = () => false): void {
  // One read fills every gauge: prom-client collects them all at once for a scrape, and they
  // share the fill in flight.
  let filled: Promise<void> | undefined;
  const collect = async () => {
    filled ??= fill().finally(() => setImmediate(() => (filled = undefined)));
    await filled;
  };
  // With `quarry serve --workers N` one scrape sums every worker's metrics (src/cli/cluster.ts);
  // these describe the one store they all read, so the workers' values are combined by max (and
  // `quarry_store_up` by min: down when any worker's read failed), never summed.
  const gauge = (name: string, help: string, labelNames: string[] = ['chain'], aggregator: 'max' | 'min' = 'max') =>
    new Gauge({ name: `${METRIC_PREFIX}${name}`, help, labelNames, registers: [registry], collect, aggregator });
  const up = gauge('store_up', 'Whether the store answered the last read of the chains\' state (1) or not (0).', [], 'min');
  const tip = gauge('chain_tip_height', 'Height of the latest indexed block.');
  const tipTime = gauge('chain_tip_timestamp_seconds', 'Block time of the latest indexed block (Unix seconds).');
  const nodeTip = gauge('chain_node_tip_height', 'Height of the node\'s tip as the indexer last saw it.');
  const nodeSeen = gauge('chain_node_tip_seen_timestamp_seconds', 'When the indexer last saw the node\'s tip (Unix seconds).');
  const lag = gauge('chain_node_lag_blocks', 'Blocks the indexed tip is behind the node\'s tip (0 when level).');
  const blocks = gauge('chain_blocks_indexed', 'Blocks whose rollups are applied (chain_stats).');
  const deadLetters = gauge('chain_dead_letters_open', 'Dead letters not yet resolved.');
  const stalled = gauge('chain_stalled', 'Whether the indexer recorded a stall for the chain (1) or not (0).');
  const stallHeight = gauge('chain_stall_height', 'The height a stalled chain cannot write.');
  const stallSince = gauge('chain_stalled_since_timestamp_seconds', 'When the chain stalled (Unix seconds).');
  const standby = gauge('store_standby', 'Whether the store is a standby (streaming replica) (1) or a primary (0).', []);
  const replicaLag = gauge('store_replica_lag_seconds', 'Seconds a standby\'s replay is behind its primary (0 on a primary).', []);
  const replicaLagBytes = gauge('store_replica_lag_bytes', 'Bytes of WAL a standby received and has not replayed yet (0 on a primary).', []);
  const perChain = [tip, tipTime, nodeTip, nodeSeen, lag, blocks, deadLetters, stalled, stallHeight, stallSince];

  const fill = async () => {
    const current = skip() ? null : await state();
    // Labelled gauges left unset are absent: a chain's figure is shown only as last read. The two
    // store gauges have no labels, so they keep their last value while `quarry_store_up` is 0.
    for (const g of perChain) g.reset();
    up.set(current ? 1 : 0);
    if (!current) return;
    for (const c of current.chains) {
      const labels = { chain: c.chain };
      if (c.tipHeight !== null) tip.set(labels, c.tipHeight);
      if (c.tipTs !== null) tipTime.set(labels, c.tipTs);
      if (c.nodeTipHeight !== null) {
        nodeTip.set(labels, c.nodeTipHeight);
        lag.set(labels, Math.max(0, c.nodeTipHeight - (c.tipHeight ?? -1)));
      }
      if (c.nodeTipSeenTs !== null) nodeSeen.set(labels, c.nodeTipSeenTs);
      blocks.set(labels, c.blocksIndexed);
      deadLetters.set(labels, c.deadLettersOpen);
      stalled.set(labels, c.stallHeight === null ? 0 : 1);
      if (c.stallHeight !== null) stallHeight.set(labels, c.stallHeight);
      if (c.stallSinceTs !== null) stallSince.set(labels, c.stallSinceTs);
    }
    standby.set(current.standby ? 1 : 0);
    replicaLag.set(current.replicaLagSeconds ?? 0);
    replicaLagBytes.set(current.replicaLagBytes ?? 0);
  };
}
