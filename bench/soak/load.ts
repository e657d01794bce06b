/**
 * The soak's steady load: the case mix sent at a fixed rate, in turn to each API (the primary's
 * `quarry serve --workers 2` and the standby's `quarry serve`), every path to both, on keep-alive
 * connections as a front end's server would hold them. Each answer is kept with the phase it was
 * asked in: its status (or the connection error), its time, and whether a 503 said Retry-After.
 */
import http from 'node:http';
import type { Timeline } from './timeline.ts';

export interface ApiTarget {
  name: 'primary' | 'standby';
  base: string;
}

export interface Answer {
  /** Seconds from the soak's start, when it was asked. */
  at: number;
  phase: string;
  target: ApiTarget['name'];
  path: string;
  /** The HTTP status, or null when the connection failed (see `error`). */
  status: number | null;
  error?: string;
  ms: number;
  retryAfter: boolean;
}

/** Requests waiting for an answer at most; past it a tick is skipped (and counted). */
const MAX_IN_FLIGHT = 32;
const TIMEOUT_MS = 30_000;
/** An idle keep-alive socket's life (the agent destroys a free socket when its timeout fires). */
const IDLE_MS = 20_000;

export class PacedLoad {
  readonly answers: Answer[] = [];
  /** Ticks skipped because MAX_IN_FLIGHT requests were waiting. */
  skipped = 0;
  private inFlight = 0;
  private timer: NodeJS.Timeout | undefined;
  private sent = 0;
  private readonly agents: Map<string, http.Agent>;
  private drained: (() => void) | null = null;

  constructor(
    private readonly targets: ApiTarget[],
    private readonly paths: string[],
    private readonly rate: number,
    private readonly headers: Record<string, string>,
    private readonly timeline: Timeline,
  ) {
    // An idle socket is closed after IDLE_MS, before the API's keep-alive timeout (Fastify's 72 s)
    // would close it from the other side: a request written on a socket the server is closing at
    // that moment fails with ECONNRESET. A front end's proxy keeps its idle upstream connections
    // shorter than the server's for the same reason. The agent reuses the last freed socket first,
    // so at this load the sockets a burst opened sit idle for minutes.
    this.agents = new Map(targets.map((t) => [t.name, new http.Agent({ keepAlive: true, maxSockets: 8, timeout: IDLE_MS })]));
  }

  start(): void {
    const started = performance.now();
    // Ticks catch up on a late timer, so the rate holds on a busy machine.
    this.timer = setInterval(() => {
      const due = Math.floor(((performance.now() - started) / 1000) * this.rate);
      while (this.sent < due) this.send(this.sent++);
    }, Math.max(5, Math.floor(1000 / this.rate / 2)));
  }

  /**
   * Every path once on every API, `concurrency` at a time: each process has then planned, compiled
   * and allocated for every kind of request, so that the memory of the steady phases is not its
   * warm-up.
   */
  async warm(concurrency: number): Promise<void> {
    let next = 0;
    const total = this.paths.length * this.targets.length;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < total) await this.ask(next++);
      }),
    );
  }

  /** Stops sending and waits for the answers in flight. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    if (this.inFlight > 0) await new Promise<void>((resolve) => (this.drained = resolve));
    for (const agent of this.agents.values()) agent.destroy();
  }

  private send(n: number): void {
    if (this.inFlight >= MAX_IN_FLIGHT) {
      this.skipped++;
      return;
    }
    void this.ask(n);
  }

  /** Asks the `n`th request of the mix; resolves with its answer kept. */
  private ask(n: number): Promise<void> {
    const target = this.targets[n % this.targets.length]!;
    const path = this.paths[Math.floor(n / this.targets.length) % this.paths.length]!;
    const answer: Answer = { at: this.timeline.now(), phase: this.timeline.phase, target: target.name, path, status: null, ms: 0, retryAfter: false };
    const started = performance.now();
    this.inFlight++;
    return new Promise<void>((resolve) => {
      let done = false;
      const finish = (status: number | null, error?: string, retryAfter = false) => {
        if (done) return;
        done = true;
        answer.status = status;
        if (error) answer.error = error;
        answer.retryAfter = retryAfter;
        answer.ms = performance.now() - started;
        this.answers.push(answer);
        if (--this.inFlight === 0) this.drained?.();
        resolve();
      };
      const request = http.get(`${target.base}${path}`, { agent: this.agents.get(target.name), headers: this.headers, timeout: TIMEOUT_MS }, (response) => {
        response.resume();
        response.on('end', () => finish(response.statusCode ?? null, undefined, response.headers['retry-after'] !== undefined));
        response.on('error', (error) => finish(null, (error as NodeJS.ErrnoException).code ?? error.message));
      });
      request.on('timeout', () => request.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
      request.on('error', (error) => finish(null, (error as NodeJS.ErrnoException).code ?? error.message));
    });
  }
}
