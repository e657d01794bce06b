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
import type { MultiSigCreate, MultiSigSpend, MultiSigVote } from '../../src/chain/model.ts';
import type { Store } from '../../src/store/store.ts';
import { loadAnalyticsWorld, type AnalyticsWorld } from '../support/analytics-world.ts';
import { expectedActivity } from '../support/expected-activity.ts';
import { coinsText, dailyFigures, lastDays } from '../support/expected-network.ts';
import { thresholdOf, whaleOracle, whalesOf } from '../support/expected-whales.ts';
import { ChainBuilder } from '../support/chain-builder.ts';
import { findChromium } from '../support/chromium.ts';
import { openSeededStore } from '../support/snapshots.ts';
import { describeOnOneStore } from '../support/stores.ts';
import { display, expectedHolders, expectedTransfers, tokenFacts, type TokenFacts } from './tokens/oracle.ts';
import { expectedSummary as expectedValidator, expectedWithdrawals } from './validators/oracle.ts';
import { seedValidators, type ValidatorsWorld } from './validators/world.ts';

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

/** A page of a new context of `browser` at a desktop size, whose uncaught errors are pushed onto `errors`. */
async function desktopPage(browser: Browser, errors: string[]): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  page.on('pageerror', (error) => errors.push(error.message));
  return { context, page };
}

const tipShown = (page: Page, chain: ChainId) => page.locator(`[data-tip="${chain}"]`).getAttribute('data-height');

/** A shown figure without its thousands separators ("1,234.5 ORE" → "1234.5 ORE"). */
const ungrouped = (text: string | null) => (text ?? '').replace(/,/g, '');
/** The `data-*` attribute `name` of every element `selector` matches, in document order. */
const attributes = (page: Page, selector: string, name: string) => page.locator(selector).evaluateAll((els, n) => els.map((el: any) => el.getAttribute(n)), name);
/** Page `kind` of `id` once its `part` is shown (the id tells it from the page before it, which a hash change replaces later). */
const opened = (page: Page, kind: string, id: string | number, part = kind) => page.waitForSelector(`[data-page="${kind}"][data-id="${id}"] [data-part="${part}"][data-state="ready"]`);
/** A paged table's page `number` of `part`, once shown. */
const pageShown = (page: Page, part: string, number = 1) => page.waitForSelector(`[data-part="${part}"] [data-state="ready"][data-page-number="${number}"]`);

/** The token of `chain` with the most holders, by the blocks' transfers. */
function busiestToken(world: AnalyticsWorld, chain: ChainId): TokenFacts {
  const holders = (t: TokenFacts) => [...t.balances.values()].filter((b) => b > 0n).length;
  return [...tokenFacts(chain, world.blocks[chain]).values()].reduce((a, b) => (holders(b) > holders(a) ? b : a));
}

/** Each pow key's signatures, from the blocks: a slave's under the slave (the signing key), else the sender's. */
function signaturesByKey(world: AnalyticsWorld): Map<string, number[]> {
  const byKey = new Map<string, number[]>();
  for (const block of world.blocks.pow) {
    for (const tx of block.transactions) {
      if (tx.otsIndex === null) continue;
      const key = tx.signer ?? tx.from;
      if (!byKey.has(key)) byKey.set(key, []);
      byKey.get(key)!.push(tx.otsIndex);
    }
  }
  return byKey;
}

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

  describeOnOneStore(
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
        ({ context, page } = await desktopPage(browser!, errors));
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
        await opened(page, 'search', height, 'hits');
        const hits = await page.locator('[data-part="hits"] li[data-hit] a').evaluateAll((links) => links.map((a: any) => a.getAttribute('href')));
        assert.deepEqual(hits.sort(), ['pos', 'pow'].map((chain) => `#/block/${chain}/${encodeURIComponent(world.blocks[chain as ChainId].find((b) => b.height === height)!.hash)}`).sort());
        await page.fill('input[name="q"]', 'Qnothex');
        await page.press('input[name="q"]', 'Enter');
        await opened(page, 'search', 'Qnothex', 'hits');
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

      it('shows a token in its decimals, its holders and transfers by cursor, linked from its transactions and the search', async () => {
        for (const chain of CHAINS) {
          const t = busiestToken(world, chain);
          const decimals = t.info!.decimals;
          const holders = expectedHolders(t);
          const transfers = expectedTransfers(t);
          assert.ok(holders.length > 25, `${chain}: a token with two pages of holders`);
          await page.goto(`${demo!.url}/#/token/${chain}/${t.id}`);
          await opened(page, 'token', t.id);
          assert.equal(await page.locator('[data-field="token"]').textContent(), t.id);
          assert.equal(await page.locator('[data-field="name"]').textContent(), t.info!.name);
          assert.equal(await page.locator('[data-field="holders"]').textContent(), holders.length.toLocaleString('en'), `${chain} holders`);
          assert.equal(await page.locator('[data-field="transfers"]').textContent(), transfers.length.toLocaleString('en'), `${chain} transfers`);
          assert.equal(ungrouped(await page.locator('[data-field="total_supply"]').textContent()), `${display(t.supply, decimals)} ${t.info!.symbol}`, `${chain} supply`);
          // The holders, richest first, each balance in the token's decimals; then the next page by its cursor.
          await pageShown(page, 'holders');
          assert.deepEqual(await attributes(page, '[data-part="holders"] tr[data-holder]', 'data-holder'), holders.slice(0, 25).map((x) => x.address), `${chain} first holders`);
          const richest = page.locator(`[data-part="holders"] tr[data-holder="${holders[0]!.address}"] td[data-raw]`);
          assert.equal(await richest.getAttribute('data-raw'), holders[0]!.balance);
          assert.equal(ungrouped(await richest.textContent()), display(BigInt(holders[0]!.balance), decimals), `${chain} richest balance`);
          await page.click('[data-part="holders"] button[data-turn="next"]');
          await pageShown(page, 'holders', 2);
          assert.deepEqual(await attributes(page, '[data-part="holders"] tr[data-holder]', 'data-holder'), holders.slice(25, 50).map((x) => x.address), `${chain} second page of holders`);
          await pageShown(page, 'transfers');
          assert.deepEqual(await attributes(page, '[data-part="transfers"] tr[data-tx]', 'data-tx'), transfers.slice(0, 25).map((x) => x.tx_hash), `${chain} newest transfers`);
          // A transaction that moved it links its token-transfer row here, the amount in the token's decimals.
          const moved = t.transfers.find((x) => !/^(Q0+|0x0+)$/.test(x.from))!;
          await page.goto(`${demo!.url}/#/tx/${chain}/${moved.txHash}`);
          await opened(page, 'transaction', moved.txHash);
          const leg = page.locator(`[data-part="token-transfers"] tr[data-log-index="${moved.logIndex}"]`);
          assert.equal(await leg.locator('a[data-token-link]').textContent(), t.info!.symbol);
          assert.equal(ungrouped(await leg.locator('td[data-raw]').textContent()), display(moved.amount, decimals), `${chain} leg amount`);
          await leg.locator('a[data-token-link]').click();
          await opened(page, 'token', t.id);
          assert.equal(await page.locator('[data-field="token"]').textContent(), t.id);
        }
        // A pow token's id is its creating transaction's hash: the search lists both, the token's hit opens its page.
        const ore = busiestToken(world, 'pow');
        await page.fill('input[name="q"]', ore.id);
        await page.press('input[name="q"]', 'Enter');
        await opened(page, 'search', ore.id, 'hits');
        assert.deepEqual((await attributes(page, '[data-part="hits"] li[data-hit] a', 'href')).sort(), [`#/token/pow/${ore.id}`, `#/tx/pow/${ore.id}`].sort());
        await page.click('[data-part="hits"] li[data-hit="token"] a');
        await opened(page, 'token', ore.id);
        assert.equal(await page.locator('[data-field="symbol"]').textContent(), ore.info!.symbol);
        // The chain's tokens, most holders first, each a link to its page.
        const byHolders = [...tokenFacts('pos', world.blocks.pos).values()].map((x) => ({ id: x.id, holders: [...x.balances.values()].filter((b) => b > 0n).length }));
        byHolders.sort((a, b) => b.holders - a.holders || (a.id < b.id ? 1 : -1));
        await page.goto(`${demo!.url}/#/tokens/pos`);
        await pageShown(page, 'tokens');
        assert.deepEqual(await attributes(page, '[data-part="tokens"] tr[data-token]', 'data-token'), byHolders.map((x) => x.id));
        assert.deepEqual(errors, []);
      });

      it('shows a pow address\'s one-time keys, warning of a reused key index only where one was reused', async () => {
        const byKey = signaturesByKey(world);
        const reusedOf = (indexes: number[]) => [...new Set(indexes.filter((i, n) => indexes.indexOf(i) !== n))].sort((a, b) => a - b);
        const reuser = [...byKey].find(([, indexes]) => reusedOf(indexes).length > 0)!;
        // The busiest key that never reused one.
        const careful = [...byKey].filter(([, indexes]) => reusedOf(indexes).length === 0).sort((a, b) => b[1].length - a[1].length)[0]!;
        for (const [address, indexes] of [reuser, careful]) {
          const used = new Set(indexes);
          let next = 0;
          while (used.has(next)) next++;
          await page.goto(`${demo!.url}/#/address/pow/${address}`);
          await page.waitForSelector(`.address-page[data-address="${address}"] [data-part="ots"][data-state="ready"]`);
          assert.equal(await page.locator('[data-field="keys_used"]').getAttribute('data-count'), String(used.size), `${address}: keys used`);
          assert.equal(await page.locator('[data-field="signatures"]').textContent(), indexes.length.toLocaleString('en'));
          assert.equal(await page.locator('[data-field="next_unused_index"]').textContent(), next.toLocaleString('en'));
          assert.equal(await page.locator('[data-field="highest_used_index"]').textContent(), Math.max(...indexes).toLocaleString('en'));
          // The grid draws the first page's used keys (indexes below 8,192).
          assert.equal(await page.locator('[data-part="ots-grid"]').getAttribute('data-used'), String([...used].filter((i) => i < 8192).length));
          const reused = reusedOf(indexes);
          assert.equal(await page.locator('[data-part="ots-reuse"]').count(), reused.length > 0 ? 1 : 0, `${address}: the warning`);
          if (reused.length > 0) {
            assert.deepEqual(await attributes(page, '[data-part="ots-reuse"] tr[data-reused-index]', 'data-reused-index'), reused.map(String));
            // Each reused index lists every transaction that signed with it.
            const signers = world.blocks.pow.flatMap((b) => b.transactions).filter((tx) => (tx.signer ?? tx.from) === address && tx.otsIndex === reused[0]);
            assert.deepEqual(await attributes(page, `[data-part="ots-reuse"] tr[data-reused-index="${reused[0]}"] a[data-tx-link]`, 'data-tx-link'), signers.map((tx) => tx.hash));
          }
        }
        // Only pow addresses have the panel.
        const posAddress = world.blocks.pos.at(-1)!.transactions[0]!.from;
        await page.goto(`${demo!.url}/#/address/pos/${posAddress}`);
        await page.waitForSelector(`.address-page[data-address="${posAddress}"] .pager[data-state="ready"]`);
        assert.equal(await page.locator('[data-part="ots-panel"]').count(), 0);
        assert.deepEqual(errors, []);
      });

      it('shows a multi-signature address\'s signatories, threshold and spends instead of keys', async () => {
        const txs = world.blocks.pow.flatMap((b) => b.transactions);
        const create = txs.find((tx) => tx.multiSig?.kind === 'create')!.multiSig as MultiSigCreate;
        const spends = txs.filter((tx) => tx.multiSig?.kind === 'spend' && tx.multiSig.multiSigAddress === create.address);
        await page.goto(`${demo!.url}/#/address/pow/${create.address}`);
        await page.waitForSelector(`.address-page[data-address="${create.address}"] [data-part="multisig"][data-state="ready"]`);
        const weight = create.signatories.reduce((sum, s) => sum + s.weight, 0);
        assert.equal(await page.locator('[data-field="threshold"]').textContent(), `${create.threshold} of ${weight}`);
        assert.deepEqual(await attributes(page, '[data-part="multisig"] tr[data-signatory]', 'data-signatory'), create.signatories.map((s) => s.address));
        await pageShown(page, 'multisig-panel');
        assert.deepEqual(await attributes(page, '[data-part="multisig-panel"] tr[data-spend]', 'data-spend'), spends.map((tx) => tx.hash).reverse().slice(0, 25), 'newest spend first');
        assert.equal(await page.locator('[data-part="ots-panel"]').count(), 0, 'no keys');
        assert.deepEqual(errors, []);
      });

      it('shows the pow subtypes\' bodies: slave keys, a created token, lattice keys, multi-signature create, spend and vote', async () => {
        const txs = world.blocks.pow.flatMap((b) => b.transactions);
        const open = async (hash: string) => {
          await page.goto(`${demo!.url}/#/tx/pow/${hash}`);
          await opened(page, 'transaction', hash);
        };
        const slave = txs.find((tx) => tx.type === 'slave' && tx.slaves.length > 1)!;
        await open(slave.hash);
        assert.deepEqual((await attributes(page, '[data-part="slave-keys"] tr[data-slave]', 'data-slave')).sort(), slave.slaves.map((s) => s.slave).sort());

        const created = txs.find((tx) => tx.type === 'token')!;
        const info = world.blocks.pow.flatMap((b) => b.tokens).find((x) => x.contract === created.hash)!;
        await open(created.hash);
        assert.equal(await page.locator('[data-part="created-token"] [data-field="token"] a').getAttribute('href'), `#/token/pow/${created.hash}`);
        const supply = created.tokenTransfers.reduce((sum, x) => sum + x.amount, 0n);
        assert.equal(ungrouped(await page.locator('[data-part="created-token"] [data-field="total_supply"]').textContent()), `${display(supply, info.decimals)} ${info.symbol}`);

        const lattice = txs.find((tx) => tx.type === 'latticePK' && tx.lattice)!;
        await open(lattice.hash);
        for (const [field, key] of [['kyber_pk', lattice.lattice!.kyberPk], ['dilithium_pk', lattice.lattice!.dilithiumPk], ['ecdsa_pk', lattice.lattice!.ecdsaPk]] as const) {
          const shown = page.locator(`[data-part="lattice-keys"] [data-field="${field}"]`);
          if (key) assert.equal(await shown.locator('code').getAttribute('title'), key, field);
          else assert.equal(await shown.textContent(), 'empty', field);
        }

        const create = txs.find((tx) => tx.multiSig?.kind === 'create')!;
        const body = create.multiSig as MultiSigCreate;
        await open(create.hash);
        assert.equal(await page.locator('[data-part="multi-sig"] [data-field="multisig_address"] a').getAttribute('title'), body.address);
        assert.equal(await page.locator('[data-part="multi-sig"] [data-field="threshold"]').textContent(), `${body.threshold} of ${body.signatories.reduce((sum, s) => sum + s.weight, 0)}`);
        assert.deepEqual(await attributes(page, '[data-part="multi-sig"] tr[data-signatory]', 'data-signatory'), body.signatories.map((s) => s.address));

        const spend = txs.find((tx) => tx.multiSig?.kind === 'spend')!;
        const spent = spend.multiSig as MultiSigSpend;
        await open(spend.hash);
        assert.equal(await page.locator('[data-part="multi-sig"] [data-field="total"]').getAttribute('data-raw'), String(spent.recipients.reduce((sum, r) => sum + r.amount, 0n)));
        assert.equal(await page.locator('[data-part="multi-sig"] [data-field="expiry_height"]').textContent(), spent.expiryHeight.toLocaleString('en'));
        assert.deepEqual(await attributes(page, '[data-part="multi-sig"] tr[data-recipient]', 'data-recipient'), spent.recipients.map((r) => r.to));

        const vote = txs.find((tx) => tx.multiSig?.kind === 'vote')!;
        const voted = vote.multiSig as MultiSigVote;
        await open(vote.hash);
        assert.equal(await page.locator('[data-part="multi-sig"] [data-field="spend_tx_hash"] a').getAttribute('href'), `#/tx/pow/${voted.sharedKey}`);
        assert.equal(await page.locator('[data-part="multi-sig"] [data-field="unvote"]').textContent(), voted.unvote ? 'withdraws approval' : 'approves');
        const spendOf = txs.find((tx) => tx.hash === voted.sharedKey)!.multiSig as MultiSigSpend;
        assert.equal(await page.locator('[data-part="multi-sig"] [data-field="multisig_address"] a').getAttribute('title'), spendOf.multiSigAddress);
        assert.deepEqual(errors, []);
      });

      it('opens a token or validator page from a search hit\'s path', async () => {
        await page.goto(`${demo!.url}/#/chain/pos`);
        await page.waitForSelector('body[data-charts="ready"]');
        const pages = await page.evaluate(async () => {
          const { document } = globalThis as any;
          const explorer = document.querySelector('script[type="module"]').src.replace(/app\.js$/, 'explorer.js');
          const { pageOfPath } = await import(explorer);
          return ['/api/v1/pow/tokens/ab12', '/api/v1/pos/tokens/Q47762d255d77947fd998e4899742cc2700616583', '/api/v1/pos/validators/12', '/api/v1/pow/validators/12'].map(pageOfPath);
        });
        assert.deepEqual(pages, ['#/token/pow/ab12', '#/token/pos/Q47762d255d77947fd998e4899742cc2700616583', '#/validator/12', null]);
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

  describeOnOneStore('dashboard validator pages', (getStore) => {
    let w: ValidatorsWorld;
    let served: Served | undefined;
    let context: BrowserContext;
    let page: Page;
    const errors: string[] = [];
    before(async () => {
      // The validators' world: a fake beacon node synced beside pos blocks in its slots, so that proposals are recorded.
      w = await seedValidators(getStore());
      served = await serve(getStore(), KEY);
      ({ context, page } = await desktopPage(browser!, errors));
    });
    after(async () => {
      await context?.close();
      await stop(served);
    });

    it('shows a validator: its state, the blocks it proposed by cursor and its withdrawals', async () => {
      const proposals = w.proposals.filter((p) => p.proposer === 0).reverse();
      assert.ok(proposals.length > 25, 'two pages of proposals');
      const withdrawals = expectedWithdrawals(w.blocks, 0);
      const state = expectedValidator(w.head[0]!);
      await page.goto(`${served!.url}/#/validator/0`);
      await opened(page, 'validator', 0);
      assert.equal(await page.locator('[data-field="index"]').textContent(), '#0');
      assert.equal(await page.locator('[data-field="proposed_blocks"]').textContent(), proposals.length.toLocaleString('en'));
      assert.equal(await page.locator('[data-field="status"]').textContent(), state.status);
      assert.equal(await page.locator('[data-field="balance"]').getAttribute('data-raw'), state.balance);
      assert.equal(ungrouped(await page.locator('[data-field="balance"]').textContent()), `${coinsText(BigInt(state.balance), 18)} quanta`);
      assert.equal(await page.locator('[data-field="withdrawals"]').getAttribute('data-count'), String(withdrawals.length));
      assert.equal(await page.locator('[data-field="withdrawals"]').getAttribute('data-raw'), withdrawals.reduce((sum, x) => sum + BigInt(x.amount), 0n).toString());
      await pageShown(page, 'proposals');
      assert.deepEqual(await attributes(page, '[data-part="proposals"] tr[data-slot]', 'data-slot'), proposals.slice(0, 25).map((p) => String(p.slot)), 'newest first');
      await page.click('[data-part="proposals"] button[data-turn="next"]');
      await pageShown(page, 'proposals', 2);
      assert.deepEqual(await attributes(page, '[data-part="proposals"] tr[data-slot]', 'data-slot'), proposals.slice(25, 50).map((p) => String(p.slot)));
      await page.click('[data-part="proposals"] button[data-turn="previous"]');
      await pageShown(page, 'proposals', 1);
      assert.deepEqual(await attributes(page, '[data-part="proposals"] tr[data-slot]', 'data-slot'), proposals.slice(0, 25).map((p) => String(p.slot)));
      await pageShown(page, 'withdrawals');
      assert.deepEqual(await attributes(page, '[data-part="withdrawals"] tr[data-withdrawal]', 'data-withdrawal'), withdrawals.slice(0, 25).map((x) => String(x.index)));
      // A well-formed index no validator has: the API's 404 detail.
      await page.goto(`${served!.url}/#/validator/${w.head.length}`);
      await page.waitForSelector('[data-part="error"]');
      assert.match((await page.locator('[data-part="error"]').textContent())!, /no pos validator with index/);
      assert.deepEqual(errors, []);
    });

    it('links a block\'s proposer and its withdrawals\' validators, and lists the validators', async () => {
      const byTime = new Map(w.proposals.map((p) => [p.ts, p.proposer]));
      const block = w.blocks.find((b) => b.withdrawals.length > 0 && byTime.has(b.timestamp))!;
      const proposer = byTime.get(block.timestamp)!;
      await page.goto(`${served!.url}/#/block/pos/${block.height}`);
      await opened(page, 'block', block.height);
      assert.equal(await page.locator('[data-field="proposer_index"]').textContent(), String(proposer));
      await pageShown(page, 'withdrawals');
      assert.deepEqual(await attributes(page, '[data-part="withdrawals"] a[data-validator-link]', 'data-validator-link'), block.withdrawals.map((x) => String(x.validatorIndex)));
      await page.click('[data-field="proposer_index"] a');
      await opened(page, 'validator', proposer);
      assert.equal(await page.locator('[data-field="index"]').textContent(), `#${proposer}`);
      await page.goto(`${served!.url}/#/validators`);
      await pageShown(page, 'validators');
      assert.deepEqual(await attributes(page, '[data-part="validators"] tr[data-validator]', 'data-validator'), w.head.map((r) => String(r.index)));
      assert.deepEqual(errors, []);
    });
  });

  describeOnOneStore('dashboard key', (getStore) => {
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
