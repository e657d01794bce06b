/**
 * The dashboard page (src/api/dashboard/) in a real headless Chromium driven by playwright-core,
 * against a real server on the analytics world: every chart draws the API's series (read back from
 * the ECharts instances in the page and checked against the generator's blocks), the address
 * search finds an address and shows its balance, a block ingested through the real pipeline moves
 * the tip and the charts through the event stream, and the key is asked once and kept.
 *
 * One browser serves the whole file. Without Chromium (QUARRY_CHROMIUM, /usr/bin/chromium,
 * /usr/bin/chromium-browser) the browser tests are skipped, saying so.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { loadConfig } from '../../src/config/env.ts';
import { createKeyVerifier, type KeyVerifier } from '../../src/auth/keys.ts';
import { buildApp, type App } from '../../src/api/app.ts';
import { CHAIN_INFO, type ChainId } from '../../src/chain/chains.ts';
import { ingest } from '../../src/ingest/pipeline.ts';
import type { Store } from '../../src/store/store.ts';
import { loadAnalyticsWorld, type AnalyticsWorld } from '../support/analytics-world.ts';
import { expectedActivity } from '../support/expected-activity.ts';
import { coinsText, dailyFigures, lastDays } from '../support/expected-network.ts';
import { thresholdOf, whaleOracle, whalesOf } from '../support/expected-whales.ts';
import { ChainBuilder } from '../support/chain-builder.ts';
import { findChromium } from '../support/chromium.ts';
import { openSeededStore } from '../support/snapshots.ts';
import { describeEachStore } from '../support/stores.ts';

const KEY = 'dashboard-test-key-0123456789';
const CHAINS: ChainId[] = ['pow', 'pos'];
/** The charts each chain's view draws (pow burns no fees). */
const CHARTS: Record<ChainId, string[]> = {
  pow: ['active-addresses', 'block-times', 'tps', 'fee-percentiles', 'supply-curve', 'whale-heatmap', 'whale-leaderboard'],
  pos: ['active-addresses', 'block-times', 'tps', 'fee-percentiles', 'fees-burned', 'supply-curve', 'whale-heatmap', 'whale-leaderboard'],
};

interface Served {
  app: App;
  keys: KeyVerifier;
  url: string;
}

/** The real app on `store`, listening on a free port; `dashboardKey` as `quarry demo` passes it. */
async function serve(store: Store, dashboardKey?: string): Promise<Served> {
  const config = loadConfig({ QUARRY_API_KEYS: KEY, QUARRY_LOG_LEVEL: 'silent', QUARRY_RATE_LIMIT_MAX: '100000' });
  const keys = await createKeyVerifier(store, config.apiKeys, 50);
  const app = await buildApp({ config, store, keys, logger: false, dashboardKey });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, keys, url };
}

async function stop(served: Served | undefined): Promise<void> {
  if (!served) return;
  served.keys.close();
  await served.app.close();
}

/** Each chart of the page: its state and the data of its series, read from its ECharts instance. */
function chartsOf(page: Page): Promise<{ id: string; state: string; series: unknown[][] }[]> {
  return page.evaluate(() => {
    // In the page (the tests' types know no DOM).
    const { document, echarts } = globalThis as any;
    return [...document.querySelectorAll('main [data-chart]')].map((el: any) => {
      const option = echarts.getInstanceByDom(el)?.getOption();
      return { id: el.dataset.chart, state: el.dataset.state, series: (option?.series ?? []).map((s: { data: unknown[] }) => s.data) };
    });
  });
}

const tipShown = (page: Page, chain: ChainId) => page.locator(`[data-tip="${chain}"]`).getAttribute('data-height');

const executablePath = findChromium();

if (!executablePath) {
  describe('dashboard page in Chromium', () => {
    const skip = process.env.QUARRY_CHROMIUM
      ? `QUARRY_CHROMIUM names no file (${process.env.QUARRY_CHROMIUM})`
      : 'no Chromium at /usr/bin/chromium or /usr/bin/chromium-browser: install it (Debian: chromium) or set QUARRY_CHROMIUM';
    it('runs in a headless Chromium', { skip }, () => {});
  });
} else {
  let browser: Browser | undefined;
  before(async () => {
    browser = await chromium.launch({ executablePath });
  });
  after(() => browser?.close());

  describeEachStore(
    'dashboard page',
    (getStore) => {
      let world: AnalyticsWorld;
      let demo: Served | undefined;
      let context: BrowserContext;
      let page: Page;
      const errors: string[] = [];

      before(async () => {
        world = await loadAnalyticsWorld.snapshot.expect();
        demo = await serve(getStore(), KEY);
        context = await browser!.newContext({ viewport: { width: 1280, height: 800 } });
        page = await context.newPage();
        page.on('pageerror', (error) => errors.push(error.message));
      });
      after(async () => {
        await context?.close();
        await stop(demo);
      });

      it('serves the page and its assets without a key, outside the OpenAPI document', async () => {
        const res = await fetch(`${demo!.url}/`);
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
        // It carries the demo key: never kept by any cache.
        assert.equal(res.headers.get('cache-control'), 'no-store');
        assert.match(res.headers.get('content-security-policy') ?? '', /script-src 'self'/);
        const html = await res.text();
        assert.ok(html.includes(KEY), 'the demo key is written into the page');
        const assets = [...html.matchAll(/(?:src|href)="(\/dashboard\/[0-9a-f]+\/[^"]+)"/g)].map((m) => m[1]!);
        assert.ok(assets.some((a) => a.endsWith('/echarts.min.js')) && assets.some((a) => a.endsWith('/app.js')), assets.join());
        for (const asset of assets) {
          const r = await fetch(`${demo!.url}${asset}`, { headers: { 'accept-encoding': 'identity' } });
          assert.equal(r.status, 200, asset);
          assert.equal(r.headers.get('cache-control'), 'public, max-age=31536000, immutable', asset);
          const type = asset.endsWith('.js') ? 'text/javascript; charset=utf-8' : asset.endsWith('.css') ? 'text/css; charset=utf-8' : 'image/svg+xml';
          assert.equal(r.headers.get('content-type'), type, asset);
          const etag = r.headers.get('etag')!;
          assert.equal((await fetch(`${demo!.url}${asset}`, { headers: { 'accept-encoding': 'identity', 'if-none-match': etag } })).status, 304, asset);
        }
        const echarts = assets.find((a) => a.endsWith('/echarts.min.js'))!;
        const compressed = await fetch(`${demo!.url}${echarts}`, { headers: { 'accept-encoding': 'gzip' } });
        assert.equal(compressed.headers.get('content-encoding'), 'gzip');
        assert.match(await compressed.text(), /echarts/);
        // An asset of another build, or no such file: 404 problem.
        for (const path of [echarts.replace(/\/dashboard\/[0-9a-f]+\//, '/dashboard/0000000000000000/'), echarts.replace('echarts.min.js', 'nope.js')]) {
          const r = await fetch(`${demo!.url}${path}`);
          assert.equal(r.status, 404, path);
          assert.equal(r.headers.get('content-type'), 'application/problem+json; charset=utf-8');
        }
        const doc: any = await (await fetch(`${demo!.url}/api/v1/openapi.json`)).json();
        assert.ok(!Object.keys(doc.paths).some((p) => p === '/' || p.startsWith('/dashboard')), 'the page is not an API route');
        for (const path of ['/healthz', '/readyz', '/docs/']) assert.equal((await fetch(`${demo!.url}${path}`)).status, 200, path);
      });

      it('never carries a key when the server was not given one (quarry serve)', async () => {
        const plain = await serve(getStore());
        try {
          const res = await fetch(`${plain.url}/`);
          assert.equal(res.headers.get('cache-control'), 'no-cache');
          const html = await res.text();
          assert.ok(!html.includes(KEY));
          assert.match(html, /"demoKey":null/);
        } finally {
          await stop(plain);
        }
      });

      it('draws every chart of both chains from the API, and shows both tips', async () => {
        for (const chain of CHAINS) {
          await page.goto(`${demo!.url}/#/chain/${chain}`);
          await page.waitForSelector('body[data-charts="ready"]');
          const charts = await chartsOf(page);
          assert.deepEqual(charts.map((c) => c.id), CHARTS[chain], chain);
          for (const chart of charts) {
            assert.equal(chart.state, 'ready', `${chain} ${chart.id}`);
            assert.ok(chart.series[0]!.length > 0, `${chain} ${chart.id} draws data`);
          }
          // Figures against the blocks themselves.
          const blocks = world.blocks[chain];
          const byId = new Map(charts.map((c) => [c.id, c.series]));
          const perDay = lastDays(dailyFigures(blocks), 30).map(([, d]) => d.blocks);
          assert.deepEqual(byId.get('block-times')![0], perDay, `${chain} blocks per day`);
          const dau = expectedActivity(blocks).slice(-90).map((d) => d.dau);
          assert.deepEqual(byId.get('active-addresses')![0], dau, `${chain} DAU`);
          const whales = whalesOf(whaleOracle(world, chain), thresholdOf(whaleOracle(world, chain)));
          const leaderboard = byId.get('whale-leaderboard')![0] as { address: string }[];
          // The largest whale is the top bar (the chart lists them from the bottom up).
          assert.equal(leaderboard.at(-1)!.address, whales[0]!.address, `${chain} largest whale`);
          for (const c of CHAINS) assert.equal(await tipShown(page, c), String(world.blocks[c].at(-1)!.height), `${c} tip`);
        }
        assert.deepEqual(errors, []);
      });

      it('finds an address from the search box and shows its balance', async () => {
        for (const chain of CHAINS) {
          const o = whaleOracle(world, chain);
          const [whale] = whalesOf(o, thresholdOf(o));
          await page.goto(`${demo!.url}/#/chain/${chain}`);
          await page.fill('input[name="q"]', whale!.address);
          await page.press('input[name="q"]', 'Enter');
          await page.waitForSelector(`.address-page[data-address="${whale!.address}"] [data-field="balance"]`);
          const balance = page.locator('[data-field="balance"]');
          assert.equal(await balance.getAttribute('data-raw'), String(whale!.balance));
          const shown = (await balance.textContent())!.replace(/,/g, '');
          assert.equal(shown, `${coinsText(whale!.balance, CHAIN_INFO[chain].decimals)} quanta`, chain);
          await page.waitForSelector('.pager[data-state="ready"]');
          assert.equal(await page.locator('tr[data-tx]').count(), Math.min(25, o.e.addresses.get(whale!.address)!.txCount), `${chain} transactions`);
          await page.waitForSelector('[data-chart="balance-history"][data-state="ready"]');
        }
        // The busiest address pages by cursor: older, older, newer, each page the same rows the API
        // gives by offset (the other paging mode), in order.
        const [busiest, figures] = [...whaleOracle(world, 'pow').e.addresses.entries()]
          .filter(([address]) => !/^Q0+$/.test(address))
          .sort((a, b) => b[1].txCount - a[1].txCount)[0]!;
        assert.ok(figures.txCount > 50, 'an address with three pages');
        await page.goto(`${demo!.url}/#/address/pow/${busiest}`);
        const rowsOf = async () => page.locator('tr[data-tx]').evaluateAll((rows) => rows.map((row: any) => row.dataset.tx));
        const pageAt = async (offset: number) => {
          const res = await fetch(`${demo!.url}/api/v1/pow/addresses/${busiest}/transactions?offset=${offset}&limit=25`, { headers: { authorization: `Bearer ${KEY}` } });
          const body: any = await res.json();
          return body.items.map((tx: { tx_hash: string }) => tx.tx_hash);
        };
        for (const [step, offset] of [[null, 0], ['older', 25], ['older', 50], ['newer', 25]] as const) {
          if (step) {
            await page.click(`button[data-page="${step}"]`);
          }
          await page.waitForSelector(`.address-page[data-address="${busiest}"] .pager[data-state="ready"]`);
          assert.deepEqual(await rowsOf(), await pageAt(offset), `${step ?? 'first'} page`);
          assert.match((await page.locator('[data-part="page"]').textContent())!, new RegExp(`^${offset + 1}–`));
        }
        // The search box: a transaction hash goes to its page; a height both chains have lists both blocks; a text naming nothing says so.
        const tx = world.blocks.pow.at(-1)!.transactions[0]!;
        await page.fill('input[name="q"]', tx.hash);
        await page.press('input[name="q"]', 'Enter');
        await page.waitForSelector(`[data-page="transaction"] [data-part="transaction"][data-state="ready"]`);
        assert.equal(await page.locator('[data-field="height"]').textContent(), `#${world.blocks.pow.at(-1)!.height.toLocaleString('en')}`);
        const height = Math.min(world.blocks.pow.at(-1)!.height, world.blocks.pos.at(-1)!.height);
        await page.fill('input[name="q"]', String(height));
        await page.press('input[name="q"]', 'Enter');
        await page.waitForSelector('[data-part="hits"][data-state="ready"]');
        const hits = await page.locator('[data-part="hits"] li[data-hit] a').evaluateAll((links) => links.map((a: any) => a.getAttribute('href')));
        assert.deepEqual(hits.sort(), ['pos', 'pow'].map((chain) => `#/block/${chain}/${encodeURIComponent(world.blocks[chain as ChainId].find((b) => b.height === height)!.hash)}`).sort());
        await page.fill('input[name="q"]', 'Qnothex');
        await page.press('input[name="q"]', 'Enter');
        await page.waitForSelector('[data-part="hits"][data-state="ready"]');
        assert.match((await page.locator('[data-part="hits"]').textContent())!, /nothing found/);
        assert.deepEqual(errors, []);
      });

      it('lists the latest blocks and transactions, and opens block and transaction pages from them', async () => {
        const blocks = world.blocks.pos;
        await page.goto(`${demo!.url}/#/chain/pos`);
        await page.waitForSelector('body[data-charts="ready"]');
        const heights = await page.locator('[data-part="latest-blocks"] tr[data-height]').evaluateAll((rows) => rows.map((row: any) => Number(row.dataset.height)));
        assert.deepEqual(heights, blocks.slice(-10).map((b) => b.height).reverse(), 'the ten newest blocks');
        const newest = blocks.flatMap((b) => b.transactions.map((tx) => ({ tx, height: b.height }))).sort((a, b) => b.height - a.height || b.tx.index - a.tx.index).slice(0, 10);
        const hashes = await page.locator('[data-part="latest-transactions"] tr[data-tx]').evaluateAll((rows) => rows.map((row: any) => row.dataset.tx));
        assert.deepEqual(hashes, newest.map((n) => n.tx.hash), 'the ten newest transactions');
        // The busiest block of the world, by its link from a page that lists it: its header and transactions.
        const busiest = blocks.reduce((a, b) => (b.transactions.length > a.transactions.length ? b : a));
        await page.goto(`${demo!.url}/#/block/pos/${busiest.height}`);
        await page.waitForSelector('[data-part="block"][data-state="ready"]');
        assert.equal(await page.locator('[data-field="hash"]').textContent(), busiest.hash);
        assert.equal(await page.locator('[data-field="tx_count"]').textContent(), String(busiest.transactions.length));
        await page.waitForSelector('[data-page="block"] [data-state="ready"][data-count]');
        const rows = await page.locator('[data-page="block"] tr[data-tx]').evaluateAll((r) => r.map((row: any) => row.dataset.tx));
        assert.deepEqual(rows, busiest.transactions.slice(0, 25).map((tx) => tx.hash), 'in block order');
        const tx = busiest.transactions.find((t) => t.value > 0n)!;
        await page.click(`[data-page="block"] a[data-tx-link="${tx.hash}"]`);
        await page.waitForSelector('[data-part="transaction"][data-state="ready"]');
        assert.equal(await page.locator('[data-field="value"]').getAttribute('data-raw'), String(tx.value));
        assert.equal(await page.locator('[data-field="height"]').textContent(), `#${busiest.height.toLocaleString('en')}`);
        // A hash that is not stored says so.
        await page.goto(`${demo!.url}/#/tx/pos/0x${'ab'.repeat(32)}`);
        await page.waitForSelector('[data-part="error"]');
        assert.match((await page.locator('[data-part="error"]').textContent())!, /no pos transaction/i);
        assert.deepEqual(errors, []);
      });

      it('moves the tip and the charts when a block arrives on the event stream', async () => {
        await page.goto(`${demo!.url}/#/chain/pos`);
        await page.waitForSelector('body[data-charts="ready"]');
        await page.waitForSelector('[data-live="pos"][data-state="live"]', { timeout: 10_000 });
        const tip = world.blocks.pos.at(-1)!;
        const before = (await chartsOf(page)).find((c) => c.id === 'block-times')!.series[0]!.at(-1) as number;
        // The next block on top of the world's tip, through the real pipeline, the same day.
        const next = new ChainBuilder('pos', tip.timestamp, 1);
        next.blocks.push(tip);
        next.block();
        await ingest(getStore(), next.source());
        await page.waitForSelector(`[data-tip="pos"][data-height="${tip.height + 1}"]`, { timeout: 10_000 });
        await page.waitForSelector(`[data-part="latest-blocks"][data-tip="${tip.height + 1}"]`, { timeout: 10_000 });
        await page.waitForFunction(
          (count) => {
            const { document, echarts } = globalThis as any;
            return echarts.getInstanceByDom(document.querySelector('[data-chart="block-times"]')).getOption().series[0].data.at(-1) === count;
          },
          before + 1,
          { timeout: 10_000 },
        );
        assert.deepEqual(errors, []);
      });
    },
    (kind) => openSeededStore(kind, loadAnalyticsWorld),
  );

  describeEachStore('dashboard key', (getStore) => {
    let plain: Served | undefined;
    let context: BrowserContext;
    before(async () => {
      plain = await serve(getStore());
      context = await browser!.newContext();
    });
    after(async () => {
      await context?.close();
      await stop(plain);
    });

    it('asks for the key once and keeps it in the browser', async () => {
      const page = await context.newPage();
      await page.goto(`${plain!.url}/`);
      await page.waitForSelector('dialog.key-dialog[open]');
      await page.fill('dialog input[name="key"]', KEY);
      await page.click('dialog button[type="submit"]');
      await page.waitForSelector('body[data-charts="ready"]');
      assert.equal(await page.evaluate(() => (globalThis as any).localStorage.getItem('quarry.apiKey')), KEY);
      await page.reload();
      await page.waitForSelector('body[data-charts="ready"]');
      assert.equal(await page.locator('dialog.key-dialog[open]').count(), 0, 'not asked again');
      // A key the API refuses is asked for again.
      await page.evaluate(() => (globalThis as any).localStorage.setItem('quarry.apiKey', 'not-a-valid-key-at-all'));
      await page.reload();
      await page.waitForSelector('dialog.key-dialog[open]');
    });

    it('reads the event stream with its key and resumes after a drop with Last-Event-ID', async () => {
      const live = await browser!.newContext();
      try {
        await live.addInitScript((key) => (globalThis as any).localStorage.setItem('quarry.apiKey', key), KEY);
        const page = await live.newPage();
        // The stream as a server may write it: CRLF or LF line ends, comments, a message whose data
        // spans two lines. Each answer ends, which the page must take as a drop and resume.
        const requests: { authorization?: string; lastEventId?: string }[] = [];
        const answers = [
          ': heartbeat\r\n\r\nid: 41\r\nevent: block\r\ndata: {"chain":"pos","height":1000,"hash":"0xa","timestamp":"2026-03-01T15:00:12","tx_count":0}\r\n\r\n',
          'id: 42\nevent: block\ndata: {"chain":"pos","height":1001,"hash":"0xb",\ndata: "timestamp":"2026-03-01T15:00:24","tx_count":3}\n\n: heartbeat\n\n',
          // Then quiet for a minute.
          'retry: 60000\n\n',
        ];
        await page.route('**/api/v1/*/events', async (route) => {
          if (route.request().url().includes('/pow/')) return route.fulfill({ status: 200, contentType: 'text/event-stream', body: 'retry: 60000\n\n' });
          const headers = await route.request().allHeaders();
          requests.push({ authorization: headers.authorization, lastEventId: headers['last-event-id'] });
          return route.fulfill({ status: 200, contentType: 'text/event-stream', body: answers.shift() ?? 'retry: 60000\n\n' });
        });
        await page.goto(`${plain!.url}/#/chain/pos`);
        await page.waitForSelector('[data-tip="pos"][data-height="1001"]', { timeout: 10_000 });
        assert.equal(await page.locator('[data-tip="pos"]').textContent(), '#1,001');
        for (let i = 0; i < 50 && requests.length < 3; i++) await page.waitForTimeout(100);
        assert.deepEqual(
          requests.slice(0, 3),
          [
            { authorization: `Bearer ${KEY}`, lastEventId: undefined },
            { authorization: `Bearer ${KEY}`, lastEventId: '41' },
            { authorization: `Bearer ${KEY}`, lastEventId: '42' },
          ],
        );
      } finally {
        await live.close();
      }
    });
  });
}
