/** A progress bar with rate and ETA for long work on a terminal; one log line per step elsewhere. */
import cliProgress from 'cli-progress';

export interface Progress {
  update(value: number, payload?: Record<string, string | number>): void;
  stop(): void;
}

export function createProgress(label: string, total: number, unit = 'blocks'): Progress {
  if (!process.stderr.isTTY) {
    let lastLog = 0;
    const started = Date.now();
    return {
      update(value) {
        const now = Date.now();
        if (now - lastLog < 5000 && value < total) return;
        lastLog = now;
        const rate = value / Math.max(1, (now - started) / 1000);
        console.error(`${label}: ${value}/${total} ${unit} (${Math.round(rate)}/s)`);
      },
      stop() {},
    };
  }
  const bar = new cliProgress.SingleBar(
    {
      format: `${label} [{bar}] {percentage}% | {value}/{total} ${unit} | {rate}/s | ETA {eta_formatted} {extra}`,
      hideCursor: true,
      etaBuffer: 50,
      fps: 5,
      stream: process.stderr,
    },
    cliProgress.Presets.shades_classic,
  );
  const started = Date.now();
  bar.start(total, 0, { rate: 0, extra: '' });
  return {
    update(value, payload = {}) {
      const rate = Math.round(value / Math.max(0.001, (Date.now() - started) / 1000));
      bar.update(Math.min(value, total), { rate, extra: '', ...payload });
    },
    stop() {
      bar.stop();
    },
  };
}

/**
 * The clock of a job made of steps (the demo's load): the time left in all, from the time the job
 * has taken and the share of its work done. Each step's share of the whole is given up front; a
 * step that counts its units of work (`total`) is done in proportion to them, one that does not is
 * taken to move at the pace of the steps before it (and never to be quite done until it ends).
 */
export interface JobClock<S extends string> {
  /** A step begins, with its units of work when counted. */
  step(step: S, total?: number): void;
  /** Units of the current step done. */
  progress(done: number): void;
  /** The whole job's time left, in words. */
  left(): string;
}

export function createJobClock<S extends string>(shares: Readonly<Record<S, number>>): JobClock<S> {
  const started = Date.now();
  const whole = Object.values<number>(shares).reduce((sum, share) => sum + share, 0);
  const shareOf = (step: S) => shares[step] / whole;
  let finished = 0;
  let current: { step: S; total: number | undefined; done: number; started: number; before: number } | null = null;
  const doneShare = (): number => {
    if (!current) return finished;
    const share = shareOf(current.step);
    if (current.total !== undefined && current.total > 0) return finished + share * Math.min(1, current.done / current.total);
    // Uncounted: the step's expected time at the pace of the job so far.
    if (finished <= 0) return finished;
    const expected = (current.before / finished) * share;
    return finished + share * Math.min(0.95, (Date.now() - current.started) / Math.max(1, expected));
  };
  return {
    step(step, total) {
      if (current) finished += shareOf(current.step);
      current = { step, total, done: 0, started: Date.now(), before: Date.now() - started };
    },
    progress(done) {
      if (current) current.done = done;
    },
    left() {
      const elapsed = Date.now() - started;
      const done = doneShare();
      if (done < 0.02 || elapsed < 2000) return 'estimating';
      return `about ${formatSeconds((elapsed * (1 - done)) / done / 1000)} left`;
    },
  };
}

/**
 * One step of a longer job (the demo's load). With its units of work known (`total`), a bar with
 * the time left at the step's average rate so far; without, the time the step has taken. `overall`
 * gives the whole job's time left (JobClock), shown beside the step's. The embedded store runs
 * statements on this thread: a long statement holds the display still until it returns. Off a
 * terminal, a line when the step starts, every 10 s, and when it ends.
 */
export function createStep(label: string, total?: number, unit = '', overall?: () => string): Progress {
  const started = Date.now();
  const known = total !== undefined && total > 0;
  const left = (value: number): string => {
    const elapsed = (Date.now() - started) / 1000;
    if (!known || value <= 0 || elapsed < 1) return 'estimating';
    const seconds = ((total - Math.min(value, total)) * elapsed) / value;
    return `about ${formatSeconds(seconds)} left`;
  };
  const took = () => formatSeconds((Date.now() - started) / 1000);
  const elapsed = () => `${took()} elapsed`;
  const all = () => (overall ? `in all ${overall()}` : '');
  if (!process.stderr.isTTY) {
    let lastLog = started;
    console.error(overall ? `${label}… (${all()})` : `${label}…`);
    return {
      update(value) {
        if (Date.now() - lastLog < 10_000) return;
        lastLog = Date.now();
        const line = known ? `${label}: ${value}/${total} ${unit}, ${left(value)}` : `${label}: ${took()} so far`;
        console.error(overall ? `${line} (${all()})` : line);
      },
      stop() {
        console.error(`${label}: done in ${took()}`);
      },
    };
  }
  const tail = overall ? ' | {all}' : '';
  const bar = new cliProgress.SingleBar(
    {
      format: known
        ? `${label.padEnd(STEP_LABEL)} [{bar}] {percentage}% | {value}/{total} ${unit} | {left} | {took}${tail}`
        : `${label.padEnd(STEP_LABEL)} … {took}${tail}`,
      barsize: 20,
      hideCursor: true,
      fps: 2,
      stream: process.stderr,
    },
    cliProgress.Presets.shades_classic,
  );
  let current = 0;
  bar.start(known ? total : 1, 0, { left: left(0), took: elapsed(), all: all() });
  // The time taken and left move on between updates too (whenever this thread is free).
  const tick = setInterval(() => bar.update(known ? Math.min(current, total) : 0, { left: left(current), took: elapsed(), all: all() }), 1000);
  tick.unref();
  return {
    update(value) {
      current = value;
      bar.update(known ? Math.min(value, total) : 0, { left: left(value), took: elapsed(), all: all() });
    },
    stop() {
      clearInterval(tick);
      bar.update(known ? total : 1, { left: 'done', took: `took ${took()}`, all: all() });
      bar.stop();
    },
  };
}

/** Width of a step's label, so the bars of successive steps line up. */
const STEP_LABEL = 26;

function formatSeconds(seconds: number): string {
  const s = Math.round(seconds);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}
