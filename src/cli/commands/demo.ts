/**
 * `quarry demo` (what `npm start` runs): on an empty embedded store, generates a demo world — the
 * last 372 days of pow and 60 days of pos (qrysm mainnet's 60 s slots), with the migration cutover
 * inside — loads it, and serves the API; then the world lives on: both chains make blocks at their
 * pace (`--pace`), now and then with a short reorg, followed through the indexers' own pipeline.
 * Later starts on the same data serve at once and carry on from the stored tips. Prints the URL,
 * the docs URL and a demo key.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import type { Logger } from 'pino';
import sql from 'sql-template-tag';
import { loadConfig, type LogLevel } from '../../config/env.ts';
import { createLogger } from '../../log.ts';
import { migrate } from '../../store/migrate.ts';
import { openStore } from '../../store/open.ts';
import { acquireWriterLock } from '../../store/writer-lock.ts';
import type { LoadStep } from '../../ingest/load-synthetic.ts';
import { bulkLoadInProgress } from '../../ingest/bulk.ts';
import { closeOnSignal, startServer } from '../../api/server.ts';
import { OPENAPI_PATH } from '../../api/plugins/openapi.ts';
import type { Progress } from '../progress.ts';
import type { LiveWorld } from '../../ingest/live-world.ts';
import { createChainLoads, type LoadingChains } from '../../ingest/loading.ts';
import { CHAINS, type ChainId } from '../../chain/chains.ts';
import type { SyntheticOptions, SyntheticWorld } from '../../sources/synthetic/index.ts';
import type { Store } from '../../store/store.ts';
import { DAY_SECONDS } from '../../time.ts';

/**
 * The demo world's history: deterministic, sized for a first start of about a minute and a half on
 * a 2-core machine (docs/synthetic-data.md, "The demo world"): every default window full (365 closed days
 * of pow), fewer transactions a day than a busy chain; a few multi-signature addresses and reused
 * one-time keys on pow, what an explorer's pow pages warn about.
 */
const DEMO_HISTORY = { seed: 1, powDays: 372, posDays: 60, scale: 120, posSlotSeconds: 60, posSlotsPerEpoch: 128, powMultiSig: 4, powOtsReuses: 4 } as const;
/** Days the world runs on after its load: the demo's chains make blocks for as long, then stand still. */
const LIVE_DAYS = 30;
/** Mean blocks between two short reorgs once the world lives (about one every half hour per chain at pace 1). */
const LIVE_REORG_EVERY = 30;
/** Days before the end of the history at which the pow-to-pos migration begins. */
const MIGRATION_DAYS = 20;

/** The demo world whose history ends at `liveFrom` (Unix seconds, a whole minute). */
export function demoWorld(liveFrom: number): SyntheticOptions {
  return {
    ...DEMO_HISTORY,
    powDays: DEMO_HISTORY.powDays + LIVE_DAYS,
    posDays: DEMO_HISTORY.posDays + LIVE_DAYS,
    end: new Date((liveFrom + LIVE_DAYS * DAY_SECONDS) * 1000),
    migrationCutover: new Date((liveFrom - MIGRATION_DAYS * DAY_SECONDS) * 1000),
    live: { from: new Date(liveFrom * 1000), reorgEvery: LIVE_REORG_EVERY },
  };
}

/** Beside the demo data: when its world's history ended, so that every start rebuilds the same world. */
const WORLD_FILE = 'demo-world.json';

export function readWorldFile(dataDir: string): number | null {
  const file = path.join(dataDir, WORLD_FILE);
  if (!existsSync(file)) return null;
  const { liveFrom } = JSON.parse(readFileSync(file, 'utf8')) as { liveFrom?: unknown };
  return typeof liveFrom === 'number' && Number.isInteger(liveFrom) ? liveFrom : null;
}

/** `--pace`: how many times as fast as the wall clock the demo's chains make blocks; 0 ("off"): not at all. */
export function parsePace(raw: string): number {
  if (raw === 'off') return 0;
  const pace = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || !(pace > 0) || pace > 10_000) throw new InvalidArgumentError('a factor above 0 and at most 10000 (1: a block a minute on each chain), or "off"');
  return pace;
}

/** What the progress display calls each step of the load. */
const STEP_LABELS: Record<LoadStep, string> = {
  pow: 'generating, writing pow',
  'pow rollups': 'pow: last batch, rollups',
  pos: 'generating, writing pos',
  'pos rollups': 'pos: last batch, rollups',
  curated: 'curated data, staking',
  days: 'closing days',
  indexes: 'building indexes',
  analyze: 'analyzing tables',
  labels: 'labels, exchange figures',
};

/**
 * Each step's share of the work of a stage of the load, for the time left (JobClock): until pos is
 * served, then until pow is in too; in proportion to the processor time each step takes in a
 * profile of the demo's first start.
 */
const POS_STEP_SHARES: Record<LoadStep, number> = { pos: 5, 'pos rollups': 1, curated: 0.2, days: 0.5, indexes: 1, analyze: 1, labels: 0.5, pow: 0, 'pow rollups': 0 };
const POW_STEP_SHARES: Record<LoadStep, number> = { pow: 72, 'pow rollups': 30, days: 17, indexes: 51, analyze: 6, labels: 6, pos: 0, 'pos rollups': 0, curated: 0 };
/** Steps of one chain; the others are labelled with the chain of the stage they run in. */
const CHAIN_STEPS: ReadonlySet<LoadStep> = new Set(['pow', 'pow rollups', 'pos', 'pos rollups']);

/**
 * A file beside the demo data while its first load runs. A start that finds it (or a bulk load's
 * marker) knows the last load stopped midway, and starts the demo over on an empty store rather
 * than serve half a world (the demo's world ends at the minute its load began, so a later load
 * could not resume it).
 */
const LOADING_FILE = 'demo-loading';
/** On a later start, the chains resume after the API's first answer, or after this long without a request. */
const LIVE_RESUME_MS = 2_000;

/** The demo key lives beside the demo data, so every start on the same data prints the same key. */
function demoKey(dataDir: string): string {
  const file = path.join(dataDir, 'demo-key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const key = `demo_${randomBytes(24).toString('base64url')}`;
  writeFileSync(file, key + '\n', { mode: 0o600 });
  return key;
}

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description('serve the API on the embedded store with generated demo data (created on first start) whose chains go on making blocks')
    .option('--pace <factor>', 'how fast the chains make blocks: 1 is a pow block a minute and a pos block a slot (60 s), 60 a block a second, "off" none', parsePace, 1)
    .action(async (flags: { pace: number }) => {
      const started = performance.now();
      const env = { QUARRY_POW_NETWORK: 'demo', QUARRY_POS_NETWORK: 'demo', ...process.env };
      const base = loadConfig(env);
      const key = demoKey(base.dataDir);
      const config = { ...base, apiKeys: [...base.apiKeys, key] };
      const logger = createLogger(config.logLevel);
      // Loading the demo is all slow statements by design (and the requests served meanwhile wait
      // behind them): only serving once every chain is in reports them.
      let serving = false;
      // Chains still loading (a first start's): empty on a later start.
      const loads = createChainLoads();
      const store = await openStore(config, 'api', {
        onSlowQuery: (label, ms) => serving && loads.current().size === 0 && logger.warn({ label, ms: Math.round(ms) }, 'slow query'),
      });
      await migrate(store);
      const loading = path.join(config.dataDir, LOADING_FILE);
      if (existsSync(loading) || (await bulkLoadInProgress(store))) {
        console.error('the last first start stopped before the demo was loaded: starting over');
        await store.exec('demo.reset', 'DROP SCHEMA public CASCADE; CREATE SCHEMA public');
        await migrate(store);
      }
      // Both chains' writer locks while the demo may load; serving only reads, and lets them go.
      const lock = await acquireWriterLock(store, ['pow', 'pos'], { command: 'demo' });
      const [existing] = await store.query<{ n: number }>('demo.blocks', sql`SELECT count(*)::int AS n FROM (SELECT 1 FROM blocks LIMIT 1) b`);
      let liveFrom = existing?.n ? readWorldFile(config.dataDir) : null;
      const lives: LiveWorld[] = [];
      /** A later start's resumption of the chains, begun once the API has answered (awaited before they stop). */
      let resuming: Promise<void> | undefined;
      /**
       * Starts the API (once; `loads` names the chains still loading) and stops it, the chains and the
       * store on a signal. The demo's page opens with its key filled in (docs/dashboard.md); `quarry serve` never does this.
       */
      const serve = async () => {
        const server = await startServer(config, store, logger, { dashboardKey: key, loading: loads });
        serving = true;
        const stopping = {
          async close() {
            if (loads.current().size > 0) {
              // The load has no clean stop; the loading file makes the next start load the demo again.
              console.error('stopped while the demo was still loading: the next start loads it again');
              process.exit(130);
            }
            await resuming;
            await Promise.all(lives.map((live) => live.stop()));
            await server.close();
          },
        };
        closeOnSignal(logger, { server: stopping, store });
        return server;
      };
      const banner = (url: string) => {
        const seconds = (performance.now() - started) / 1000;
        const live = flags.pace > 0 && liveFrom !== null;
        console.log(servingBanner(url, key, seconds, live ? flags.pace : null, liveFrom === null ? config.dataDir : null, loads));
      };
      if (existing?.n) {
        const server = await serve();
        banner(server.url);
        if (flags.pace > 0 && liveFrom !== null) {
          // The world lives on (it keeps the writer locks). Resuming it replays the generator from
          // genesis to the stored tips, seconds of this thread's time: serving comes first.
          const from = liveFrom;
          resuming = afterFirstAnswer(server.app.server, LIVE_RESUME_MS)
            .then(() => startLive(store, null, from, flags.pace, config.logLevel, logger, CHAINS))
            .then((live) => void lives.push(live))
            .catch((error: unknown) => logger.error({ err: error instanceof Error ? error.message : String(error) }, 'the demo chains did not resume'));
        } else await lock.release();
        return;
      }
      console.error(`generating the demo chains (${DEMO_HISTORY.powDays} days of pow, ${DEMO_HISTORY.posDays} days of pos) into ${config.dataDir}…`);
      writeFileSync(loading, `${process.pid}\n`);
      liveFrom = Math.floor(Date.now() / 60_000) * 60;
      writeFileSync(path.join(config.dataDir, WORLD_FILE), JSON.stringify({ liveFrom }) + '\n');
      // The generator, the pipeline and the rollups' bulk path: loaded only by the start that loads.
      const [{ loadSyntheticWorldPosFirst }, { createJobClock, createStep }, { createSyntheticWorld }] = await Promise.all([
        import('../../ingest/load-synthetic.ts'),
        import('../progress.ts'),
        import('../../sources/synthetic/index.ts'),
      ]);
      const world = createSyntheticWorld(demoWorld(liveFrom));
      let bar: Progress | undefined;
      // The time left is first that until pos is served, then that until pow is in too.
      let clock = createJobClock(POS_STEP_SHARES);
      const report = await loadSyntheticWorldPosFirst(store, world, {
        loads,
        onStep: (step, total, unit) => {
          bar?.stop();
          clock.step(step, total);
          const stage = loads.current().has('pos') ? 'pos' : 'pow';
          bar = createStep(CHAIN_STEPS.has(step) ? STEP_LABELS[step] : `${stage}: ${STEP_LABELS[step]}`, total, unit, clock.left);
        },
        onStepProgress: (done) => {
          clock.progress(done);
          bar?.update(done);
        },
        onPosLoaded: async () => {
          bar?.stop();
          bar = undefined;
          const server = await serve();
          // pos lives from now on; pow joins it once loaded.
          if (flags.pace > 0) lives.push(await startLive(store, world, liveFrom!, flags.pace, config.logLevel, logger, ['pos']));
          banner(server.url);
          clock = createJobClock(POW_STEP_SHARES);
        },
      });
      bar?.stop();
      rmSync(loading, { force: true });
      if (flags.pace > 0) lives.push(await startLive(store, world, liveFrom, flags.pace, config.logLevel, logger, ['pow']));
      else await lock.release();
      const txs = report.chains.pow.transactions + report.chains.pos.transactions;
      const { pow, pos, finish, total } = report.seconds;
      console.error(
        `loaded ${report.chains.pow.blocks + report.chains.pos.blocks} blocks and ${txs} transactions in ${total.toFixed(0)} s ` +
          `(pow ${pow.toFixed(0)} s, pos ${pos.toFixed(0)} s, days, indexes and labels ${finish.toFixed(0)} s): both chains are served`,
      );
    });
}

/** Resolves once `server` has finished its first answer, or after `ms` without a request. */
function afterFirstAnswer(server: Server, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      server.off('request', answered);
      resolve();
    }
    function answered(_request: IncomingMessage, response: ServerResponse) {
      response.once('close', done);
    }
    server.on('request', answered);
  });
}

/**
 * Follows the demo world's chains from the store's tips (loaded only now on a later start: the
 * generator and the pipeline are not needed for the first answer).
 */
async function startLive(store: Store, loaded: SyntheticWorld | null, liveFrom: number, pace: number, level: LogLevel, logger: Logger, chains: readonly ChainId[]): Promise<LiveWorld> {
  const [{ createSyntheticWorld }, { followLiveWorld }, { worldClock }] = await Promise.all([
    import('../../sources/synthetic/index.ts'),
    import('../../ingest/live-world.ts'),
    import('../../sources/synthetic/paced.ts'),
  ]);
  const world = loaded ?? createSyntheticWorld(demoWorld(liveFrom));
  // The followed chains log per batch at info: the demo's console shows only their warnings unless asked for more.
  const quiet = logger.child({ part: 'demo chains' }, { level: level === 'debug' || level === 'trace' ? level : 'warn' });
  return followLiveWorld(store, world, worldClock(liveFrom, pace), quiet, chains);
}

/** What the demo prints once it serves: where, the key, and whether its chains live (and which still loads). */
function servingBanner(url: string, key: string, seconds: number, pace: number | null, staleDataDir: string | null, loads: LoadingChains): string {
  const loading = [...loads.current().keys()];
  return [
    '',
    `Quarry demo is serving at ${url} (ready in ${seconds.toFixed(1)} s)`,
    `  dashboard: ${url}/`,
    `  docs:      ${url}/docs`,
    `  openapi:   ${url}${OPENAPI_PATH}`,
    `  demo key:  ${key}`,
    `  try:       curl -H "Authorization: Bearer ${key}" ${url}/api/v1/pos/addresses/stats/summary`,
    pace !== null
      ? `  chains:    making blocks at pace ${pace} (a block every ${formatSeconds(60 / pace)} on each chain; --pace N or --pace off)`
      : `  chains:    standing still${staleDataDir !== null ? ' (this demo data predates the living demo: delete ' + staleDataDir + ' for a new one)' : ' (--pace off)'}`,
    ...(loading.length > 0 ? [`  loading:   ${loading.join(', ')} (answered 503 until it is in; /readyz says how far)`] : []),
    '',
  ].join('\n');
}

function formatSeconds(seconds: number): string {
  return seconds >= 1 ? `${Number(seconds.toFixed(1))} s` : `${Math.round(seconds * 1000)} ms`;
}
