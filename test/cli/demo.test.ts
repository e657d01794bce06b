/**
 * `quarry demo` as a newcomer runs it (what `npm start` runs), in a child process on an empty data
 * directory: the demo world loads and serves, pos first while pow still loads (answered 503 until
 * it is in); then every GET endpoint of the OpenAPI document answers
 * data on both chains; the chains live on (tips move, `block` events arrive, a reorg rolls back
 * exactly what the world's generator says it replaced); the dashboard draws every chart; and a
 * restart serves within seconds and carries on from the stored tips.
 *
 * The world's blocks are regenerated in this process from the data directory's demo-world.json
 * (the generator is deterministic): the oracle for hashes, orphans and addresses.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium } from 'playwright-core';
import type { ChainId } from '../../src/chain/chains.ts';
import { multiSigAddress } from '../../src/chain/addresses.ts';
import type { CanonicalBlock } from '../../src/chain/model.ts';
import { demoWorld, readWorldFile } from '../../src/cli/commands/demo.ts';
import { createSyntheticWorld, MAX_REORG_DEPTH, type SyntheticWorld } from '../../src/sources/synthetic/index.ts';
import { freePort } from '../../src/store/local-cluster.ts';
import { apiOperations, requestsOf, type Candidates, type OpenApiDoc } from '../support/api-routes.ts';
import { findChromium } from '../support/chromium.ts';
import { quarryArgs } from '../support/quarry-command.ts';

const CHAINS: ChainId[] = ['pow', 'pos'];
/** Blocks a second on each chain, so that reorgs (one every 30 blocks on average) come within seconds. */
const PACE = 300;
/**
 * The first start loads the whole demo world: 3 minutes alone on a 2-core machine, over 10 minutes
 * beside the soak test on CI's slower one (its run of b9bdfbe was cancelled at 10 minutes).
 */
const LOAD_TIMEOUT_MS = 20 * 60_000;
/**
 * Routes that describe one chain and answer the other with an empty list, as the spec says (4.2
 * notes; the address routes' summaries): pow has no validators, fee burn, gas, internal
 * transactions or fungible-token balances; pos has no slaves.
 */
const EMPTY_BY_DESIGN = new Set([
  '/api/v1/{chain}/addresses/{address}/internal-transactions (pow)',
  '/api/v1/{chain}/addresses/{address}/token-holdings (pow)',
  '/api/v1/{chain}/addresses/{address}/slaves (pos)',
  '/api/v1/{chain}/addresses/top/burners (pow)',
  '/api/v1/analytics/gas-distribution (pow)',
  '/api/v1/analytics/staking/daily (pow)',
  '/api/v1/analytics/staking/apr-daily (pow)',
  '/api/v1/analytics/staking/slashings-daily (pow)',
  // The generated world has no beacon node: validator days and block proposers are written by the
  // staking sync only (docs/api-validators.md).
  '/api/v1/pos/validators/{validator}/daily (pos)',
  '/api/v1/pos/validators/{validator}/blocks (pos)',
]);

interface Demo {
  child: ChildProcess;
  url: string;
  key: string;
  output: () => string;
}

/** Starts `quarry demo` on `dataDir` and waits until it prints where it serves. */
async function startDemo(dataDir: string, timeoutMs: number): Promise<Demo> {
  const port = await freePort();
  const child = spawn(process.execPath, quarryArgs(['demo', '--pace', String(PACE)]), {
    env: { ...process.env, QUARRY_DATA_DIR: dataDir, QUARRY_DATABASE_URL: '', PORT: String(port), HOST: '127.0.0.1', QUARRY_LOG_LEVEL: 'warn', QUARRY_RATE_LIMIT_MAX: '1000000' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const deadline = Date.now() + timeoutMs;
  while (!/demo key:\s+(\S+)/.test(out)) {
    if (child.exitCode !== null) throw new Error(`quarry demo exited (${child.exitCode}):\n${out}`);
    if (Date.now() > deadline) throw new Error(`quarry demo did not serve within ${timeoutMs} ms:\n${out}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { child, url: /serving at (\S+)/.exec(out)![1]!, key: /demo key:\s+(\S+)/.exec(out)![1]!, output: () => out };
}

async function stopDemo(demo: Demo | undefined): Promise<void> {
  if (!demo || demo.child.exitCode !== null) return;
  const exited = new Promise((resolve) => demo.child.once('exit', resolve));
  demo.child.kill('SIGINT');
  await exited;
}

const get = async (demo: Demo, url: string) => {
  const res = await fetch(`${demo.url}${url}`, { headers: { authorization: `Bearer ${demo.key}` } });
  return { status: res.status, body: res.headers.get('content-type')?.includes('json') ? ((await res.json()) as any) : await res.text() };
};

const tipOf = async (demo: Demo, chain: ChainId): Promise<{ height: number; hash: string }> => (await get(demo, `/api/v1/${chain}/blocks?limit=1`)).body.items[0];

/** Waits until the store's tip of `chain` is at `height` or above (the demo makes blocks at PACE). */
async function untilTip(demo: Demo, chain: ChainId, height: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  while ((await tipOf(demo, chain)).height < height) {
    if (Date.now() > deadline) throw new Error(`${chain}: the tip did not reach ${height} within a minute`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Whether an answer carries data: a list with items, or an object with some figure that is not
 * zero (a non-empty list, a non-zero amount or count, a non-empty text other than a zero).
 */
function hasData(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0 && value.some(hasData);
  if (value && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    if (Array.isArray(object.items)) return object.items.length > 0;
    return Object.values(object).some(hasData);
  }
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'string') return value !== '' && !/^0(\.0+)?$/.test(value);
  return false;
}

/** The world's items from `from` (orphans included, as a node would show them) up to canonical height `to`. */
async function itemsOf(world: SyntheticWorld, chain: ChainId, from: number, to: number): Promise<CanonicalBlock[]> {
  const blocks: CanonicalBlock[] = [];
  for await (const item of world[chain].blocks(from)) {
    if (item.kind !== 'block') continue;
    blocks.push(item.block);
    // Orphans come before the canonical block of their height: past `to` by a reorg's depth, the last block of each height is canonical.
    if (item.block.height > to + MAX_REORG_DEPTH) break;
  }
  return blocks;
}

/** Reads `count` events of the kinds `wanted` from the chain's event stream (or gives up after `ms`). */
async function events(demo: Demo, chain: ChainId, until: (seen: { event: string; data: any }[]) => boolean, ms: number): Promise<{ event: string; data: any }[]> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), ms);
  const seen: { event: string; data: any }[] = [];
  try {
    const res = await fetch(`${demo.url}/api/v1/${chain}/events`, { headers: { authorization: `Bearer ${demo.key}` }, signal: controller.signal });
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const message = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(message)?.[1];
        const data = /^data: (.*)$/m.exec(message)?.[1];
        if (event && data) seen.push({ event, data: JSON.parse(data) });
        if (until(seen)) return seen;
      }
    }
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return seen;
}

/** What the demo answered right after it began to serve, while pow was still loading. */
interface WhileLoading {
  readyz: { status: number; body: any };
  pos: { status: number; body: any };
  pow: { status: number; body: any; retryAfter: string | null };
  crossChain: { status: number; body: any };
  posTips: number[];
  /** Whether pow was still loading when the last of `posTips` was read. */
  powLoading: boolean;
}

/** Waits until /readyz no longer lists a loading chain. */
async function waitUntilLoaded(demo: Demo, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let body: any;
    try {
      ({ body } = await get(demo, '/readyz'));
    } catch (error) {
      // A keep-alive connection the server closed as idle while a long write held its event loop:
      // asked again on a new one, as long as the demo runs.
      if (demo.child.exitCode !== null || (error as { cause?: { code?: string } }).cause?.code !== 'ECONNRESET') throw error;
      continue;
    }
    if (body.status === 'ready' && body.loading_chains === undefined) return;
    if (Date.now() > deadline) throw new Error(`still loading after ${timeoutMs} ms: ${JSON.stringify(body.loading_chains)}\n${demo.output().slice(-2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

describe('quarry demo', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'quarry-demo-'));
  let demo: Demo | undefined;
  let world: SyntheticWorld;
  let whileLoading: WhileLoading;

  before(async () => {
    demo = await startDemo(dataDir, LOAD_TIMEOUT_MS);
    const liveFrom = readWorldFile(dataDir);
    assert.ok(liveFrom !== null, 'the demo records its world');
    world = createSyntheticWorld(demoWorld(liveFrom));
    // The first start serves pos as soon as it is in, while pow loads (docs/demo.md).
    const readyz = await get(demo, '/readyz');
    const pos = await get(demo, '/api/v1/pos/addresses/stats/summary');
    const res = await fetch(`${demo.url}/api/v1/pow/addresses/stats/summary`, { headers: { authorization: `Bearer ${demo.key}` } });
    const pow = { status: res.status, body: (await res.json()) as any, retryAfter: res.headers.get('retry-after') };
    const crossChain = await get(demo, '/api/v1/analytics/dashboard/summary');
    // The pos tip moves while pow loads: read it until it has (a pow write of 20,000 blocks can hold
    // it for seconds on a slow machine), and whether pow was still loading when it had.
    const posTips = [(await tipOf(demo, 'pos')).height];
    let powLoading = true;
    for (const deadline = Date.now() + 120_000; posTips.at(-1) === posTips[0] && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      posTips.push((await tipOf(demo, 'pos')).height);
      powLoading = (await get(demo, '/readyz')).body.loading_chains?.pow !== undefined;
    }
    whileLoading = { readyz, pos, pow, crossChain, posTips, powLoading };
    await waitUntilLoaded(demo, LOAD_TIMEOUT_MS);
  }, { timeout: 2 * LOAD_TIMEOUT_MS + 60_000 });
  after(async () => {
    await stopDemo(demo);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves pos while pow still loads, and says so', () => {
    const { readyz, pos, pow, crossChain, posTips, powLoading } = whileLoading;
    assert.equal(readyz.status, 200);
    assert.equal(readyz.body.status, 'loading');
    const load = readyz.body.loading_chains?.pow;
    assert.ok(load && load.to_height === world.heightAt('pow', world.options.live!.from), `pow loads to the end of its history: ${JSON.stringify(load)}`);
    assert.ok(load.height < load.to_height);
    assert.equal(readyz.body.loading_chains.pos, undefined, 'pos is in');
    assert.equal(pos.status, 200);
    assert.ok(pos.body.total_addresses > 0);
    assert.equal(pow.status, 503);
    assert.equal(pow.retryAfter, '5');
    assert.match(pow.body.detail, /the history of pow is still loading \(pow: [\d,]+ of [\d,]+ blocks\)/);
    // A route of both chains waits for both.
    assert.equal(crossChain.status, 503);
    assert.match(crossChain.body.detail, /pow/);
    assert.ok(posTips.at(-1)! > posTips[0]!, `pos lives while pow loads: ${posTips.join(' → ')}`);
    assert.ok(powLoading, 'pow was still loading when the pos tip had moved');
    assert.match(demo!.output(), /loading: {3}pow/);
  });

  it('answers every GET endpoint of both chains with data', async () => {
    const doc = (await get(demo!, '/api/v1/openapi.json')).body as OpenApiDoc;
    const notable = world.describe();
    const candidates: Candidates = { pow: [], pos: [], blocks: { pow: [], pos: [] }, transactions: { pow: [], pos: [] }, validators: [], tokens: { pow: [], pos: [] } };
    for (const chain of CHAINS) {
      const n = notable[chain];
      candidates[chain] = [n.busiestHotWallet, n.whale, n.tokenHolder, n.slaveMaster, n.contract, n.migrationAddress, n.treasury].filter((a): a is string => a !== null);
      // A block with transactions (and, on pos, one with withdrawals), and a transaction of each chain.
      const blocks = (await get(demo!, `/api/v1/${chain}/blocks?limit=100`)).body.items as { height: number; hash: string; tx_count: number; withdrawals_count?: number }[];
      const busy = blocks.reduce((a, b) => (b.tx_count > a.tx_count ? b : a));
      candidates.blocks![chain] = [String(busy.height)];
      // Ten blocks below the tip: deeper than the living world's reorgs (1-3), so no candidate is orphaned meanwhile.
      const txs = (await get(demo!, `/api/v1/${chain}/transactions?limit=100&tx_type=transfer`)).body.items as { tx_hash: string; height: number }[];
      candidates.transactions![chain] = txs.filter((t) => t.height <= blocks[0]!.height - 10).slice(0, 5).map((t) => t.tx_hash);
      assert.ok(candidates.transactions![chain]!.length > 0, `${chain}: settled transfers`);
      // The token with most holders.
      candidates.tokens![chain] = ((await get(demo!, `/api/v1/${chain}/tokens?limit=1`)).body.items as { token: string }[]).map((t) => t.token);
    }
    // The multi-signature addresses the world made, from their creating transactions.
    const creates = (await get(demo!, '/api/v1/pow/transactions?tx_type=multi_sig_create&limit=10')).body.items as { tx_hash: string }[];
    assert.ok(creates.length > 0, 'multi-signature addresses on pow');
    candidates.multiSig = creates.map((tx) => multiSigAddress(tx.tx_hash));
    // The richest validator, and the block of the latest withdrawal paid from it (a pos block with withdrawals).
    const [richest] = (await get(demo!, '/api/v1/pos/validators?sort=-balance&limit=1')).body.items as { index: number }[];
    assert.ok(richest, 'validators');
    candidates.validators = [String(richest.index)];
    const [paid] = (await get(demo!, `/api/v1/pos/validators/${richest.index}/withdrawals?limit=1`)).body.items as { block_hash: string }[];
    assert.ok(paid, 'a withdrawal paid from the richest validator');
    candidates.blocks!.pos.push(paid.block_hash);
    // A holder who migrated: a sender to the migration address (the cross-chain history's subject).
    const burns = (await get(demo!, `/api/v1/pow/addresses/${notable.pow.migrationAddress}/transactions?limit=5`)).body.items as { from_addr: string }[];
    const migrator = burns.find((b) => b.from_addr !== notable.pow.migrationAddress)?.from_addr;
    assert.ok(migrator, 'a migration burn in the history');
    candidates.pow.push(migrator);
    // The search: a height both chains have, a transaction's hash, an address, the start of an exchange's label.
    candidates.search = ['1', candidates.transactions!.pos[0]!, notable.pos.whale, notable.pow.exchange.slice(0, 3)];
    const empty: string[] = [];
    let requests = 0;
    for (const op of apiOperations(doc)) {
      const byChain = new Map<string, boolean>();
      for (const request of requestsOf(op, candidates)) {
        requests++;
        let { status, body } = await get(demo!, request.url);
        // The pool is the next hour of blocks, read every 5 s: a quiet hour of pow holds no transaction for a moment.
        for (let tries = 0; op.path.endsWith('/transactions/pending') && status === 200 && !hasData(body) && tries < 30; tries++) {
          await new Promise((resolve) => setTimeout(resolve, 2000));
          ({ status, body } = await get(demo!, request.url));
        }
        assert.equal(status, 200, `${request.url}: ${JSON.stringify(body).slice(0, 300)}`);
        const key = request.chain ?? '-';
        byChain.set(key, (byChain.get(key) ?? false) || hasData(body));
      }
      for (const [chain, data] of byChain) if (!data && !EMPTY_BY_DESIGN.has(`${op.path} (${chain})`)) empty.push(`${op.path} (${chain})`);
    }
    assert.ok(requests > 120, `walked ${requests} requests`);
    assert.deepEqual(empty, [], 'every endpoint answers data on each chain it serves');
  });

  it('shows what the demo must: a slashing, exchanges with relays, reorgs, the migration', async () => {
    const slashings = (await get(demo!, '/api/v1/analytics/staking/slashings-daily?chain=pos')).body;
    assert.ok(slashings.items.some((d: { slashings: number }) => d.slashings > 0), 'a day with a slashing');
    for (const chain of CHAINS) {
      const exchanges = (await get(demo!, `/api/v1/analytics/exchange/summary?chain=${chain}`)).body;
      assert.match(JSON.stringify(exchanges), /"relay_addresses":[1-9]/, `${chain}: an exchange with deposit relays`);
      const largest = (await get(demo!, `/api/v1/analytics/exchange/largest-transfers?chain=${chain}`)).body;
      assert.ok(largest.items.some((t: { via_relay: boolean }) => t.via_relay), `${chain}: a transfer through a relay`);
    }
    const reorgs = (await get(demo!, '/api/v1/analytics/network/reorgs?chain=pos')).body;
    assert.ok(reorgs.items.length > 0, 'reorgs in the history');
  });

  it('keeps making blocks: the tips move, block events arrive, and a reorg rolls back exactly', async () => {
    for (const chain of CHAINS) {
      const before = await tipOf(demo!, chain);
      const seen = await events(demo!, chain, (s) => s.some((e) => e.event === 'reorg') && s.filter((e) => e.event === 'block').length >= 3, 5 * 60_000);
      assert.ok(seen.filter((e) => e.event === 'block').length >= 3, `${chain}: block events`);
      const reorg = seen.find((e) => e.event === 'reorg')?.data;
      assert.ok(reorg, `${chain}: a reorg within minutes (seen ${seen.length} events)`);
      const afterTip = await tipOf(demo!, chain);
      assert.ok(afterTip.height > before.height, `${chain}: the tip moved (${before.height} → ${afterTip.height})`);

      // The world's own account of those heights: the branch the reorg dropped, and the canonical blocks.
      // They are final once the store's tip is past them by more than a reorg's depth: a later reorg
      // that forks below them, which the world has already decided, must reach the store first.
      const ancestor: number = reorg.ancestor_height;
      await untilTip(demo!, chain, reorg.new_tip.height + MAX_REORG_DEPTH + 1);
      const blocks = await itemsOf(world, chain, ancestor + 1, reorg.new_tip.height);
      const canonical = new Map<number, CanonicalBlock>();
      for (const block of blocks) canonical.set(block.height, block); // the canonical block comes after its height's orphans
      const orphans = blocks.filter((b) => canonical.get(b.height) !== b);
      assert.ok(orphans.some((b) => b.hash === reorg.old_tip.hash), `${chain}: the generator orphaned the old tip ${reorg.old_tip.hash}`);
      assert.equal(orphans.filter((b) => b.height > ancestor).length >= reorg.depth, true);
      for (const orphan of orphans) {
        assert.equal((await get(demo!, `/api/v1/${chain}/blocks/${orphan.hash}`)).status, 404, `${chain}: orphan ${orphan.hash} gone`);
        const canonicalHashes = new Set(canonical.get(orphan.height)!.transactions.map((t) => t.hash));
        for (const tx of orphan.transactions.filter((t) => !canonicalHashes.has(t.hash) && t.type !== 'coinbase')) {
          // 404 whether the orphan reached the store (the detail then names the reorg) or was replaced before its batch was written.
          assert.equal((await get(demo!, `/api/v1/${chain}/transactions/${tx.hash}`)).status, 404, `${chain}: orphaned tx ${tx.hash}`);
        }
      }
      for (const [height, block] of canonical) {
        if (height > reorg.new_tip.height) continue;
        const { status, body } = await get(demo!, `/api/v1/${chain}/blocks/${height}`);
        assert.equal(status, 200);
        assert.equal(body.hash, block.hash, `${chain} ${height}: the canonical block`);
        assert.equal(body.tx_count, block.transactions.length, `${chain} ${height}: its transactions`);
      }
    }
  });

  it('draws every chart of the dashboard on the demo data', async (t) => {
    const executablePath = findChromium();
    if (!executablePath) return t.skip('no Chromium (Debian: chromium, or QUARRY_CHROMIUM)');
    const browser = await chromium.launch({ executablePath });
    try {
      const page = await browser.newPage();
      for (const chain of CHAINS) {
        await page.goto(`${demo!.url}/#/chain/${chain}`);
        await page.waitForSelector('body[data-charts="ready"]', { timeout: 60_000 });
        const charts = await page.evaluate(() => {
          const { document, echarts } = globalThis as any;
          return [...document.querySelectorAll('main [data-chart]')].map((el: any) => ({
            id: el.dataset.chart as string,
            state: el.dataset.state as string,
            points: ((echarts.getInstanceByDom(el)?.getOption()?.series ?? [])[0]?.data ?? []).length as number,
          }));
        });
        assert.ok(charts.length >= 7, `${chain}: ${charts.length} charts`);
        for (const chart of charts) {
          assert.equal(chart.state, 'ready', `${chain} ${chart.id}`);
          assert.ok(chart.points > 0, `${chain} ${chart.id} draws data`);
        }
      }
    } finally {
      await browser.close();
    }
  });

  it('serves again within seconds after a restart, and carries on from the stored tips', async () => {
    const tips = await Promise.all(CHAINS.map((chain) => tipOf(demo!, chain)));
    await stopDemo(demo);
    const started = Date.now();
    demo = await startDemo(dataDir, 60_000);
    const seconds = (Date.now() - started) / 1000;
    assert.ok(seconds < 30, `served after ${seconds} s`);
    assert.doesNotMatch(demo.output(), /generating the demo chains/);
    for (const [i, chain] of CHAINS.entries()) {
      const deadline = Date.now() + 120_000;
      let tip = await tipOf(demo, chain);
      while (tip.height <= tips[i]!.height && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        tip = await tipOf(demo, chain);
      }
      assert.ok(tip.height > tips[i]!.height, `${chain}: carried on past ${tips[i]!.height} (now ${tip.height})`);
    }
  });
});

