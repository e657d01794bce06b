/**
 * The typed client (client/src) against a real server listening on a port, on the analytics world:
 * one endpoint or more of every group, the figures compared with the test support's oracles
 * (computed from the generator's blocks, never from the store), cursor pagination against the
 * blocks' own transaction rows, and errors as typed problems. The `@ts-expect-error` lines are the
 * type-level half: `npm run typecheck` fails if a wrong parameter stops being a type error.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { ChainId } from '../../src/chain/chains.ts';
import type { CanonicalBlock } from '../../src/chain/model.ts';
import { createQuarryClient, QuarryError, unwrap, type QuarryClient, type QuarryPath, type QuarryResponse } from '../../client/src/index.ts';
import { comparable, expectedComparable, expectedFeed } from '../api/addresses/fixtures.ts';
import { blocksByDay, daysBetween, loadAnalyticsWorld, NETWORK, type AnalyticsWorld } from '../support/analytics-world.ts';
import { utcDay } from '../support/utc-day.ts';
import { TEST_KEY } from '../support/app.ts';
import { expectedFromBlocks } from '../support/expected.ts';
import { expectedActivity, lastDays } from '../support/expected-activity.ts';
import { asQuanta, confirmedVenues, movesOf } from '../support/expected-exchange.ts';
import { dailyFigures, feePercentilesItem, lastDays as lastFigureDays } from '../support/expected-network.ts';
import { figures, holdersByDay } from '../support/expected-population.ts';
import { coins, historyOf, migrationLegs, worldStaking } from '../support/expected-staking.ts';
import { expectedBiggest, expectedBusiestHour, expectedTps, isoSeconds, TARGET_BLOCK_SECONDS, windowOf } from '../support/expected-status.ts';
import { expectedChainTimeline, expectedTimeline } from '../support/expected-timeline.ts';
import { thresholdOf, whaleOracle, whalesOf } from '../support/expected-whales.ts';
import { describeSeededApp } from '../support/seeded-app.ts';
import { expectedHolders, tokenFacts } from '../api/tokens/oracle.ts';

/** Compile-time: every path's 200 answer is typed (none is `unknown` or `any`). */
type UntypedPaths = { [P in QuarryPath]: unknown extends QuarryResponse<P> ? P : never }[QuarryPath];
const everyAnswerTyped: [UntypedPaths] extends [never] ? true : false = true;

const DECIMALS: Record<ChainId, number> = { pow: 9, pos: 18 };
/** Rows per page where the tests page through an address's transactions. */
const PAGE = 7;

/** Per world, the oracles several tests read, computed once. */
const cache = new WeakMap<AnalyticsWorld, Map<string, unknown>>();
function once<T>(w: AnalyticsWorld, key: string, compute: () => T): T {
  let of = cache.get(w);
  if (!of) cache.set(w, (of = new Map()));
  if (!of.has(key)) of.set(key, compute());
  return of.get(key) as T;
}

const addressesOf = (w: AnalyticsWorld, chain: ChainId) => once(w, `addresses ${chain}`, () => expectedFromBlocks(chain, w.blocks[chain]).addresses);

/** An address of `chain` whose transaction rows fill several pages of 7, preferring multi-recipient rows (pow). */
function pagedAddress(w: AnalyticsWorld, chain: ChainId): { address: string; rows: ReturnType<typeof expectedFeed> } {
  return once(w, `paged ${chain}`, () => {
    const addresses = [...addressesOf(w, chain).entries()].filter(([, a]) => a.txCount >= 3 && a.txCount <= 100).sort(([x], [y]) => (x < y ? -1 : 1));
    let fallback: { address: string; rows: ReturnType<typeof expectedFeed> } | undefined;
    for (const [address] of addresses) {
      const rows = expectedFeed(w.blocks[chain], address);
      if (rows.rows.length < 3 * PAGE || rows.rows.length > 30 * PAGE) continue;
      if (rows.rows.length > rows.total) return { address, rows };
      fallback ??= { address, rows };
    }
    assert.ok(fallback, `${chain}: an address with several pages of transactions`);
    return fallback;
  });
}

// Its own app: the suite starts it listening.
describeSeededApp('the typed client against a listening server', loadAnalyticsWorld, (s) => {
  let client: QuarryClient;
  let baseUrl: string;
  /** URLs the client asked for, in order (through the `fetch` option). */
  const requested: string[] = [];
  before(async () => {
    baseUrl = await s.t().app.listen({ port: 0, host: '127.0.0.1' });
    client = createQuarryClient({
      baseUrl,
      apiKey: TEST_KEY,
      fetch: (request) => {
        requested.push(request.url);
        return fetch(request);
      },
    });
  });
  const w = () => s.seeded();

  it('every path’s answer is typed', () => {
    assert.equal(everyAnswerTyped, true);
  });

  it('addresses: the detail of an address, figures from the blocks', async () => {
    for (const chain of ['pow', 'pos'] as const) {
      const { address } = pagedAddress(w(), chain);
      const e = addressesOf(w(), chain).get(address)!;
      const detail = unwrap(await client.GET('/{chain}/addresses/{address}', { params: { path: { chain, address } } }));
      assert.deepEqual(
        [detail.chain, detail.network, detail.address, detail.balance, detail.total_received, detail.total_sent, detail.total_fees_paid, detail.tx_count, detail.tx_received_count, detail.tx_sent_count],
        [chain, NETWORK[chain], address, e.balance.toString(), e.totalReceived.toString(), e.totalSent.toString(), e.totalFees.toString(), e.txCount, e.txIn, e.txOut],
        chain,
      );
      // @ts-expect-error amounts are decimal strings, never numbers
      const wrong: number | null = detail.balance;
      assert.equal(typeof wrong, 'string');
    }
    const last = requested.at(-1)!;
    assert.ok(last.startsWith(`${baseUrl}/api/v1/pos/addresses/Q`), `the client adds /api/v1 once: ${last}`);
  });

  for (const chain of ['pow', 'pos'] as const) {
    it(`addresses: paginate yields every transaction row of a ${chain} address exactly once, newest first, across pages`, async () => {
      const limit = PAGE;
      const { address, rows } = pagedAddress(w(), chain);
      const before = requested.length;
      const items = [];
      for await (const tx of client.paginate('/{chain}/addresses/{address}/transactions', { params: { path: { chain, address }, query: { limit } } })) {
        items.push(tx);
      }
      assert.deepEqual(items.map(comparable), rows.rows.map(expectedComparable));
      const keys = items.map((tx) => `${tx.tx_hash}/${tx.recipient_index}`);
      assert.equal(new Set(keys).size, keys.length, 'no row twice');
      const pages = requested.slice(before);
      assert.equal(pages.length, Math.ceil(rows.rows.length / limit), 'one request per page');
      assert.ok(pages.slice(1).every((url) => new URL(url).searchParams.has('cursor')), 'pages after the first by cursor');
      if (chain === 'pow') assert.ok(rows.rows.length > rows.total, 'the pow address has multi-recipient rows');
    });
  }

  it('blocks: paginate walks a producer\'s blocks newest first; a block and its page by hash', async () => {
    const blocks = w().blocks.pos;
    const producer = blocks.at(-1)!.miner!;
    const want = blocks.filter((b) => b.miner === producer).slice(-60).reverse();
    const since = want.at(-1)!.timestamp;
    const heights: number[] = [];
    for await (const block of client.paginate('/{chain}/blocks', { params: { path: { chain: 'pos' }, query: { producer, time_from: since, limit: 25 } } })) {
      heights.push(block.height);
    }
    assert.deepEqual(heights, want.map((b) => b.height));
    const tip = blocks.at(-1)!;
    const detail = unwrap(await client.GET('/{chain}/blocks/{id}', { params: { path: { chain: 'pos', id: tip.hash } } }));
    assert.deepEqual([detail.height, detail.parent_hash, detail.confirmations, detail.finalized], [tip.height, tip.parentHash, 0, null]);
    const notFound = await client.GET('/{chain}/blocks/{id}', { params: { path: { chain: 'pos', id: String(tip.height + 1) } } });
    assert.equal(notFound.error?.status, 404);
  });

  it('validators: paginate the active ones richest first; a validator by public key and its withdrawals', async () => {
    const validators = w().world.staking.validators;
    const active = validators
      .filter((v) => v.status.startsWith('active_'))
      .sort((a, b) => (a.balance === b.balance ? b.validatorIndex - a.validatorIndex : a.balance < b.balance ? 1 : -1));
    assert.ok(active.length > 50 && active.length < validators.length);
    const listed: [number, string | null][] = [];
    for await (const v of client.paginate('/pos/validators', { params: { query: { status: 'active', sort: '-balance', limit: 40 } } })) listed.push([v.index, v.balance]);
    assert.deepEqual(listed, active.map((v) => [v.validatorIndex, v.balance.toString()]));
    const paid = w().blocks.pos.flatMap((b) => b.withdrawals.map((wd, position) => ({ b, wd, position })));
    const subject = paid.at(-1)!.wd.validatorIndex;
    const pubkey = validators.find((v) => v.validatorIndex === subject)!.pubkey;
    const detail = unwrap(await client.GET('/pos/validators/{validator}', { params: { path: { validator: pubkey } } }));
    assert.deepEqual([detail.index, detail.pubkey, detail.withdrawals_count], [subject, pubkey, paid.filter((p) => p.wd.validatorIndex === subject).length]);
    const heights: number[] = [];
    for await (const wd of client.paginate('/pos/validators/{validator}/withdrawals', { params: { path: { validator: String(subject) }, query: { limit: 2 } } })) heights.push(wd.height);
    assert.deepEqual(heights, paid.filter((p) => p.wd.validatorIndex === subject).reverse().map((p) => p.b.height));
    const unknown = await client.GET('/pos/validators/{validator}', { params: { path: { validator: String(validators.length) } } });
    assert.equal(unknown.error?.status, 404);
  });

  it('addresses: paginate keeps the filters on every page', async () => {
    const { address, rows } = pagedAddress(w(), 'pos');
    const incoming = expectedFeed(w().blocks.pos, address, { direction: 'in' }).rows;
    assert.ok(incoming.length > 0 && incoming.length < rows.rows.length);
    const items = [];
    for await (const tx of client.paginate('/{chain}/addresses/{address}/transactions', { params: { path: { chain: 'pos', address }, query: { limit: 3, direction: 'in' } } })) items.push(tx);
    assert.deepEqual(items.map(comparable), incoming.map(expectedComparable));
  });

  it('transactions: paginate a chain\'s list with a type filter; a transaction page and an unknown hash, typed', async () => {
    const txs = w().blocks.pow.flatMap((block) => block.transactions.map((tx) => ({ height: block.height, tx })));
    const slaves = txs.filter(({ tx }) => tx.type === 'slave').sort((a, b) => b.height - a.height || b.tx.index - a.tx.index);
    assert.ok(slaves.length > 3);
    const hashes: string[] = [];
    for await (const tx of client.paginate('/{chain}/transactions', { params: { path: { chain: 'pow' }, query: { limit: 2, tx_type: 'slave' } } })) hashes.push(tx.tx_hash);
    assert.deepEqual(hashes, slaves.map(({ tx }) => tx.hash));
    const page = unwrap(await client.GET('/{chain}/transactions/{hash}', { params: { path: { chain: 'pow', hash: slaves[0]!.tx.hash } } }));
    assert.deepEqual(page.slave_keys?.map((k) => k.slave_address).sort(), slaves[0]!.tx.slaves.map((k) => k.slave).sort());
    const missing = await client.GET('/{chain}/transactions/{hash}', { params: { path: { chain: 'pos', hash: '0x' + '0'.repeat(64) } } });
    assert.equal(missing.error?.status, 404);
    // No indexer follows the world's nodes: no pending transaction, and the answer says why.
    const pending = unwrap(await client.GET('/{chain}/transactions/pending', { params: { path: { chain: 'pos' }, query: { limit: 5 } } }));
    assert.deepEqual([pending.items, pending.pending_source.following, pending.pending_source.reason], [[], false, 'no indexer has followed this chain\'s node: no read of its pool is recorded']);
  });

  it('search: a block hash across both chains, typed, and a blank q as a typed problem', async () => {
    const tip = w().blocks.pos.at(-1)!;
    const body = unwrap(await client.GET('/search', { params: { query: { q: tip.hash.slice(2).toUpperCase() } } }));
    const hit = body.items[0]!;
    assert.deepEqual([hit.kind, hit.chain, hit.id, hit.height, hit.path], ['block', 'pos', tip.hash, tip.height, `/api/v1/pos/blocks/${tip.hash}`]);
    const blank = await client.GET('/search', { params: { query: { q: ' ' } } });
    assert.equal(blank.error?.status, 400);
    assert.deepEqual(blank.error?.errors?.map((e) => e.param), ['q']);
    // @ts-expect-error q is required
    await client.GET('/search', { params: { query: {} } });
  });

  it('pow keys: an address\'s reused one-time key, and a multi-signature address\'s spends by cursor', async () => {
    const txs = w().blocks.pow.flatMap((block) => block.transactions.map((tx) => ({ block, tx })));
    // The reuse: a key's index used by an earlier signature of the same key.
    const used = new Map<string, Map<number, string[]>>();
    for (const { tx } of txs) {
      if (tx.otsIndex === null) continue;
      const key = tx.signer ?? tx.from;
      if (!used.has(key)) used.set(key, new Map());
      used.get(key)!.set(tx.otsIndex, [...(used.get(key)!.get(tx.otsIndex) ?? []), tx.hash]);
    }
    const [address, indexes] = [...used].find(([, byIndex]) => [...byIndex.values()].some((hashes) => hashes.length > 1))!;
    const [ots, hashes] = [...indexes].find(([, h]) => h.length > 1)!;
    const keys = unwrap(await client.GET('/pow/addresses/{address}/ots', { params: { path: { address } } }));
    assert.deepEqual(keys.reuses.map((r) => [r.ots_index, r.transactions.map((t) => t.tx_hash)]), [[ots, hashes]]);
    assert.deepEqual([keys.signatures, keys.keys_used], [[...indexes.values()].flat().length, indexes.size]);
    // A multisig address's spends, newest first, two a page.
    const create = txs.find(({ tx }) => tx.multiSig?.kind === 'create')!.tx.multiSig!;
    assert.ok(create.kind === 'create');
    const spends = txs.filter(({ tx }) => tx.multiSig?.kind === 'spend' && tx.multiSig.multiSigAddress === create.address).reverse();
    const seen: string[] = [];
    for await (const spend of client.paginate('/pow/addresses/{address}/multisig/spends', { params: { path: { address: create.address }, query: { limit: 2 } } })) seen.push(spend.tx_hash);
    assert.deepEqual(seen, spends.map(({ tx }) => tx.hash));
    const ms = unwrap(await client.GET('/pow/addresses/{address}/multisig', { params: { path: { address: create.address } } }));
    assert.deepEqual([ms.threshold, ms.signatories, ms.spends.total], [create.threshold, create.signatories, spends.length]);
    const none = await client.GET('/pow/addresses/{address}/multisig', { params: { path: { address } } });
    assert.equal(none.error?.status, 404);
  });

  it('tokens: paginate a token\'s holders richest first; a token page and an unknown token, typed', async () => {
    const t = [...tokenFacts('pos', w().blocks.pos).values()].sort((a, b) => expectedHolders(b).length - expectedHolders(a).length)[0]!;
    const want = expectedHolders(t);
    assert.ok(want.length > 4);
    const holders: [string, string | null][] = [];
    for await (const h of client.paginate('/{chain}/tokens/{token}/holders', { params: { path: { chain: 'pos', token: t.id }, query: { limit: 2 } } })) holders.push([h.address, h.balance]);
    assert.deepEqual(holders, want.map((h) => [h.address, h.balance]));
    const page = unwrap(await client.GET('/{chain}/tokens/{token}', { params: { path: { chain: 'pos', token: t.id } } }));
    assert.deepEqual([page.symbol, page.holders, page.total_supply], [t.info?.symbol, want.length, t.supply.toString()]);
    const missing = await client.GET('/{chain}/tokens/{token}', { params: { path: { chain: 'pow', token: '0'.repeat(64) } } });
    assert.equal(missing.error?.status, 404);
  });

  it('network: transactions per second of both chains', async () => {
    const tps = unwrap(await client.GET('/analytics/network/tps'));
    assert.deepEqual(
      tps.items,
      (['pow', 'pos'] as const).map((chain) => ({ chain, network: NETWORK[chain], ...expectedTps(w().blocks[chain]) })),
    );
  });

  it('fees: exact nearest-rank fee percentiles per day', async () => {
    const body = unwrap(await client.GET('/analytics/fees/percentiles', { params: { query: { chain: 'pow', window: '3d' } } }));
    const items = lastFigureDays(dailyFigures(w().blocks.pow), 3).map(([day, d]) => feePercentilesItem(day, d));
    assert.deepEqual(body, { items, count: 3, chain: 'pow', network: NETWORK.pow, window_days: 3 });
  });

  it('supply: holders, total supply and the top ten at the latest block', async () => {
    const body = unwrap(await client.GET('/analytics/supply/summary', { params: { query: { chain: 'pos' } } }));
    const byDay = holdersByDay('pos', w().blocks.pos);
    const f = figures(byDay.get([...byDay.keys()].at(-1)!)!.map((h) => h.balance));
    assert.deepEqual([body.holders, body.total_supply, body.top10_supply], [f.holders, f.supply.toString(), f.top(10).toString()]);
  });

  it('whales: the whales above the 100,000-coin floor', async () => {
    for (const chain of ['pow', 'pos'] as const) {
      const body = unwrap(await client.GET('/analytics/whales/summary', { params: { query: { chain } } }));
      const o = whaleOracle(w(), chain);
      const whales = whalesOf(o, thresholdOf(o));
      assert.deepEqual(
        [body.whale_threshold, body.whale_count, body.total_whale_balance, body.total_supply],
        [thresholdOf(o).toString(), whales.length, whales.reduce((a, x) => a + x.balance, 0n).toString(), o.supply.toString()],
        chain,
      );
    }
  });

  it('staking: the latest day’s validators, stake and Nakamoto coefficient', async () => {
    const body = unwrap(await client.GET('/analytics/staking/daily', { params: { query: { window: '1d' } } }));
    const { last } = worldStaking(w());
    const [item] = body.items;
    assert.ok(item);
    assert.deepEqual(
      [item.day, item.active_validators, item.total_staked_quanta, item.nakamoto_33],
      [last.day, last.activeValidators, coins(last.totalStaked, 18), last.nakamoto33],
    );
  });

  it('exchange: venues, confirmed addresses and their custody', async () => {
    for (const chain of ['pow', 'pos'] as const) {
      const body = unwrap(await client.GET('/analytics/exchange/summary', { params: { query: { chain } } }));
      const wallets = w().world.curated.exchangeWallets.filter((x) => x.chain === chain);
      const venues = confirmedVenues(wallets, movesOf(w().blocks[chain]));
      const balances = addressesOf(w(), chain);
      const custody = [...venues.keys()].reduce((sum, address) => sum + (balances.get(address)?.balance ?? 0n), 0n);
      assert.deepEqual(
        [body.exchange_count, body.tracked_addresses, body.total_balance_quanta],
        [new Set([...venues.values()].map((v) => v.exchange)).size, venues.size, asQuanta(custody, DECIMALS[chain])],
        chain,
      );
      assert.ok(body.exchange_count >= 2, `${chain}: the world has venues`);
    }
  });

  it('cross-chain: both legs of a migration, asked by the burner’s address', async () => {
    const legs = migrationLegs(w());
    const burn = legs.find((b) => b.migration_role === 'burn' && legs.some((m) => m.migration_role === 'mint' && m.account_id === b.account_id));
    assert.ok(burn, 'the world has a claimed migration');
    const body = unwrap(await client.GET('/analytics/cross-chain/history/{address}', { params: { path: { address: burn.from_addr } } }));
    assert.deepEqual(body.items, historyOf(w(), burn.from_addr));
    assert.equal(body.address, burn.from_addr);
  });

  it('blocks: block sizes per day', async () => {
    const body = unwrap(await client.GET('/analytics/block-size', { params: { query: { chain: 'pow', window: '2d' } } }));
    const blocks = w().blocks.pow;
    const byDay = blocksByDay(blocks);
    const days = daysBetween(utcDay(blocks[0]!.timestamp), utcDay(blocks.at(-1)!.timestamp)).slice(-2);
    assert.deepEqual(
      body.items,
      days.map((day) => {
        const sizes = (byDay.get(day) ?? []).map((b) => b.size);
        const total = sizes.reduce((a, b) => a + b, 0);
        return { day, block_count: sizes.length, avg_block_size: sizes.length ? Math.floor(total / sizes.length) : 0, max_block_size: sizes.length ? Math.max(...sizes) : 0, total_block_size: String(total) };
      }),
    );
  });

  it('transactions: user transactions per day', async () => {
    const body = unwrap(await client.GET('/analytics/transactions/user-daily', { params: { query: { chain: 'pow', window: '90d' } } }));
    assert.deepEqual(body.items, lastDays(expectedActivity(w().blocks.pow), 90).map(({ day, userTxCount }) => ({ day, user_tx_count: userTxCount })));
  });

  it('wallets: new wallets and the running count per day', async () => {
    const body = unwrap(await client.GET('/analytics/wallet-count', { params: { query: { chain: 'pos' } } }));
    assert.deepEqual(
      body.items,
      lastDays(expectedActivity(w().blocks.pos), 30).map(({ day, newWallets, walletCount }) => ({ day, new_wallets: newWallets, wallet_count: walletCount })),
    );
  });

  it('timeline: a metric as a path parameter, stitched at the migration cutover', async () => {
    const body = unwrap(await client.GET('/analytics/timeline/{metric}', { params: { path: { metric: 'blocks' }, query: { window: '10y' } } }));
    const t = { pow: expectedChainTimeline('pow', w().blocks.pow), pos: expectedChainTimeline('pos', w().blocks.pos) };
    const cutover = utcDay(w().world.options.migrationCutover!);
    const expected = expectedTimeline(t, 'blocks', 3650, cutover);
    assert.deepEqual([body.metric, body.phase, body.cutover_date, body.points, body.preview], ['blocks', 'stitched', cutover, expected.points, expected.preview]);
  });

  it('home: the highlights of pow', async () => {
    const body = unwrap(await client.GET('/analytics/home/highlights', { params: { query: { chain: 'pow' } } }));
    const blocks = w().blocks.pow;
    const tipTs = blocks.at(-1)!.timestamp;
    const biggest = expectedBiggest(blocks, utcDay(tipTs - 6 * 86_400), utcDay(tipTs));
    assert.ok(biggest);
    const blocks24h = windowOf(blocks, tipTs - 86_400, tipTs).blocks;
    assert.deepEqual(body.biggest_tx_recent, {
      window: '7d', tx_hash: biggest.tx_hash, value: biggest.value.toString(), from_addr: biggest.from_addr, to_addr: biggest.to_addr, timestamp: isoSeconds(biggest.ts),
    });
    assert.deepEqual(body.busiest_hour_today, expectedBusiestHour(blocks));
    assert.deepEqual(body.block_cadence, { blocks_24h: blocks24h, expected_24h: 86_400 / TARGET_BLOCK_SECONDS.pow, ratio: blocks24h / (86_400 / TARGET_BLOCK_SECONDS.pow) });
  });

  it('dashboard: each chain’s blocks, heights and transactions', async () => {
    const body = unwrap(await client.GET('/analytics/dashboard/summary'));
    for (const chain of ['pow', 'pos'] as const) {
      const blocks: CanonicalBlock[] = w().blocks[chain];
      const answered = body.chains[chain];
      assert.ok(answered, chain);
      assert.deepEqual(
        [answered.total_blocks, answered.min_height, answered.max_height, answered.total_transactions],
        [blocks.length, blocks[0]!.height, blocks.at(-1)!.height, blocks.reduce((n, b) => n + b.transactions.length, 0)],
        chain,
      );
    }
  });

  it('a bad address is a typed 400 problem naming the parameter: as a result, from unwrap and from paginate', async () => {
    const result = await client.GET('/{chain}/addresses/{address}', { params: { path: { chain: 'pos', address: 'Qnot-an-address' } } });
    assert.equal(result.data, undefined);
    assert.ok(result.error);
    assert.equal(result.response.status, 400);
    assert.equal(result.error.status, 400);
    assert.equal(result.error.type, '/problems/invalid-parameter');
    assert.deepEqual(result.error.errors?.map((e) => e.param), ['address']);
    assert.throws(
      () => unwrap(result),
      (error: unknown) => error instanceof QuarryError && error.status === 400 && error.errors.some((e) => e.param === 'address'),
    );
    await assert.rejects(
      async () => {
        for await (const _ of client.paginate('/{chain}/addresses/{address}/transactions', { params: { path: { chain: 'pow', address: 'Q1234' } } })) assert.fail('no items');
      },
      (error: unknown) => error instanceof QuarryError && error.status === 400 && error.type === '/problems/invalid-parameter' && error.errors[0]?.param === 'address',
    );
  });

  it('a missing, empty or unknown key is a typed 401 problem', async () => {
    const withoutHeader = (request: Request) => {
      const bare = new Request(request);
      bare.headers.delete('authorization');
      return fetch(bare);
    };
    const clients = {
      missing: createQuarryClient({ baseUrl, apiKey: TEST_KEY, fetch: withoutHeader }),
      empty: createQuarryClient({ baseUrl, apiKey: '' }),
      unknown: createQuarryClient({ baseUrl, apiKey: 'not-a-key-0123456789abcdef' }),
    };
    for (const [key, keyed] of Object.entries(clients)) {
      const result = await keyed.GET('/analytics/network/tps');
      assert.ok(result.error, `${key} key`);
      assert.equal(result.error.status, 401, key);
      assert.equal(result.error.type, '/problems/unauthorized', key);
      assert.match(result.response.headers.get('www-authenticate') ?? '', /^Bearer realm="quarry"/, key);
    }
  });

  it('rejects wrong parameters at compile time; the server ignores or refuses them at run time', async () => {
    const address = pagedAddress(w(), 'pos').address;
    // @ts-expect-error `limt` is not a parameter of the transactions feed
    const misspelt = await client.GET('/{chain}/addresses/{address}/transactions', { params: { path: { chain: 'pos', address }, query: { limt: 1 } } });
    assert.equal(misspelt.data?.limit, 25, 'an unknown parameter is ignored: the default limit');
    // @ts-expect-error `btc` is not a chain
    const chain = await client.GET('/{chain}/addresses/{address}', { params: { path: { chain: 'btc', address } } });
    assert.equal(chain.error?.status, 404);
    // @ts-expect-error `limit` is a number
    const typed = await client.GET('/analytics/whales/biggest', { params: { query: { limit: 'ten' } } });
    assert.deepEqual(typed.error?.errors?.map((e) => e.param), ['limit']);
    // @ts-expect-error `offset` would override the cursor: paginate does not take it
    const offset = client.paginate('/{chain}/addresses/{address}/transactions', { params: { path: { chain: 'pos', address }, query: { offset: 5 } } });
    assert.equal(typeof offset.next, 'function');
  });
}, { own: true });

describe('the typed client against a server that answers no problem', () => {
  let proxy: Server;
  let client: QuarryClient;
  before(async () => {
    // A real HTTP server in front of nothing: the HTML answer of a failing proxy.
    proxy = createServer((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html><body>502 Bad Gateway</body></html>');
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    client = createQuarryClient({ baseUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/api/v1/`, apiKey: TEST_KEY });
  });
  after(() => new Promise<void>((resolve) => proxy.close(() => resolve())));

  it('turns a non-problem error answer into a problem with its status and text', async () => {
    const result = await client.GET('/analytics/network/tps');
    assert.deepEqual(result.error, { type: 'about:blank', title: 'Bad Gateway', status: 502, detail: '<html><body>502 Bad Gateway</body></html>' });
  });
});
