/**
 * What the soak watches while it runs, each on its own timer and each filed under the phase:
 * - lag: each node's head against the height its indexer has stored (the primary's checkpoints);
 * - readiness: /readyz of each API, its status and what it says of the replica and the chains;
 * - memory: the resident memory of every process of the deployment, from /proc;
 * - metrics: a few of the series docs/deploy.md says to alert on, from each /metrics;
 * - size: the primary's database size against the blocks stored.
 */
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import pg from 'pg';
import type { ChainId } from '../../src/chain/chains.ts';
import type { Timeline } from './timeline.ts';

export interface LagSample {
  at: number;
  phase: string;
  chain: ChainId;
  node: number;
  /** The stored height; null when the primary did not answer. */
  indexed: number | null;
}

export interface ReadySample {
  at: number;
  phase: string;
  target: string;
  /** The HTTP status, or null when the connection failed. */
  status: number | null;
  body: { status?: string; replica?: { role: string; lag_seconds: number | null; lag_bytes: number | null }; chains?: Record<string, { tip_height: number | null }> } | null;
}

export interface MemorySample {
  at: number;
  phase: string;
  role: string;
  pid: number;
  rssMb: number;
  /** Private memory (RssAnon): what grows in a leak; PostgreSQL's shared buffers are not in it. */
  anonMb: number;
  /** Seconds the process had been running. */
  ageSeconds: number;
  /** CPU seconds it (and, summed, its descendants) had used. */
  cpuSeconds: number;
  /** Sampled with its descendants (PostgreSQL's backends): each process's private memory (MB) by pid, the sampled one included. */
  processes?: Record<number, number>;
}

/** A process to sample: one pid, or a process and its descendants summed (PostgreSQL's backends). */
export interface Watched {
  role: string;
  pid: number | undefined;
  withChildren?: boolean;
}

export interface MetricSample {
  at: number;
  phase: string;
  source: string;
  series: Record<string, number>;
}

export interface SizeSample {
  at: number;
  phase: string;
  bytes: number;
  blocks: number;
}

/**
 * The series kept from each scrape: what docs/deploy.md's "What to watch" alerts on, and V8's heap
 * by space and the memory outside it (HEAP_SERIES), which tell a young generation sized to the load
 * from memory that is kept.
 */
const KEPT_SERIES = /^(quarry_store_up|quarry_chain_node_lag_blocks|quarry_chain_stalled|quarry_store_replica_lag_seconds|quarry_store_replica_lag_bytes|quarry_store_query_errors_total|quarry_indexer_blocks_reverted_total|quarry_http_requests_total|quarry_chain_node_tip_seen_timestamp_seconds|quarry_nodejs_heap_space_size_total_bytes|quarry_nodejs_heap_space_size_used_bytes|quarry_nodejs_external_memory_bytes|quarry_process_resident_memory_bytes|quarry_process_start_time_seconds)(\{[^}]*\})? ([0-9.e+-]+)$/;
/** The kept series that describe a process's memory rather than what an operator alerts on. */
export const HEAP_SERIES = /^quarry_(nodejs_heap_space_size_|nodejs_external_memory_bytes|process_resident_memory_bytes|process_start_time_seconds)/;

export class Samplers {
  readonly lag: LagSample[] = [];
  readonly ready: ReadySample[] = [];
  readonly memory: MemorySample[] = [];
  readonly metrics: MetricSample[] = [];
  readonly size: SizeSample[] = [];
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly pool: pg.Pool;
  private busy = new Set<string>();

  constructor(
    private readonly timeline: Timeline,
    primaryUrl: string,
    private readonly nodes: Record<ChainId, () => number>,
    private readonly apis: { name: string; base: string }[],
    private readonly watched: () => Watched[],
    private readonly scrapes: () => { source: string; url: string }[],
  ) {
    this.pool = new pg.Pool({ connectionString: primaryUrl, max: 2, connectionTimeoutMillis: 2000, idleTimeoutMillis: 5000, application_name: 'quarry-soak' });
    // An idle connection the server ended (a restart): the next query gets a new one.
    this.pool.on('error', () => undefined);
  }

  start(): void {
    this.every('lag', 500, () => this.sampleLag());
    this.every('ready', 1000, () => this.sampleReady());
    this.every('memory', 2000, async () => this.sampleMemory());
    this.every('metrics', 5000, () => this.sampleMetrics());
    this.every('size', 10_000, () => this.sampleSize());
  }

  private ended = false;

  async stop(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    if (this.ended) return;
    this.ended = true;
    await this.pool.end();
  }

  /** The stored height of each chain now (null when the primary does not answer). */
  async indexedHeights(): Promise<Partial<Record<ChainId, number>> | null> {
    try {
      const { rows } = await this.pool.query<{ chain: ChainId; height: string }>('SELECT chain, max(height)::text AS height FROM checkpoints GROUP BY chain');
      return Object.fromEntries(rows.map((r) => [r.chain, Number(r.height)]));
    } catch {
      return null;
    }
  }

  /** A query on the primary (for the end's checks). */
  query<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<pg.QueryResult<T>> {
    return this.pool.query<T>(text, values);
  }

  /** Samples a lag point now (the faults call it at their end, so the catch-up has its start). */
  async sampleLag(): Promise<void> {
    const heights = await this.indexedHeights();
    const at = this.timeline.now();
    for (const chain of ['pow', 'pos'] as const) {
      this.lag.push({ at, phase: this.timeline.phase, chain, node: this.nodes[chain](), indexed: heights?.[chain] ?? null });
    }
  }

  private every(name: string, ms: number, fn: () => Promise<void>): void {
    this.timers.push(
      setInterval(() => {
        if (this.busy.has(name)) return;
        this.busy.add(name);
        fn()
          .catch(() => undefined)
          .finally(() => this.busy.delete(name));
      }, ms),
    );
  }

  private async sampleReady(): Promise<void> {
    await Promise.all(
      this.apis.map(async (api) => {
        const at = this.timeline.now();
        const phase = this.timeline.phase;
        const answer = await getText(`${api.base}/readyz`, 5000);
        let body: ReadySample['body'] = null;
        try {
          body = answer.text ? (JSON.parse(answer.text) as ReadySample['body']) : null;
        } catch {
          body = null;
        }
        this.ready.push({ at, phase, target: api.name, status: answer.status, body });
      }),
    );
  }

  private async sampleMemory(): Promise<void> {
    const table = processTable();
    const at = this.timeline.now();
    for (const w of this.watched()) {
      if (w.pid === undefined || !table.has(w.pid)) continue;
      const pids = w.withChildren ? descendants(table, w.pid) : [w.pid];
      let rss = 0;
      let anon = 0;
      let cpu = 0;
      const processes: Record<number, number> = {};
      for (const pid of pids) {
        const m = memoryOf(pid);
        rss += m.rssMb;
        anon += m.anonMb;
        cpu += cpuOf(pid);
        processes[pid] = m.anonMb;
      }
      this.memory.push({
        at, phase: this.timeline.phase, role: w.role, pid: w.pid, rssMb: Math.round(rss * 10) / 10, anonMb: Math.round(anon * 10) / 10,
        ageSeconds: ageOf(w.pid), cpuSeconds: Math.round(cpu * 10) / 10, ...(w.withChildren ? { processes } : {}),
      });
    }
  }

  private async sampleMetrics(): Promise<void> {
    await Promise.all(
      this.scrapes().map(async ({ source, url }) => {
        const at = this.timeline.now();
        const phase = this.timeline.phase;
        const answer = await getText(url, 5000);
        if (answer.status !== 200 || !answer.text) return;
        const series: Record<string, number> = {};
        for (const line of answer.text.split('\n')) {
          const match = KEPT_SERIES.exec(line);
          if (!match) continue;
          const [, name, labels = '', value] = match;
          // Request counts are kept as 5xx totals only.
          if (name === 'quarry_http_requests_total') {
            if (/status="5/.test(labels)) series['quarry_http_requests_total{status=5xx}'] = (series['quarry_http_requests_total{status=5xx}'] ?? 0) + Number(value);
            continue;
          }
          series[`${name}${labels}`] = Number(value);
        }
        this.metrics.push({ at, phase, source, series });
      }),
    );
  }

  private async sampleSize(): Promise<void> {
    const { rows } = await this.pool.query<{ bytes: string; blocks: string }>(
      `SELECT pg_database_size(current_database())::text AS bytes, (SELECT coalesce(sum(height + 1), 0) FROM checkpoints)::text AS blocks`,
    );
    this.size.push({ at: this.timeline.now(), phase: this.timeline.phase, bytes: Number(rows[0]!.bytes), blocks: Number(rows[0]!.blocks) });
  }
}

/** A GET's status and body; status null when the connection failed or timed out. */
export function getText(url: string, timeoutMs: number, headers: Record<string, string> = {}): Promise<{ status: number | null; text: string }> {
  return new Promise((resolve) => {
    const request = http.get(url, { agent: false, timeout: timeoutMs, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? null, text }));
      response.on('error', () => resolve({ status: null, text: '' }));
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve({ status: null, text: '' }));
  });
}

/** pid → parent pid of every process now. */
export function processTable(): Map<number, number> {
  const table = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ');
      table.set(Number(entry), Number(fields[1]));
    } catch {
      // gone meanwhile
    }
  }
  return table;
}

/** `pid` and every process below it. */
export function descendants(table: Map<number, number>, pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) for (const [child, parent] of table) if (parent === out[i]) out.push(child);
  return out;
}

/** The children of `pid`. */
export function childrenOf(pid: number): number[] {
  return [...processTable()].filter(([, parent]) => parent === pid).map(([child]) => child);
}

/** CPU seconds of `pid`, user and system, with the children it has waited for (PostgreSQL's ended backends). */
function cpuOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return 0;
  }
}

/** Seconds since `pid` started (its start time in /proc/<pid>/stat, against the machine's uptime). */
function ageOf(pid: number): number {
  try {
    const started = Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[19]) / 100;
    return Math.round(Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]) - started);
  } catch {
    return 0;
  }
}

function memoryOf(pid: number): { rssMb: number; anonMb: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) / 1024;
    return { rssMb: field('VmRSS'), anonMb: field('RssAnon') };
  } catch {
    return { rssMb: 0, anonMb: 0 };
  }
}
