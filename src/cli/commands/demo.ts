/**
 * `quarry demo` (what `npm start` runs): on an empty embedded store, generates a demo world — the
 * last 400 days of pow and 60 days of pos, with the migration cutover inside — loads it, and
 * serves the API. Later starts on the same data go straight to serving. Prints the URL, the docs
 * URL and a demo key.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import sql from 'sql-template-tag';
import { loadConfig } from '../../config/env.ts';
import { createLogger } from '../../log.ts';
import { migrate } from '../../store/migrate.ts';
import { openStore } from '../../store/open.ts';
import { acquireWriterLock } from '../../store/writer-lock.ts';
import type { LoadStep } from '../../ingest/load-synthetic.ts';
import { bulkLoadInProgress } from '../../ingest/bulk.ts';
import { closeOnSignal, startServer } from '../../api/server.ts';
import { OPENAPI_PATH } from '../../api/plugins/openapi.ts';
import type { Progress } from '../progress.ts';

/** The demo world: deterministic, sized to load into the embedded store in well under 3 minutes. */
const DEMO_WORLD = { seed: 1, powDays: 400, posDays: 60, scale: 400 } as const;

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
  pow: 44,
  'pow rollups': 68,
  pos: 9,
  'pos rollups': 5,
  curated: 1,
  days: 14,
  indexes: 46,
  analyze: 5,
  labels: 7,
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
    .description('serve the API on the embedded store with generated demo data (created on first start)')
    .action(async () => {
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
      if (!existing?.n) {
        console.error(`generating the demo chains (${DEMO_WORLD.powDays} days of pow, ${DEMO_WORLD.posDays} days of pos) into ${config.dataDir}…`);
        writeFileSync(loading, `${process.pid}\n`);
        // The generator, the pipeline and the rollups' bulk path: loaded only by the start that loads.
        const [{ loadSyntheticWorld }, { createJobClock, createStep }] = await Promise.all([import('../../ingest/load-synthetic.ts'), import('../progress.ts')]);
        let bar: Progress | undefined;
        const clock = createJobClock(STEP_SHARES);
        const report = await loadSyntheticWorld(
          store,
          { ...DEMO_WORLD, end: new Date(Math.floor(Date.now() / 60_000) * 60_000) },
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
      await lock.release();
      // The demo's page opens with its key filled in (docs/dashboard.md); `quarry serve` never does this.
      const server = await startServer(config, store, logger, { dashboardKey: key });
      serving = true;
      closeOnSignal(logger, { server, store });
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
          '',
        ].join('\n'),
      );
    });
}
