/**
 * `quarry serve --workers N` (docs/deploy.md): N API processes on one port, through node:cluster.
 * The primary process answers no request: it forks the workers, each of which runs the same app as
 * a single `quarry serve` (the kernel socket is the primary's, and it hands each new connection to
 * the next worker in turn), restarts a worker that dies (after a delay that doubles while workers
 * keep dying young, so a broken start does not spin), and on SIGTERM or SIGINT asks every worker to
 * close as one process does (the requests in flight finish, then the store closes) and exits once
 * all have. One scrape of /metrics, on any worker, sees every worker: the worker asks the primary,
 * which collects the registry of each worker that is serving and combines them (prom-client's
 * `AggregatorRegistry.aggregate`: counters and histograms summed; the store's gauges by max or min,
 * api/metrics/chains.ts). A worker still starting (it has no registry yet) is not asked, and one
 * that does not answer in time (it died meanwhile) is left out of that scrape: a restart costs a
 * scrape the dead worker's counts, never the scrape.
 */
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { AggregatorRegistry, Registry } from 'prom-client';
import { serveMetrics, type MetricsServer } from '../api/metrics/registry.ts';
import { apiWorkerExecArgv } from './worker-flags.ts';

/** A worker asks the primary for the combined metrics, and gets them. */
const METRICS_REQUEST = 'quarry:cluster-metrics';
const METRICS_ANSWER = 'quarry:cluster-metrics-answer';
/** The primary asks a worker for its registry, and gets it as JSON. */
const REGISTRY_REQUEST = 'quarry:worker-registry';
const REGISTRY_ANSWER = 'quarry:worker-registry-answer';
/** How long the primary waits for a worker's registry before leaving it out of the scrape. */
const REGISTRY_TIMEOUT_MS = 3000;

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
  const bornAt = new Map<number, number>();
  const listening = new Set<number>();
  let youngDeaths = 0;
  let stopping = false;
  let announced = false;
  const restarts = new Set<NodeJS.Timeout>();
  cluster.setupPrimary({ execArgv: apiWorkerExecArgv() });
  const collect = collectMetrics(listening, logger);

  cluster.on('message', (worker: Worker, message: { type?: string; id?: number }) => {
    if (message?.type !== METRICS_REQUEST) return;
    collect().then(
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
    const combined = { metrics: collect, contentType: Registry.PROMETHEUS_CONTENT_TYPE };
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
  // Answered from the start: a worker listens before its registry is shared, and says it has none yet.
  let shared: Registry | null = null;
  process.on('message', (message: { type?: string; id?: number }) => {
    if (message?.type !== REGISTRY_REQUEST) return;
    (shared ? shared.getMetricsAsJSON() : Promise.resolve([])).then(
      (metrics) => process.send!({ type: REGISTRY_ANSWER, id: message.id, metrics }),
      (error: unknown) => process.send!({ type: REGISTRY_ANSWER, id: message.id, error: String(error) }),
    );
  });
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
      // The primary gives up on a worker after REGISTRY_TIMEOUT_MS; this only ends a wait on a primary that is gone.
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
      shared = registry;
    },
  };
}

/**
 * In the primary: the metrics of every worker that is serving (`listening`), combined. Each is
 * asked for its registry; one that has not answered within REGISTRY_TIMEOUT_MS, or exits first, is
 * left out of this answer (and logged), so the scrape still answers with the others'.
 */
/** A worker's registry as `getMetricsAsJSON` gives it. */
type WorkerRegistry = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

function collectMetrics(listening: ReadonlySet<number>, logger: Logger): () => Promise<string> {
  const waiting = new Map<number, { worker: number; resolve: (metrics: WorkerRegistry | null) => void }>();
  let next = 0;
  cluster.on('message', (worker: Worker, message: { type?: string; id?: number; metrics?: WorkerRegistry; error?: string }) => {
    if (message?.type !== REGISTRY_ANSWER || message.id === undefined) return;
    const pending = waiting.get(message.id);
    if (!pending || pending.worker !== worker.id) return;
    waiting.delete(message.id);
    if (message.error !== undefined) logger.warn({ worker: worker.id, error: message.error }, 'a worker could not collect its metrics: left out of this scrape');
    pending.resolve(message.metrics ?? null);
  });
  const ask = (worker: Worker) =>
    new Promise<WorkerRegistry | null>((resolve) => {
      const id = next++;
      const done = (metrics: WorkerRegistry | null) => {
        clearTimeout(timer);
        worker.off('exit', gone);
        waiting.delete(id);
        resolve(metrics);
      };
      const gone = () => done(null);
      const timer = setTimeout(() => {
        logger.warn({ worker: worker.id, afterMs: REGISTRY_TIMEOUT_MS }, 'a worker did not answer for its metrics: left out of this scrape');
        done(null);
      }, REGISTRY_TIMEOUT_MS);
      worker.once('exit', gone);
      waiting.set(id, { worker: worker.id, resolve: done });
      worker.send({ type: REGISTRY_REQUEST, id });
    });
  return async () => {
    const serving = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && listening.has(w.id) && w.isConnected());
    const registries = (await Promise.all(serving.map(ask))).filter((m): m is WorkerRegistry => m !== null);
    return AggregatorRegistry.aggregate(registries).metrics();
  };
}

/** The id of this worker, or undefined in a process that is not one. */
export function workerId(): number | undefined {
  return cluster.isWorker ? cluster.worker?.id : undefined;
}

export const isWorker = (): boolean => cluster.isWorker;
