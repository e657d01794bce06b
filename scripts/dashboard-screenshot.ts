/**
 * The README's picture of the dashboard: a demo-like world (the demo's seed, a shorter history) in
 * an in-memory store, the real app on it with the page's demo key, and headless Chromium writing
 * `docs/images/dashboard.png` at 1280×800.
 *
 *   npx tsx scripts/dashboard-screenshot.ts            write the picture
 *   npx tsx scripts/dashboard-screenshot.ts --serve    keep serving the page instead (prints its URL; PORT, default 8080)
 *   … --data DIR                                        keep the store in DIR and reuse it on the next run
 *
 * Chromium: QUARRY_CHROMIUM, else /usr/bin/chromium or /usr/bin/chromium-browser.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import sql from 'sql-template-tag';
import { loadConfig } from '../src/config/env.ts';
import { createKeyVerifier } from '../src/auth/keys.ts';
import { buildApp } from '../src/api/app.ts';
import { createPgliteDriver } from '../src/store/pglite.ts';
import { createStore } from '../src/store/store.ts';
import { migrate } from '../src/store/migrate.ts';
import { loadSyntheticWorld } from '../src/ingest/load-synthetic.ts';
import { findChromium } from '../test/support/chromium.ts';

/**
 * The demo's seed and scale over a shorter history, so that the picture takes a minute, not three;
 * ending now, to the minute, as the demo does.
 */
const WORLD = { seed: 1, powDays: 45, posDays: 30, scale: 400, end: new Date(Math.floor(Date.now() / 60_000) * 60_000) };
const KEY = 'dashboard-screenshot-key';
const OUT = path.resolve(import.meta.dirname, '../docs/images/dashboard.png');

const serve = process.argv.includes('--serve');
const dataIndex = process.argv.indexOf('--data');
const dataDir = dataIndex === -1 ? undefined : process.argv[dataIndex + 1];
const config = loadConfig({ QUARRY_API_KEYS: KEY, QUARRY_POW_NETWORK: 'demo', QUARRY_POS_NETWORK: 'demo', QUARRY_LOG_LEVEL: 'silent', QUARRY_RATE_LIMIT_MAX: '100000' });
const store = createStore(await createPgliteDriver(dataDir));
await migrate(store);
const [loaded] = await store.query<{ n: number }>('screenshot.blocks', sql`SELECT count(*)::int AS n FROM (SELECT 1 FROM blocks LIMIT 1) b`);
if (!loaded?.n) {
  console.error(`loading ${WORLD.powDays} days of pow and ${WORLD.posDays} of pos…`);
  await loadSyntheticWorld(store, WORLD);
}
const keys = await createKeyVerifier(store, config.apiKeys);
const app = await buildApp({ config, store, keys, logger: false, dashboardKey: KEY });
const url = await app.listen({ port: serve ? Number(process.env.PORT ?? 8080) : 0, host: '127.0.0.1' });

if (serve) {
  console.log(`dashboard at ${url}/ (key ${KEY}); Ctrl-C stops`);
} else {
  const executablePath = findChromium();
  if (!executablePath) throw new Error('no Chromium: set QUARRY_CHROMIUM or install chromium');
  const browser = await chromium.launch({ executablePath });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${url}/#/chain/pos`);
    // Every chart drawn: the page marks itself ready once each has its data.
    await page.waitForSelector('body[data-charts="ready"]', { timeout: 60_000 });
    // Both event streams connected (their dots turn green).
    await page.waitForSelector('[data-live="pow"][data-state="live"]');
    await page.waitForSelector('[data-live="pos"][data-state="live"]');
    await page.waitForTimeout(1200); // ECharts' entry animation
    mkdirSync(path.dirname(OUT), { recursive: true });
    await page.screenshot({ path: OUT });
    console.error(`wrote ${OUT}`);
  } finally {
    await browser.close();
  }
  await app.close();
  keys.close();
  await store.close();
}
