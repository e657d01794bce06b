/**
 * The soak's memory judgement (bench/soak/checks.ts, memoryFigures) on samples made here: a Quarry
 * process is judged on what it keeps (V8's old, code and large-object spaces in use and the memory
 * outside the heap, from its /metrics), so that a young generation V8 grows to the load passes and
 * memory kept does not. A 20-minute soak failed the standby's API (+31 % resident over the soak) and
 * a replaced API worker (+21.5 % in the last steady phase) on resident memory alone, and then the pos
 * indexer (+52 %, its heap flat at 31 MB) on resident less the young generation as reserved.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { memoryFigures, MEMORY_GROWTH_LIMIT } from '../../bench/soak/checks.ts';
import type { MemorySample, MetricSample } from '../../bench/soak/samplers.ts';

const MB = 1024 ** 2;
const STEADY_END = 'steady (end)';

/** Scrapes every 5 s over [from, to) of a process that started at `started`: its resident memory, young generation and kept heap (MB) at each. */
function scrapes(source: string, from: number, to: number, phase: string, mb: (t: number) => { rss: number; young: number; kept?: number }, started?: number): MetricSample[] {
  const out: MetricSample[] = [];
  for (let at = from; at < to; at += 5) {
    const { rss, young, kept = 60 } = mb(at);
    const series: Record<string, number> = {
      quarry_process_resident_memory_bytes: rss * MB,
      'quarry_nodejs_heap_space_size_total_bytes{space="new"}': young * MB,
      'quarry_nodejs_heap_space_size_used_bytes{space="new"}': young * MB * 0.5,
      // What is kept, split between the old space and the memory outside the heap.
      'quarry_nodejs_heap_space_size_used_bytes{space="old"}': kept * 0.8 * MB,
      quarry_nodejs_external_memory_bytes: kept * 0.2 * MB,
    };
    if (started !== undefined) series.quarry_process_start_time_seconds = started;
    out.push({ at, phase, source, series });
  }
  return out;
}

/** /proc samples every 2 s of one process. */
function rss(role: string, pid: number, from: number, to: number, phase: string, mb: (t: number) => number, startedAt = 0): MemorySample[] {
  const out: MemorySample[] = [];
  for (let at = from; at < to; at += 2) out.push({ at, phase, role, pid, rssMb: mb(at), anonMb: mb(at), ageSeconds: at - startedAt, cpuSeconds: 0 });
  return out;
}

const figure = (figures: ReturnType<typeof memoryFigures>, role: string, phase: string) => {
  const found = figures.find((f) => f.role === role && f.phase === phase);
  assert.ok(found, `no figure for ${role} in ${phase}: ${JSON.stringify(figures.map((f) => [f.role, f.phase]))}`);
  return found;
};

describe('the soak judges the memory a process keeps', () => {
  // A young generation growing from 10 to 130 MB over four minutes, the rest flat at 150 MB.
  const youngGrows = (t: number) => 10 + (120 * (t - 1000)) / 240;

  it('passes a process whose young generation grows to the load, and shows its resident growth unjudged', () => {
    const figures = memoryFigures({
      memory: rss('api standby', 7, 1000, 1240, STEADY_END, (t) => 150 + youngGrows(t)),
      metrics: [
        ...scrapes('api standby', 900, 1000, 'dropping-nodes', () => ({ rss: 160, young: 10 }), 1),
        ...scrapes('api standby', 1000, 1240, STEADY_END, (t) => ({ rss: 150 + youngGrows(t), young: youngGrows(t) }), 1),
      ],
    });
    const kept = figure(figures, 'api standby (its /metrics)', STEADY_END);
    assert.equal(kept.measure, 'kept');
    assert.ok(kept.judged && kept.pass, JSON.stringify(kept));
    assert.ok(Math.abs(kept.growth) < 0.01, `kept memory is flat: ${kept.growth}`);
    const resident = figure(figures, 'api standby', STEADY_END);
    // 160 → 280 MB resident: three quarters more, shown and not judged.
    assert.ok(resident.growth > 0.7 && !resident.judged, JSON.stringify(resident));
  });

  it('fails a process whose kept memory grows by more than the limit, however its young generation moves', () => {
    // Kept memory 150 → 180 MB (+20 %) while the young generation shrinks from 130 to 10 MB.
    const kept = (t: number) => 150 + (30 * (t - 1000)) / 240;
    const young = (t: number) => 130 - (120 * (t - 1000)) / 240;
    const figures = memoryFigures({
      memory: rss('indexer pow', 8, 1000, 1240, STEADY_END, (t) => kept(t) + young(t)),
      metrics: [
        ...scrapes('indexer pow', 900, 1000, 'dropping-nodes', () => ({ rss: 280, young: 130, kept: 150 }), 1),
        ...scrapes('indexer pow', 1000, 1240, STEADY_END, (t) => ({ rss: kept(t) + young(t), young: young(t), kept: kept(t) }), 1),
      ],
    });
    const judged = figure(figures, 'indexer pow (its /metrics)', STEADY_END);
    assert.ok(judged.judged && !judged.pass, JSON.stringify(judged));
    assert.ok(judged.growth > MEMORY_GROWTH_LIMIT && Math.abs(judged.growth - 0.2) < 0.02, `${judged.growth}`);
  });

  it('passes a process whose young generation is reserved before it is resident, its heap flat', () => {
    // The pos indexer of the soak: the young generation's reserve flips between 64 and 128 MB while
    // resident memory moves by a fraction of it (resident less the reserve: 110 MB, then 58 MB).
    const young = (t: number) => (t < 1120 ? 64 : 128);
    const figures = memoryFigures({
      memory: [],
      metrics: [
        ...scrapes('indexer pos', 900, 1000, 'dropping-nodes', () => ({ rss: 174, young: 64, kept: 40 }), 1),
        ...scrapes('indexer pos', 1000, 1240, STEADY_END, (t) => ({ rss: t < 1120 ? 174 : 186, young: young(t), kept: 40 }), 1),
      ],
    });
    const judged = figure(figures, 'indexer pos (its /metrics)', STEADY_END);
    assert.ok(judged.judged && judged.pass && Math.abs(judged.growth) < 0.01, JSON.stringify(judged));
  });

  it('judges each run of one process apart: a restarted indexer is two, each judged where it is warm', () => {
    const metrics = [
      ...scrapes('indexer pos', 40, 100, 'warm-up', () => ({ rss: 200, young: 40 }), 1),
      ...scrapes('indexer pos', 100, 400, 'steady (start)', () => ({ rss: 200, young: 40 }), 1),
      ...scrapes('indexer pos', 900, 1000, 'kill-pos-indexer', () => ({ rss: 150, young: 10 }), 900),
      ...scrapes('indexer pos', 1000, 1240, STEADY_END, () => ({ rss: 150, young: 10 }), 900),
    ];
    const figures = memoryFigures({ memory: [], metrics }).filter((f) => f.role === 'indexer pos (its /metrics)');
    // Two spans (one per steady phase, each its own process), no whole soak across the restart.
    assert.deepEqual(figures.map((f) => [f.phase, f.judged, f.pass]), [['steady (start)', true, true], [STEADY_END, true, true]]);
  });

  it('judges a sum of workers per steady phase only: a replaced worker makes another sum', () => {
    const metrics = [
      ...scrapes('api primary', 100, 400, 'steady (start)', () => ({ rss: 300, young: 40 })),
      ...scrapes('api primary', 1000, 1240, STEADY_END, () => ({ rss: 340, young: 60 })),
    ];
    const figures = memoryFigures({ memory: [], metrics }).filter((f) => f.role === 'api primary (its /metrics)');
    assert.deepEqual(figures.map((f) => f.phase), ['steady (start)', STEADY_END]);
  });

  it('judges PostgreSQL by its private memory and leaves the fakes unjudged', () => {
    const figures = memoryFigures({
      memory: [
        ...rss('postgres primary', 9, 1000, 1240, STEADY_END, (t) => 150 + (40 * (t - 1000)) / 240),
        ...rss('fake pow node', 10, 1000, 1240, STEADY_END, (t) => 100 + (t - 1000)),
      ],
      metrics: [],
    });
    const postgres = figure(figures, 'postgres primary', STEADY_END);
    assert.equal(postgres.measure, 'anon');
    assert.ok(postgres.judged && !postgres.pass, JSON.stringify(postgres));
    assert.equal(figure(figures, 'fake pow node', STEADY_END).judged, false);
  });

  it('leaves a PostgreSQL server in its first five minutes unjudged: its backends still fill their caches', () => {
    // 16 % over the span, as the primary's backends grew over the 20-minute soak's first steady phase.
    const grows = (t: number) => 90 + (14.4 * (t - 1000)) / 238;
    const young = figure(memoryFigures({ memory: rss('postgres primary', 9, 1000, 1240, STEADY_END, grows, 1000 - 70), metrics: [] }), 'postgres primary', STEADY_END);
    assert.ok(!young.judged && young.growth > MEMORY_GROWTH_LIMIT, JSON.stringify(young));
    const warmed = figure(memoryFigures({ memory: rss('postgres primary', 9, 1000, 1240, STEADY_END, grows, 1000 - 300), metrics: [] }), 'postgres primary', STEADY_END);
    assert.ok(warmed.judged && !warmed.pass, JSON.stringify(warmed));
    // Redis and Quarry's own processes are judged from 30 s on.
    const redis = figure(memoryFigures({ memory: rss('redis', 8, 1000, 1240, STEADY_END, grows, 1000 - 70), metrics: [] }), 'redis', STEADY_END);
    assert.ok(redis.judged && !redis.pass, JSON.stringify(redis));
  });

  it('judges PostgreSQL on the processes that lived through the span: a backend opened meanwhile is not growth', () => {
    /** The postmaster (pid 9) and its backends, each flat or as `grow` says, and backend 13 from t = 1120 on. */
    const server = (grow: (t: number) => number): MemorySample[] =>
      rss('postgres primary', 9, 1000, 1240, STEADY_END, () => 0).map((s) => {
        const processes: Record<number, number> = { 9: 20, 11: 30 + grow(s.at), 12: 30 };
        if (s.at >= 1120) processes[13] = 25;
        const anonMb = Object.values(processes).reduce((a, b) => a + b, 0);
        return { ...s, rssMb: anonMb, anonMb, processes };
      });
    const opened = figure(memoryFigures({ memory: server(() => 0), metrics: [] }), 'postgres primary', STEADY_END);
    assert.ok(opened.judged && opened.pass, JSON.stringify(opened));
    assert.equal(opened.startMb, 80);
    assert.equal(opened.endMb, 80);
    assert.deepEqual(opened.processes, { throughout: 3, start: 3, end: 4 });
    // Backend 11 grows by 12 MB: 15 % of the 80 MB that lived through the span (11 % of the sum at the end).
    const grown = figure(memoryFigures({ memory: server((t) => (12 * (t - 1000)) / 238), metrics: [] }), 'postgres primary', STEADY_END);
    assert.ok(grown.judged && !grown.pass, JSON.stringify(grown));
    assert.ok(Math.abs(grown.growth - 0.15) < 0.005, JSON.stringify(grown));
  });
});
