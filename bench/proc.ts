/**
 * Process helpers for the benchmark: child processes it starts and measures (their peak memory
 * and CPU time from /proc), free ports, the machine's load, and timing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '..');
export const WORK_DIR = path.join(ROOT, 'bench', '.work');
export const RESULTS_DIR = path.join(ROOT, 'bench', 'results');

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function seconds(startedMs: number): number {
  return (performance.now() - startedMs) / 1000;
}

export { freePort } from '../src/store/local-cluster.ts';

/** The 1-, 5- and 15-minute load averages, rounded: other work on a shared machine shows here. */
export function loadAverage(): [number, number, number] {
  const [a, b, c] = os.loadavg();
  return [round(a!, 2), round(b!, 2), round(c!, 2)];
}

export function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** Resident memory of a process from /proc (kB fields), in MB; null where /proc is missing. */
export function memoryOf(pid: number): { rssMb: number; peakRssMb: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) / 1024;
    return { rssMb: round(field('VmRSS')), peakRssMb: round(field('VmHWM')) };
  } catch {
    return null;
  }
}

/**
 * The node flags of the CLI's shebang (bin/quarry.js: what `npm start` and `quarry serve` run with),
 * so that processes standing for the CLI (the demo, the API) are measured as it runs them, not with
 * the benchmark's own flags (package.json's bench script).
 */
export const CLI_NODE_FLAGS = readFileSync(path.join(ROOT, 'bin', 'quarry.js'), 'utf8')
  .split('\n', 1)[0]!
  .split(/\s+/)
  .filter((word) => word.startsWith('--'));

/** /proc counts CPU time in hundredths of a second. */
const TICKS = 100;

/** CPU seconds the whole machine has spent busy since boot, every core (from /proc/stat). */
export function machineBusySeconds(): number {
  const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  return (user! + nice! + system! + irq! + softirq! + steal!) / TICKS;
}

/** CPU seconds of one process, user and system (from /proc). */
export function processCpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}

export interface Child {
  process: ChildProcess;
  pid: number;
  /** Everything the child wrote to stdout and stderr, for error messages. */
  output(): string;
  /** Resolves with the exit code when the child ends. */
  exited: Promise<number | null>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when it has exited. */
  stop(graceMs?: number): Promise<number | null>;
}

/**
 * Starts a node script as a child `node` process (a TypeScript one through tsx's loader), so that
 * its pid is the process that does the work (no npx or shell in between) and its memory can be read.
 */
export function startNode(script: string, args: string[], env: Record<string, string | undefined>, nodeFlags: string[] = []): Child {
  const loader = script.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child = spawn(process.execPath, [...nodeFlags, ...loader, script, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output += chunk.toString();
    if (output.length > 200_000) output = output.slice(-100_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    process: child,
    pid: child.pid!,
    output: () => output,
    exited,
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** Polls `check` every `intervalMs` until it returns true; throws after `timeoutMs` or when `alive` turns false. */
export async function waitFor(what: string, check: () => Promise<boolean>, options: { timeoutMs: number; intervalMs?: number; alive?: () => boolean }): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    if (options.alive && !options.alive()) throw new Error(`${what}: the process exited`);
    try {
      if (await check()) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`${what}: no answer within ${Math.round(options.timeoutMs / 1000)} s`);
    await sleep(options.intervalMs ?? 100);
  }
}

export function log(message: string): void {
  const time = new Date().toISOString().slice(11, 19);
  console.error(`[${time}] ${message}`);
}
