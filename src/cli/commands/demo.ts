/**
 * `quarry demo` (what `npm start` runs): on an empty embedded store, generates a demo world — the
 * last 372 days of pow and 60 days of pos (qrysm mainnet's 60 s slots), with the migration cutover
 * inside — loads it, and serves the API; then the world lives on: both chains make blocks at their
 * pace (`--pace`), now and then with a short reorg, followed through the indexers' own pipeline.
 * Later starts on the same data serve at once and carry on from the stored tips. Prints the URL,
 * the docs URL and a demo key.
 */
import { randomBytes } from 'node:crypto';
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
 * Each step's share of the load's work, for the time left in all (JobClock): in proportion to
 * the processor time each step takes in a profile of the demo's load.
 */
const STEP_SHARES: Record<LoadStep, number> = {
  pow: 17,
  'pow rollups': 22,
  pos: 1.5,
  'pos rollups': 2,
  curated: 0.3,
  days: 5,
  indexes: 22,
  analyze: 2,
  labels: 2,
};

/**
 * A file beside the demo data while its first load runs. A start that finds it (or a bulk load's
 * marker) knows the last load stopped midway, and starts the demo over on an empty store rather
 * than serve half a world (the demo's world ends at the minute its load began, so a later load
 * could not resume it).
 */
const LOADING_FILE = 'demo-loading';

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
      // Loading the demo is all slow statements by design; only serving reports them.
      let serving = false;
      const store = await openStore(config, 'api', {
        onSlowQuery: (label, ms) => serving && logger.warn({ label, ms: Math.round(ms) }, 'slow query'),
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
      let world: SyntheticWorld | null = null;
      let liveFrom = existing?.n ? readWorldFile(config.dataDir) : null;
      if (!existing?.n) {
        console.error(`generating the demo chains (${DEMO_HISTORY.powDays} days of pow, ${DEMO_HISTORY.posDays} days of pos) into ${config.dataDir}…`);
        writeFileSync(loading, `${process.pid}\n`);
        liveFrom = Math.floor(Date.now() / 60_000) * 60;
        writeFileSync(path.join(config.dataDir, WORLD_FILE), JSON.stringify({ liveFrom }) + '\n');
        // The generator, the pipeline and the rollups' bulk path: loaded only by the start that loads.
        const [{ loadSyntheticWorld }, { createJobClock, createStep }, { createSyntheticWorld }] = await Promise.all([
          import('../../ingest/load-synthetic.ts'),
          import('../progress.ts'),
          import('../../sources/synthetic/index.ts'),
        ]);
        world = createSyntheticWorld(demoWorld(liveFrom));
        let bar: Progress | undefined;
        const clock = createJobClock(STEP_SHARES);
        const report = await loadSyntheticWorld(
          store,
          world,
          {
            onStep: (step, total, unit) => {
              bar?.stop();
              clock.step(step, total);
              bar = createStep(STEP_LABELS[step], total, unit, clock.left);
            },
            onStepProgress: (done) => {
              clock.progress(done);
              bar?.update(done);
            },
          },
        );
        bar?.stop();
        const txs = report.chains.pow.transactions + report.chains.pos.transactions;
        const { pow, pos, finish, total } = report.seconds;
        console.error(
          `loaded ${report.chains.pow.blocks + report.chains.pos.blocks} blocks and ${txs} transactions in ${total.toFixed(0)} s ` +
            `(pow ${pow.toFixed(0)} s, pos ${pos.toFixed(0)} s, days, indexes and labels ${finish.toFixed(0)} s)`,
        );
        rmSync(loading, { force: true });
      }
      // The demo's page opens with its key filled in (docs/dashboard.md); `quarry serve` never does this.
      const server = await startServer(config, store, logger, { dashboardKey: key });
      serving = true;
      // The world lives on (it keeps the writer locks): generated and followed after the first answer.
      const live = flags.pace > 0 && liveFrom !== null ? await startLive(store, world, liveFrom, flags.pace, config.logLevel, logger) : null;
      if (!live) await lock.release();
      const stopping = {
        async close() {
          await live?.stop();
          await server.close();
        },
      };
      closeOnSignal(logger, { server: stopping, store });
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      console.log(
        [
          '',
          `Quarry demo is serving at ${server.url} (ready in ${seconds} s)`,
          `  dashboard: ${server.url}/`,
          `  docs:      ${server.url}/docs`,
          `  openapi:   ${server.url}${OPENAPI_PATH}`,
          `  demo key:  ${key}`,
          `  try:       curl -H "Authorization: Bearer ${key}" ${server.url}/api/v1/pos/addresses/stats/summary`,
          live
            ? `  chains:    making blocks at pace ${flags.pace} (a block every ${formatSeconds(60 / flags.pace)} on each chain; --pace N or --pace off)`
            : `  chains:    standing still${liveFrom === null ? ' (this demo data predates the living demo: delete ' + config.dataDir + ' for a new one)' : ' (--pace off)'}`,
          '',
        ].join('\n'),
      );
    });
}

/**
 * Follows the demo world's chains from the store's tips (loaded only now on a later start: the
 * generator and the pipeline are not needed for the first answer).
 */
async function startLive(store: Store, loaded: SyntheticWorld | null, liveFrom: number, pace: number, level: LogLevel, logger: Logger): Promise<LiveWorld> {
  const [{ createSyntheticWorld }, { followLiveWorld }, { worldClock }] = await Promise.all([
    import('../../sources/synthetic/index.ts'),
    import('../../ingest/live-world.ts'),
    import('../../sources/synthetic/paced.ts'),
  ]);
  const world = loaded ?? createSyntheticWorld(demoWorld(liveFrom));
  // The followed chains log per batch at info: the demo's console shows only their warnings unless asked for more.
  const quiet = logger.child({ part: 'demo chains' }, { level: level === 'debug' || level === 'trace' ? level : 'warn' });
  return followLiveWorld(store, world, worldClock(liveFrom, pace), quiet);
}

function formatSeconds(seconds: number): string {
  return seconds >= 1 ? `${Number(seconds.toFixed(1))} s` : `${Math.round(seconds * 1000)} ms`;
}
