/**
 * `quarry serve --workers N` (docs/deploy.md): N API processes on one port, through node:cluster.
 * The primary process answers no request: it forks the workers, each of which runs the same app as
 * a single `quarry serve` (the kernel socket is the primary's, and it hands each new connection to
 * the next worker in turn), restarts a worker that dies (after a delay that doubles while workers
 * keep dying young, so a broken start does not spin), and on SIGTERM or SIGINT asks every worker to
 * close as one process does (the requests in flight finish, then the store closes) and exits once
 * all have. One scrape of /metrics, on any worker, sees every worker: the worker asks the primary,
 * which collects each worker's registry and combines them (prom-client's AggregatorRegistry:
 * counters and histograms summed; the store's gauges by max or min, api/metrics/chains.ts).
 */
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { AggregatorRegistry, type Registry } from 'prom-client';
import { serveMetrics, type MetricsServer } from '../api/metrics/registry.ts';
import { apiWorkerExecArgv } from './worker-flags.ts';

const METRICS_REQUEST = 'quarry:cluster-metrics';
const METRICS_ANSWER = 'quarry:cluster-metrics-answer';

/** A worker that lived this long before dying is restarted at once; one that died younger waits. */
const HEALTHY_LIFETIME_MS = 10_000;
const FIRST_RESTART_DELAY_MS = 250;
const MAX_RESTART_DELAY_MS = 10_000;
/** How long a SIGTERM waits for the workers to finish their requests before ending them. */
const STOP_DEADLINE_MS = 30_000;

export interface PrimaryOptions {
  workers: number;
  logger: Logger;
  /** Where to serve the combined /metrics when QUARRY_METRICS_PORT gives it a port of its own. */
  metricsPort?: { host: string; port: number };
}

/** The delay before restarting a worker after `youngDeaths` workers in a row died young (1, 2, …). */
export function restartDelayMs(youngDeaths: number): number {
  if (youngDeaths <= 0) return 0;
  return Math.min(MAX_RESTART_DELAY_MS, FIRST_RESTART_DELAY_MS * 2 ** (youngDeaths - 1));
}

/** Runs the primary: forks `workers` workers and keeps them running until a signal. Never resolves before exit. */
export async function runPrimary(options: PrimaryOptions): Promise<void> {
  const { logger, workers } = options;
  const aggregator = new AggregatorRegistry();
  const bornAt = new Map<number, number>();
  const listening = new Set<number>();
  let youngDeaths = 0;
  let stopping = false;
  let announced = false;
  const restarts = new Set<NodeJS.Timeout>();
  cluster.setupPrimary({ execArgv: apiWorkerExecArgv() });

  cluster.on('message', (worker: Worker, message: { type?: string; id?: number }) => {
    if (message?.type !== METRICS_REQUEST) return;
    aggregator.clusterMetrics().then(
      (text) => worker.isConnected() && worker.send({ type: METRICS_ANSWER, id: message.id, text }),
      (error: unknown) => worker.isConnected() && worker.send({ type: METRICS_ANSWER, id: message.id, error: String(error) }),
    );
  });

  const fork = () => {
    const worker = cluster.fork();
    bornAt.set(worker.id, Date.now());
  };

  cluster.on('listening', (worker, address) => {
    listening.add(worker.id);
    if (announced || listening.size < workers) return;
    announced = true;
    const host = address.addressType === 6 ? `[${address.address}]` : address.address;
    logger.info({ url: `http://${host}:${address.port}`, workers }, 'quarry is serving');
  });

  cluster.on('exit', (worker, code, signal) => {
    listening.delete(worker.id);
    const lived = Date.now() - (bornAt.get(worker.id) ?? Date.now());
    bornAt.delete(worker.id);
    if (stopping) return;
    youngDeaths = lived < HEALTHY_LIFETIME_MS ? youngDeaths + 1 : 0;
    const delay = restartDelayMs(youngDeaths);
    logger.error({ exited: worker.id, pid: worker.process.pid, code, signal, livedMs: lived, restartInMs: delay }, 'API worker died: starting another');
    const timer = setTimeout(() => {
      restarts.delete(timer);
      if (!stopping) fork();
    }, delay);
    restarts.add(timer);
  });

  let metrics: MetricsServer | undefined;
  if (options.metricsPort) {
    const combined = { metrics: () => aggregator.clusterMetrics(), contentType: aggregator.contentType };
    metrics = await serveMetrics(combined, options.metricsPort.host, options.metricsPort.port);
    logger.info({ metrics: metrics.url }, 'serving the workers\' combined metrics');
  }

  for (let i = 0; i < workers; i++) fork();

  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    for (const timer of restarts) clearTimeout(timer);
    logger.info({ signal, workers: Object.keys(cluster.workers ?? {}).length }, 'shutting down: each worker finishes its requests in flight');
    const running = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
    let code = 0;
    const exits = running.map(
      (worker) =>
        new Promise<void>((resolve) => {
          worker.once('exit', (exitCode, exitSignal) => {
            if (exitCode !== 0 || exitSignal) code = 1;
            resolve();
          });
        }),
    );
    for (const worker of running) worker.process.kill('SIGTERM');
    const deadline = setTimeout(() => {
      logger.error({ afterMs: STOP_DEADLINE_MS }, 'workers still running: ending them');
      for (const worker of running) worker.process.kill('SIGKILL');
    }, STOP_DEADLINE_MS);
    await Promise.all(exits);
    clearTimeout(deadline);
    await metrics?.close();
    logger.info({ code }, 'shut down');
    process.exit(code);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}

export interface WorkerMetrics {
  /** What the worker's /metrics answers: the text the primary combined from every worker. */
  text(): Promise<string>;
  /** Lets the primary collect `registry` (the worker app's) when it combines. */
  share(registry: Registry): void;
}

/** In a worker: its part in the combined /metrics. */
export function workerMetrics(): WorkerMetrics {
  const waiting = new Map<number, { resolve: (text: string) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }>();
  let next = 0;
  process.on('message', (message: { type?: string; id?: number; text?: string; error?: string }) => {
    if (message?.type !== METRICS_ANSWER || message.id === undefined) return;
    const pending = waiting.get(message.id);
    if (!pending) return;
    waiting.delete(message.id);
    clearTimeout(pending.timer);
    if (message.error !== undefined) pending.reject(new Error(message.error));
    else pending.resolve(message.text ?? '');
  });
  const text = () =>
    new Promise<string>((resolve, reject) => {
      const id = next++;
      // prom-client's own collection gives up after 5 s; this only ends a wait on a primary that is gone.
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error('the primary did not answer with the combined metrics'));
      }, 10_000);
      waiting.set(id, { resolve, reject, timer });
      process.send!({ type: METRICS_REQUEST, id });
    });
  return {
    text,
    share: (registry) => {
      AggregatorRegistry.setRegistries([registry]);
      // Constructing one installs prom-client's answer to the primary's requests in this worker.
      new AggregatorRegistry();
    },
  };
}

/** The id of this worker, or undefined in a process that is not one. */
export function workerId(): number | undefined {
  return cluster.isWorker ? cluster.worker?.id : undefined;
}

export const isWorker = (): boolean => cluster.isWorker;
