/**
 * The soak's clock and record: the phase it is in (each answer, log line and sample is filed
 * under it), the windows in which a store was down, and what every process logged, counted by
 * process, phase, level and message (what an operator would see in the journal).
 */

export interface Phase {
  name: string;
  /** Seconds from the soak's start. */
  start: number;
  end: number | null;
}

/** A store out of reach: from its stop until the API reading it answers /readyz with 200 again. */
export interface OutageWindow {
  store: 'primary' | 'standby';
  start: number;
  end: number | null;
}

export interface LogEntry {
  process: string;
  phase: string;
  level: string;
  msg: string;
  count: number;
  /** The first such line, shortened. */
  example: string;
}

const LEVELS: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

export class Timeline {
  private readonly t0 = performance.now();
  readonly phases: Phase[] = [];
  readonly outages: OutageWindow[] = [];
  private readonly logs = new Map<string, LogEntry>();

  constructor() {
    this.enter('setup');
  }

  /** Seconds since the soak started. */
  now(): number {
    return (performance.now() - this.t0) / 1000;
  }

  get phase(): string {
    return this.phases.at(-1)!.name;
  }

  enter(name: string): void {
    const at = this.now();
    const last = this.phases.at(-1);
    if (last) last.end = at;
    this.phases.push({ name, start: at, end: null });
  }

  close(): void {
    const last = this.phases.at(-1);
    if (last && last.end === null) last.end = this.now();
  }

  outageStarts(store: OutageWindow['store']): OutageWindow {
    const window: OutageWindow = { store, start: this.now(), end: null };
    this.outages.push(window);
    return window;
  }

  /** Whether `at` (seconds) falls in an outage of `store`, allowing `slack` seconds after its end. */
  inOutage(store: OutageWindow['store'], at: number, slack: number): boolean {
    return this.outages.some((w) => w.store === store && at >= w.start && at <= (w.end ?? Infinity) + slack);
  }

  /** A line a process wrote: pino's JSON (level and msg), or anything else as `stderr`. */
  log(process: string, line: string, stream: 'stdout' | 'stderr'): void {
    let level = stream === 'stderr' ? 'stderr' : 'stdout';
    let msg = line.slice(0, 160);
    if (line.startsWith('{')) {
      try {
        const entry = JSON.parse(line) as { level?: number; msg?: string };
        level = LEVELS[entry.level ?? 30] ?? String(entry.level);
        msg = entry.msg ?? '';
      } catch {
        // not JSON after all: kept as text
      }
    }
    const key = `${process}\0${this.phase}\0${level}\0${msg}`;
    const known = this.logs.get(key);
    if (known) known.count++;
    else this.logs.set(key, { process, phase: this.phase, level, msg, count: 1, example: line.slice(0, 400) });
  }

  logEntries(): LogEntry[] {
    return [...this.logs.values()];
  }
}
