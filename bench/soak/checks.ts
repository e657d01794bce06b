/**
 * The soak's checks, computed from what it recorded (never by asking the code under test again):
 * - store: every table of the soaked store (raw tables and every rollup) equals a clean index of
 *   the nodes' final chains (test/fakes/qrl-node/world.ts `storeDigest`), and the standby equals
 *   the primary (its unlogged tables aside, which a standby cannot read);
 * - streams: each stream received every event of its chain's log from its first one to the last,
 *   exactly once and in order, across its reconnects, each as the log has it; and the log's last
 *   block event at each height names the final chain's block;
 * - answers: no 5xx but a 503 with Retry-After inside an outage of the store that API reads, no
 *   connection error but in the phase that kills an API worker; p50 and p99 per phase;
 * - memory: resident memory of each process at the start and at the end of the steady phases;
 * - size: the store's bytes per block against the clean index's;
 * - lag: each fault recovered, and how long each indexer took to store the node's height at the
 *   fault's end;
 * - processes: none exited but when the soak killed or stopped it, and SIGTERM ended each with 0.
 */
import type { ChainId } from '../../src/chain/chains.ts';
import type { FaultRecord, LoggedEvent, Schedule } from '../parts/soak.ts';
import { round } from '../proc.ts';
import type { PacedLoad } from './load.ts';
import { HEAP_SERIES, type MetricSample, type Samplers } from './samplers.ts';
import type { StreamClient } from './streams.ts';
import type { Supervised } from './supervised.ts';
import type { LogEntry, Timeline } from './timeline.ts';

/** Growth of resident memory over a steady phase, at most. */
export const MEMORY_GROWTH_LIMIT = 0.1;
/** The soaked store's bytes per block against the clean index's, at most. */
export const SIZE_RATIO_LIMIT = 2;
/** Seconds an indexer may take, after a fault ended, to store the height the node had then. */
export const CATCH_UP_LIMIT_SECONDS = 60;
/** Seconds after an outage's end in which a 503 is still the outage's (asked before it ended). */
const OUTAGE_SLACK_SECONDS = 2;
/** A process started less than this before a span is still warming up: its growth over the span is shown, not judged. */
const WARMED_SECONDS = 30;
/**
 * The same for a PostgreSQL server. Each backend keeps, for its life, what it caches of the catalog,
 * of the relations it opened and of the plans of its prepared statements, and fills those as it
 * meets the mix's statements, a few hundred of them over some 65 tables: a server's first minutes
 * under the load are that filling, not a leak (in the 20-minute soak the primary's private memory
 * grew 10-17 % over the first steady phase, about 70 s after its start, and stayed within 1.3 %
 * over the last, with as many backends).
 */
const POSTGRES_WARMED_SECONDS = 300;
/** PostgreSQL's processes (the primary's and the standby's): judged on private memory, after their own warm-up. */
const isPostgres = (role: string) => role.startsWith('postgres');
/**
 * Spans shorter than this are shown, not judged: a node process's young generation fills and empties
 * over tens of seconds (up to 128 MB for the indexers' 64 MB semi-spaces), which a short span sees as growth.
 */
const MIN_SPAN_SECONDS = 60;
/**
 * Processes judged by their resident memory from /proc; Quarry's own are judged by what their
 * /metrics says they keep (memoryFigures), the fakes (Anvil, the pow node) hold their growing
 * chains by design.
 */
const JUDGED_BY_RSS = /^(postgres|redis)/;
const STEADY = ['steady (start)', 'steady (end)'];

export interface Verdict {
  check: string;
  measured: string;
  limit: string;
  pass: boolean;
}

export interface StreamFigures {
  name: string;
  chain: ChainId;
  events: number;
  blocks: number;
  firstId: number | null;
  lastId: number | null;
  logLastId: number;
  connects: number;
  ownDrops: number;
  refusals: Record<string, number>;
  duplicates: number;
  outOfOrder: number;
  missing: number;
  gaps: number;
  mismatched: number;
  pass: boolean;
}

export interface AnswerFigures {
  phase: string;
  target: string;
  requests: number;
  statuses: Record<string, number>;
  p50: number;
  p99: number;
}

export interface UnexpectedAnswer {
  phase: string;
  target: string;
  what: string;
  count: number;
  example: string;
}

export interface MemoryFigures {
  role: string;
  pid: number;
  phase: string;
  /**
   * MB: VmRSS, RssAnon for PostgreSQL (its shared buffers are counted in every backend's RSS), or
   * for a Quarry process what it keeps by its /metrics: V8's old, code and large-object spaces in
   * use and the memory outside the heap.
   */
  measure: 'rss' | 'anon' | 'kept';
  startMb: number;
  endMb: number;
  growth: number;
  judged: boolean;
  pass: boolean;
  /** A process sampled with its descendants: how many lived through the span (judged), and how many there were at its start and end. */
  processes?: { throughout: number; start: number; end: number };
}

/** MB, from a process's /metrics at the end of a phase: V8's heap spaces (the young generation's reserved size, the rest's use) and the memory outside the heap. */
export interface HeapFigures {
  source: string;
  phase: string;
  rssMb: number;
  /** The young generation as reserved: V8 sizes it to the allocation rate, up to the semi-space maximum. */
  youngMb: number;
  /** Old, code and large-object spaces: what the process keeps. */
  keptMb: number;
  externalMb: number;
}

export interface LagFigures {
  fault: string;
  chain: ChainId;
  /** Most blocks the stored height was behind the node while the fault lasted and until recovery. */
  maxLag: number | null;
  catchUpSeconds: number | null;
  recoverySeconds: number | null;
  pass: boolean;
}

export interface OperatorView {
  phase: string;
  logs: LogEntry[];
  readyz: { target: string; statuses: Record<string, number>; notReadySeconds: number }[];
  metrics: { source: string; series: string; min: number; max: number }[];
}

export interface SoakChecks {
  verdicts: Verdict[];
  store: { tables: number; differ: string[]; standbyDiffer: string[]; unlogged: string[] };
  streams: StreamFigures[];
  answers: AnswerFigures[];
  unexpected: UnexpectedAnswer[];
  skippedTicks: number;
  memory: MemoryFigures[];
  /** Each process's memory (MB, as judged) at the end of every phase it lived through: where growth happened. */
  memoryByPhase: { role: string; pid: number; mb: Record<string, number> }[];
  /** Each node process's own account of its memory (its /metrics; a cluster's workers summed) at the end of every phase. */
  heapByPhase: HeapFigures[];
  /** CPU seconds each kind of process used over `seconds` of sampling, from the warm-up to the end of the load. */
  cpu: { seconds: number; byRole: Record<string, number> };
  size: { soakBytesPerBlock: number; cleanBytesPerBlock: number; ratio: number; steady: { phase: string; bytesPerBlock: number | null; blocks: number }[] };
  lag: LagFigures[];
  steadyLag: { phase: string; chain: ChainId; p50: number; max: number }[];
  operator: OperatorView[];
  processes: { name: string; starts: number; unexpectedExits: { at: number; code: number | null; signal: string | null }[]; exitCode: number | null }[];
}

export interface JudgeInput {
  timeline: Timeline;
  load: PacedLoad;
  streams: StreamClient[];
  samplers: Samplers;
  faults: FaultRecord[];
  eventLog: Record<ChainId, LoggedEvent[]>;
  finalBlocks: Record<ChainId, Map<number, string>>;
  digests: { soak: Record<string, string>; clean: Record<string, string>; standby: Record<string, string> };
  unlogged: string[];
  size: { soakBytes: number; cleanBytes: number; emptyBytes: number; blocks: number };
  processes: Supervised[];
  exitCodes: Record<string, number | null>;
  caughtUp: boolean;
  schedule: Schedule;
}

export function judge(input: JudgeInput): SoakChecks {
  const verdicts: Verdict[] = [];
  const verdict = (check: string, measured: string, limit: string, pass: boolean) => verdicts.push({ check, measured, limit, pass });

  verdict('the indexers stored the nodes\' final heads', input.caughtUp ? 'yes' : 'no', 'both chains', input.caughtUp);

  const store = compareDigests(input.digests, input.unlogged);
  verdict('store equals a clean index of the final chains', store.differ.length === 0 ? `${store.tables} tables equal` : `differ: ${store.differ.join(', ')}`, 'every table', store.differ.length === 0);
  verdict('the standby equals the primary', store.standbyDiffer.length === 0 ? `${store.tables - input.unlogged.length} tables equal` : `differ: ${store.standbyDiffer.join(', ')}`, 'every logged table', store.standbyDiffer.length === 0);

  const streams = input.streams.map((s) => streamFigures(s, input.eventLog[s.chain]));
  const badStreams = streams.filter((s) => !s.pass);
  verdict(
    'every event delivered to every stream once, in order',
    badStreams.length === 0 ? `${streams.length} streams, ${streams.reduce((n, s) => n + s.events, 0)} events, ${streams.reduce((n, s) => n + s.connects, 0)} connections` : badStreams.map((s) => s.name).join('; '),
    'no repeat, gap or miss',
    badStreams.length === 0,
  );
  const logHoles = logAgainstChain(input.eventLog, input.finalBlocks);
  verdict('the log\'s last block event at each height is the final chain\'s block', logHoles.length === 0 ? 'yes' : logHoles.slice(0, 5).join('; '), 'every height', logHoles.length === 0);

  const { answers, unexpected } = answerFigures(input.load, input.timeline);
  verdict(
    'answers: no 5xx but 503 + Retry-After in a store outage, no connection errors but a killed worker\'s',
    unexpected.length === 0 ? `${input.load.answers.length} answers` : unexpected.map((u) => `${u.count} × ${u.what} (${u.target}, ${u.phase})`).join('; '),
    'none else',
    unexpected.length === 0,
  );
  verdict('the load kept its rate', `${input.load.skipped} ticks skipped`, '0 (at most 32 requests in flight)', input.load.skipped === 0);

  const memory = memoryFigures(input.samplers);
  const badMemory = memory.filter((m) => m.judged && !m.pass);
  verdict(
    'resident memory over the steady phases',
    badMemory.length === 0 ? `largest growth ${pct(Math.max(0, ...memory.filter((m) => m.judged).map((m) => m.growth)))}` : badMemory.map((m) => `${m.role} ${m.pid} ${pct(m.growth)} in ${m.phase}`).join('; '),
    `≤ ${pct(MEMORY_GROWTH_LIMIT)}`,
    badMemory.length === 0 && memory.some((m) => m.judged),
  );

  const size = sizeFigures(input);
  verdict('store size per block against a clean index', `${kb(size.soakBytesPerBlock)} vs ${kb(size.cleanBytesPerBlock)} (${size.ratio}×)`, `≤ ${SIZE_RATIO_LIMIT}×`, size.ratio <= SIZE_RATIO_LIMIT);

  const lag = lagFigures(input);
  const badLag = lag.filter((l) => !l.pass);
  verdict(
    'every fault recovered; each indexer caught up after it',
    badLag.length === 0 ? `slowest catch-up ${Math.max(0, ...lag.map((l) => l.catchUpSeconds ?? 0))} s` : badLag.map((l) => `${l.fault} ${l.chain}: ${l.catchUpSeconds ?? 'never'}`).join('; '),
    `≤ ${CATCH_UP_LIMIT_SECONDS} s`,
    badLag.length === 0,
  );

  const processes = input.processes.map((p) => ({
    name: p.name,
    starts: p.starts,
    unexpectedExits: p.unexpectedExits().map((e) => ({ at: round(e.at), code: e.code, signal: e.signal })),
    exitCode: input.exitCodes[p.name] ?? null,
  }));
  const crashed = processes.filter((p) => p.unexpectedExits.length > 0);
  verdict('no process exited unless the soak killed it', crashed.length === 0 ? 'none' : crashed.map((p) => `${p.name}: ${p.unexpectedExits.map((e) => e.code ?? e.signal).join(', ')}`).join('; '), 'none', crashed.length === 0);
  const unclean = processes.filter((p) => p.exitCode !== 0);
  verdict('SIGTERM ended every process with 0', unclean.length === 0 ? 'all 0' : unclean.map((p) => `${p.name}: ${p.exitCode}`).join('; '), 'exit code 0', unclean.length === 0);

  return {
    verdicts,
    store,
    streams,
    answers,
    unexpected,
    skippedTicks: input.load.skipped,
    memory,
    memoryByPhase: memoryByPhase(input.samplers),
    heapByPhase: heapByPhase(input.samplers),
    cpu: cpuByRole(input.samplers),
    size,
    lag,
    steadyLag: steadyLag(input.samplers),
    operator: operatorViews(input),
    processes,
  };
}

function compareDigests(d: JudgeInput['digests'], unlogged: string[]) {
  const tables = Object.keys({ ...d.soak, ...d.clean });
  const differ = tables.filter((t) => d.soak[t] !== d.clean[t]).map((t) => `${t} (${short(d.soak[t])} vs ${short(d.clean[t])})`);
  const standbyDiffer = tables.filter((t) => !unlogged.includes(t) && d.soak[t] !== d.standby[t]).map((t) => `${t} (${short(d.soak[t])} vs ${short(d.standby[t])})`);
  return { tables: tables.length, differ, standbyDiffer, unlogged };
}

const short = (digest: string | undefined) => (digest === undefined ? 'absent' : digest.slice(0, 40));

function streamFigures(stream: StreamClient, log: LoggedEvent[]): StreamFigures {
  const byId = new Map(log.map((e) => [e.id, e]));
  const logLastId = log.at(-1)?.id ?? 0;
  const received = stream.received.filter((e) => e.kind !== 'gap');
  const gaps = stream.received.length - received.length;
  const seen = new Set<number>();
  let duplicates = 0;
  let outOfOrder = 0;
  let mismatched = 0;
  let previous = -Infinity;
  for (const e of received) {
    if (seen.has(e.id)) duplicates++;
    seen.add(e.id);
    if (e.id < previous) outOfOrder++;
    previous = Math.max(previous, e.id);
    const logged = byId.get(e.id);
    if (!logged || logged.kind !== e.kind || logged.height !== e.height || logged.hash !== e.hash) mismatched++;
  }
  const firstId = received[0]?.id ?? null;
  let missing = 0;
  if (firstId !== null) for (let id = firstId; id <= logLastId; id++) if (!seen.has(id)) missing++;
  const refusals: Record<string, number> = {};
  for (const r of stream.refusals) refusals[r.what] = (refusals[r.what] ?? 0) + 1;
  return {
    name: stream.name,
    chain: stream.chain,
    events: received.length,
    blocks: received.filter((e) => e.kind === 'block').length,
    firstId,
    lastId: received.at(-1)?.id ?? null,
    logLastId,
    connects: stream.connects,
    ownDrops: stream.ownDrops,
    refusals,
    duplicates,
    outOfOrder,
    missing,
    gaps,
    mismatched,
    pass: received.length > 0 && duplicates + outOfOrder + missing + gaps + mismatched === 0,
  };
}

/** Heights where the log's last block event names another block than the final chain holds. */
function logAgainstChain(log: Record<ChainId, LoggedEvent[]>, blocks: Record<ChainId, Map<number, string>>): string[] {
  const holes: string[] = [];
  for (const chain of ['pow', 'pos'] as const) {
    const last = new Map<number, string>();
    for (const e of log[chain]) if (e.kind === 'block') last.set(e.height!, e.hash!);
    const tip = Math.max(...blocks[chain].keys());
    for (const [height, hash] of last) {
      if (height > tip) continue;
      if (blocks[chain].get(height) !== hash) holes.push(`${chain} ${height}: ${hash.slice(0, 12)} announced, ${blocks[chain].get(height)?.slice(0, 12) ?? 'none'} stored`);
    }
  }
  return holes;
}

function answerFigures(load: PacedLoad, timeline: Timeline): { answers: AnswerFigures[]; unexpected: UnexpectedAnswer[] } {
  const groups = new Map<string, { phase: string; target: string; ms: number[]; statuses: Record<string, number> }>();
  const unexpected = new Map<string, UnexpectedAnswer>();
  for (const a of load.answers) {
    const key = `${a.phase}\0${a.target}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { phase: a.phase, target: a.target, ms: [], statuses: {} }));
    const status = a.status === null ? (a.error ?? 'error') : String(a.status);
    group.statuses[status] = (group.statuses[status] ?? 0) + 1;
    if (a.status !== null) group.ms.push(a.ms);
    const what = surprise(a, timeline);
    if (what) {
      const k = `${a.phase}\0${a.target}\0${what}`;
      const known = unexpected.get(k);
      if (known) known.count++;
      else unexpected.set(k, { phase: a.phase, target: a.target, what, count: 1, example: a.path });
    }
  }
  const answers = [...groups.values()].map((g) => {
    g.ms.sort((x, y) => x - y);
    return { phase: g.phase, target: g.target, requests: Object.values(g.statuses).reduce((n, c) => n + c, 0), statuses: g.statuses, p50: round(percentile(g.ms, 50), 1), p99: round(percentile(g.ms, 99), 1) };
  });
  return { answers, unexpected: [...unexpected.values()] };
}

/** What is wrong with an answer, or null: see the file's comment. */
function surprise(a: PacedLoad['answers'][number], timeline: Timeline): string | null {
  if (a.status === null) return a.phase === 'kill-api-worker' && a.target === 'primary' ? null : `connection error ${a.error}`;
  if (a.status === 503) {
    if (!timeline.inOutage(a.target, a.at, OUTAGE_SLACK_SECONDS)) return '503 outside a store outage';
    return a.retryAfter ? null : '503 without Retry-After';
  }
  if (a.status >= 500) return `HTTP ${a.status}`;
  // 404: a transaction or block a reorg took away since its case was resolved.
  if (a.status >= 400 && a.status !== 404) return `HTTP ${a.status}`;
  return null;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : sorted[Math.floor((sorted.length - 1) / 2)]!;
}

/**
 * Memory at the start and end of each steady phase, and from the start of the first to the end of
 * the last for the processes that lived through both: the least-squares line through every sample
 * of the span, read at its ends (a leak moves the whole line; no single sample stands for a point in
 * time).
 *
 * What is judged of a Quarry process is the memory it keeps, by its /metrics (the primary's workers
 * summed: its /metrics is theirs): V8's old, code and large-object spaces in use, and the memory
 * outside the heap (buffers, WebAssembly). Its resident memory is not: V8 sizes the young generation
 * to the allocation rate, up to twice the semi-space maximum (2 × 64 MB under bin/quarry.js,
 * 2 × 16 MB in an API worker), and gives it back when the rate drops, so resident memory swings by
 * up to that much with the load and grows by it in a freshly started process's first minutes; nor
 * is resident less the young generation as reserved, since a reserved young generation becomes
 * resident only as it is used (a 20-minute soak's pos indexer moved by 50 % on it, its heap flat).
 * The per-process resident memory from /proc is shown beside it; PostgreSQL and Redis are judged on
 * it (PostgreSQL's private memory, RssAnon: its RSS counts the shared buffers each backend touched;
 * summed over the postmaster and the backends that lived through the span, throughSpan).
 */
export function memoryFigures(samplers: Pick<Samplers, 'memory' | 'metrics'>): MemoryFigures[] {
  const out: MemoryFigures[] = [];
  type Sample = { at: number; mb: number; ageSeconds: number; phase: string; processes?: Record<number, number> };
  const spans = (samples: Sample[], key: { role: string; pid: number; measure: MemoryFigures['measure'] }, judgedRole: boolean, wholeSoak: boolean) => {
    const span = (all: Sample[], phase: string) => {
      if (all.length < 3) return;
      const { list, processes } = throughSpan(all);
      const line = fitLine(list.map((s) => [s.at, s.mb]));
      const startMb = line(list[0]!.at);
      const endMb = line(list.at(-1)!.at);
      const growth = startMb > 0 ? round(endMb / startMb - 1, 3) : 0;
      const warmedSeconds = isPostgres(key.role) ? POSTGRES_WARMED_SECONDS : WARMED_SECONDS;
      const judged = judgedRole && list[0]!.ageSeconds >= warmedSeconds && list.at(-1)!.at - list[0]!.at >= MIN_SPAN_SECONDS;
      out.push({ ...key, phase, startMb: round(startMb), endMb: round(endMb), growth, judged, pass: !judged || growth <= MEMORY_GROWTH_LIMIT, ...(processes ? { processes } : {}) });
    };
    const lists = STEADY.map((phase) => samples.filter((s) => s.phase === phase));
    lists.forEach((list, i) => span(list, STEADY[i]!));
    const [first, last] = lists as [typeof samples, typeof samples];
    if (wholeSoak && first.length >= 3 && last.length >= 3) span([...first, ...last], 'whole soak');
  };

  const byProcess = new Map<string, typeof samplers.memory>();
  for (const s of samplers.memory) {
    const key = `${s.role}\0${s.pid}`;
    byProcess.set(key, [...(byProcess.get(key) ?? []), s]);
  }
  for (const samples of byProcess.values()) {
    const { role, pid } = samples[0]!;
    const measure = isPostgres(role) ? 'anon' : 'rss';
    const list = samples.map((s) => ({ at: s.at, phase: s.phase, ageSeconds: s.ageSeconds, mb: measure === 'anon' ? s.anonMb : s.rssMb, processes: s.processes }));
    spans(list, { role, pid, measure }, JUDGED_BY_RSS.test(role), true);
  }

  // Each Quarry process by its /metrics: one process while the same one answers (its start time).
  // The primary's workers have none in their sum, whose members a replaced worker changes: judged
  // per steady phase only.
  const bySource = new Map<string, { at: number; phase: string; mb: number; started: number | undefined }[]>();
  for (const m of samplers.metrics) {
    if (m.series[MB_SERIES.rss] === undefined) continue;
    const kept = sumOf(m.series, MB_SERIES.used, KEPT_SPACES) + (m.series[MB_SERIES.external] ?? 0);
    bySource.set(m.source, [...(bySource.get(m.source) ?? []), { at: m.at, phase: m.phase, mb: kept / 1024 ** 2, started: m.series[MB_SERIES.started] }]);
  }
  for (const [source, scrapes] of bySource) {
    // Runs of scrapes of the same process, each with its age since its first scrape.
    const runs: (typeof scrapes)[] = [];
    for (const s of scrapes) {
      const run = runs.at(-1);
      if (run && run[0]!.started === s.started) run.push(s);
      else runs.push([s]);
    }
    for (const run of runs) {
      const first = run[0]!;
      const list = run.map((s) => ({ at: s.at, phase: s.phase, mb: s.mb, ageSeconds: s.at - first.at }));
      spans(list, { role: `${source} (its /metrics)`, pid: 0, measure: 'kept' }, true, first.started !== undefined);
    }
  }
  return out;
}

/**
 * A span of samples of a process sampled with its descendants, as the sum over the processes that
 * lived through the whole span: a backend a pool opened or closed meanwhile, or an autovacuum
 * worker that ran, is a process more or fewer, not memory grown (their counts are reported).
 * Samples of a single process are the span as it is.
 */
function throughSpan<S extends { mb: number; processes?: Record<number, number> }>(all: S[]): { list: S[]; processes?: MemoryFigures['processes'] } {
  if (!all.every((s) => s.processes)) return { list: all };
  const pids = Object.keys(all[0]!.processes!).filter((pid) => all.every((s) => pid in s.processes!));
  const list = all.map((s) => ({ ...s, mb: pids.reduce((sum, pid) => sum + s.processes![Number(pid)]!, 0) }));
  return { list, processes: { throughout: pids.length, start: Object.keys(all[0]!.processes!).length, end: Object.keys(all.at(-1)!.processes!).length } };
}

/** The least-squares line through `points` ([x, y]), as a function of x. */
function fitLine(points: [number, number][]): (x: number) => number {
  const n = points.length;
  const mx = points.reduce((a, [x]) => a + x, 0) / n;
  const my = points.reduce((a, [, y]) => a + y, 0) / n;
  const sxx = points.reduce((a, [x]) => a + (x - mx) ** 2, 0);
  const slope = sxx === 0 ? 0 : points.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0) / sxx;
  return (x) => my + slope * (x - mx);
}

function memoryByPhase(samplers: Samplers): SoakChecks['memoryByPhase'] {
  const out = new Map<string, SoakChecks['memoryByPhase'][number]>();
  for (const s of samplers.memory) {
    const key = `${s.role}\0${s.pid}`;
    let entry = out.get(key);
    if (!entry) out.set(key, (entry = { role: s.role, pid: s.pid, mb: {} }));
    // The last sample of each phase wins.
    entry.mb[s.phase] = isPostgres(s.role) ? s.anonMb : s.rssMb;
  }
  return [...out.values()];
}

function heapByPhase(samplers: Samplers): HeapFigures[] {
  const last = new Map<string, MetricSample>();
  // The last scrape of each phase that reported the heap wins.
  for (const m of samplers.metrics) if (MB_SERIES.rss in m.series) last.set(`${m.source}\0${m.phase}`, m);
  const mb = (bytes: number) => round(bytes / 1024 ** 2, 1);
  return [...last.values()].map((m) => ({
    source: m.source,
    phase: m.phase,
    rssMb: mb(m.series[MB_SERIES.rss]!),
    youngMb: mb(sumOf(m.series, MB_SERIES.total, YOUNG_SPACES)),
    keptMb: mb(sumOf(m.series, MB_SERIES.used, KEPT_SPACES)),
    externalMb: mb(m.series[MB_SERIES.external] ?? 0),
  }));
}

/** A series' values summed over the labels `spaces` matches. */
const sumOf = (series: Record<string, number>, name: string, spaces: RegExp) =>
  Object.entries(series).reduce((n, [k, v]) => (k.startsWith(`${name}{`) && spaces.test(k) ? n + v : n), 0);

/** prom-client's default metrics (src/api/metrics/registry.ts) that the memory figures read. */
const MB_SERIES = {
  started: 'quarry_process_start_time_seconds',
  rss: 'quarry_process_resident_memory_bytes',
  total: 'quarry_nodejs_heap_space_size_total_bytes',
  used: 'quarry_nodejs_heap_space_size_used_bytes',
  external: 'quarry_nodejs_external_memory_bytes',
};
/** V8's young generation: the semi-spaces and the young large objects. */
const YOUNG_SPACES = /space="(new|new_large_object)"/;
const KEPT_SPACES = /space="(old|code|large_object|code_large_object|map|read_only|shared|trusted)"/;

function cpuByRole(samplers: Samplers): SoakChecks['cpu'] {
  const first = new Map<string, number>();
  const last = new Map<string, { role: string; cpu: number }>();
  for (const s of samplers.memory) {
    const key = `${s.role}\0${s.pid}`;
    if (!first.has(key)) first.set(key, s.cpuSeconds);
    last.set(key, { role: s.role, cpu: s.cpuSeconds });
  }
  const out: Record<string, number> = {};
  for (const [key, { role, cpu }] of last) out[role] = round((out[role] ?? 0) + cpu - first.get(key)!, 1);
  const seconds = round((samplers.memory.at(-1)?.at ?? 0) - (samplers.memory[0]?.at ?? 0));
  return { seconds, byRole: out };
}

function sizeFigures(input: JudgeInput): SoakChecks['size'] {
  const { soakBytes, cleanBytes, emptyBytes, blocks } = input.size;
  const soakBytesPerBlock = Math.round((soakBytes - emptyBytes) / blocks);
  const cleanBytesPerBlock = Math.round((cleanBytes - emptyBytes) / blocks);
  const steady = STEADY.map((phase) => {
    const samples = input.samplers.size.filter((s) => s.phase === phase);
    const first = samples[0];
    const last = samples.at(-1);
    const grown = first && last ? last.blocks - first.blocks : 0;
    return { phase, blocks: grown, bytesPerBlock: first && last && grown > 0 ? Math.round((last.bytes - first.bytes) / grown) : null };
  });
  return { soakBytesPerBlock, cleanBytesPerBlock, ratio: round(soakBytesPerBlock / Math.max(1, cleanBytesPerBlock), 2), steady };
}

function lagFigures(input: JudgeInput): LagFigures[] {
  const out: LagFigures[] = [];
  for (const f of input.faults) {
    const until = f.recoveredAt ?? f.activeEnd + CATCH_UP_LIMIT_SECONDS;
    for (const chain of ['pow', 'pos'] as const) {
      const lags = input.samplers.lag.filter((s) => s.chain === chain && s.at >= f.start && s.at <= until && s.indexed !== null).map((s) => s.node - s.indexed!);
      const caught = f.catchUp[chain].caughtUpAt;
      const catchUpSeconds = caught === null ? null : round(Math.max(0, caught - f.activeEnd), 1);
      out.push({
        fault: f.name,
        chain,
        maxLag: lags.length ? Math.max(...lags) : null,
        catchUpSeconds,
        recoverySeconds: f.recoveredAt === null ? null : round(f.recoveredAt - f.activeEnd, 1),
        pass: f.recoveredAt !== null && catchUpSeconds !== null && catchUpSeconds <= CATCH_UP_LIMIT_SECONDS,
      });
    }
  }
  return out;
}

function steadyLag(samplers: Samplers): SoakChecks['steadyLag'] {
  const out: SoakChecks['steadyLag'] = [];
  for (const phase of STEADY) {
    for (const chain of ['pow', 'pos'] as const) {
      const lags = samplers.lag.filter((s) => s.phase === phase && s.chain === chain && s.indexed !== null).map((s) => s.node - s.indexed!);
      if (lags.length === 0) continue;
      out.push({ phase, chain, p50: median(lags), max: Math.max(...lags) });
    }
  }
  return out;
}

/** Per phase, what an operator would have seen: what each process logged (info and above, the worst first), /readyz, the alerting metrics. */
function operatorViews(input: JudgeInput): OperatorView[] {
  const severity = (level: string) => ['fatal', 'error', 'stderr', 'warn', 'info'].indexOf(level);
  const logs = input.timeline.logEntries().filter((e) => severity(e.level) >= 0);
  return input.timeline.phases.map(({ name: phase }) => {
    const readyz = [...new Set(input.samplers.ready.map((r) => r.target))].map((target) => {
      const samples = input.samplers.ready.filter((r) => r.phase === phase && r.target === target);
      const statuses: Record<string, number> = {};
      for (const s of samples) statuses[String(s.status ?? 'no answer')] = (statuses[String(s.status ?? 'no answer')] ?? 0) + 1;
      return { target, statuses, notReadySeconds: samples.filter((s) => s.status !== 200).length };
    });
    const metrics: OperatorView['metrics'] = [];
    const inPhase = input.samplers.metrics.filter((m) => m.phase === phase);
    for (const source of new Set(inPhase.map((m) => m.source))) {
      const series = new Map<string, number[]>();
      for (const m of inPhase.filter((x) => x.source === source)) {
        for (const [k, v] of Object.entries(m.series)) if (!HEAP_SERIES.test(k)) series.set(k, [...(series.get(k) ?? []), v]);
      }
      for (const [k, values] of series) metrics.push({ source, series: k, min: Math.min(...values), max: Math.max(...values) });
    }
    const logged = logs.filter((e) => e.phase === phase).sort((a, b) => severity(a.level) - severity(b.level) || b.count - a.count);
    return { phase, logs: logged, readyz, metrics };
  });
}

const pct = (x: number) => `${round(100 * x, 1)} %`;
const kb = (bytes: number) => `${round(bytes / 1024, 1)} kB`;
