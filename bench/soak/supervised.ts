/**
 * A `quarry` command run as systemd runs the units of docs/deploy.md: `Restart=always`, so a
 * process that exits for any reason is started again after `restartMs` (the unit's RestartSec).
 * Every line it writes goes to the soak's timeline; every exit is kept, and one the soak did not
 * cause (its own SIGKILL, or the stop at the end) is a finding.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { quarryArgs } from '../../test/support/quarry-command.ts';
import { ROOT } from '../proc.ts';
import type { Timeline } from './timeline.ts';

export interface Exit {
  /** Seconds from the soak's start. */
  at: number;
  code: number | null;
  signal: string | null;
  /** The soak killed it (a fault) or stopped it (the end). */
  expected: boolean;
}

export class Supervised {
  private child: ChildProcess | undefined;
  private stopping = false;
  private expectExit = false;
  private restartTimer: NodeJS.Timeout | undefined;
  readonly exits: Exit[] = [];
  starts = 0;
  /** The last lines of stderr, for an error message. */
  private tail: string[] = [];

  constructor(
    readonly name: string,
    private readonly args: string[],
    readonly env: Record<string, string>,
    private readonly timeline: Timeline,
    private readonly restartMs: number,
  ) {}

  get pid(): number | undefined {
    return this.child && this.child.exitCode === null && this.child.signalCode === null ? this.child.pid : undefined;
  }

  start(): void {
    this.starts++;
    const child = spawn(process.execPath, quarryArgs(this.args), { cwd: ROOT, env: { ...process.env, ...this.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    createInterface({ input: child.stdout! }).on('line', (line) => this.timeline.log(this.name, line, 'stdout'));
    createInterface({ input: child.stderr! }).on('line', (line) => {
      this.timeline.log(this.name, line, 'stderr');
      this.tail.push(line);
      if (this.tail.length > 40) this.tail.shift();
    });
    child.once('exit', (code, signal) => {
      this.exits.push({ at: this.timeline.now(), code, signal, expected: this.expectExit || this.stopping });
      this.expectExit = false;
      if (this.stopping) return;
      this.restartTimer = setTimeout(() => this.start(), this.restartMs);
    });
  }

  /** A fault: SIGKILL, as the OOM killer or a crash would; the supervisor starts it again. */
  kill(): void {
    if (!this.child?.pid) return;
    this.expectExit = true;
    this.child.kill('SIGKILL');
  }

  /** Exits the soak did not cause. */
  unexpectedExits(): Exit[] {
    return this.exits.filter((e) => !e.expected);
  }

  stderrTail(): string {
    return this.tail.join('\n');
  }

  /** SIGTERM and no restart; resolves with the exit code (SIGKILL after `graceMs`). */
  async stop(graceMs = 30_000): Promise<number | null> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return child?.exitCode ?? null;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    const code = await exited;
    clearTimeout(timer);
    return code;
  }
}
