import assert from 'node:assert/strict';
import { it } from 'node:test';
import Fastify from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import sql from 'sql-template-tag';
import { networkHealthRoute } from '../../../../src/api/analytics/network/health.ts';
import { DEFAULT_TUNING, type ApiContext, type RouteApp } from '../../../../src/api/context.ts';
import { createCursorCodec } from '../../../../src/api/params/cursor.ts';
import { ProblemSchema } from '../../../../src/api/schemas/common.ts';
import { registerFreshness, sharedStoreStateReader } from '../../../../src/api/plugins/freshness.ts';
import type { ChainId } from '../../../../src/chain/chains.ts';
import type { CanonicalBlock } from '../../../../src/chain/model.ts';
import { loadConfig } from '../../../../src/config/env.ts';
import type { Store } from '../../../../src/store/store.ts';
import { ingest } from '../../../../src/ingest/pipeline.ts';
import { AUTH, TEST_KEY } from '../../../support/app.ts';
import { ChainBuilder } from '../../../support/chain-builder.ts';
import { loadAnalyticsWorld } from '../../../support/analytics-world.ts';
import { isoSeconds, TARGET_BLOCK_SECONDS, windowOf } from '../../../support/expected-status.ts';
import { describeSeededApp } from '../../../support/seeded-app.ts';

const CHECKED_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const config = loadConfig({ QUARRY_API_KEYS: TEST_KEY });

/** The health route alone (with the read of the store's state it is answered from), on `store`, with the clock fixed at `nowSeconds` (+ 123456 µs). */
async function withClock(store: Store, nowSeconds: number) {
  const ctx: ApiContext = { store, config, cursors: createCursorCodec('x'.repeat(32)), network: (c) => config.networks[c], tuning: DEFAULT_TUNING };
  const app = Fastify().withTypeProvider<TypeBoxTypeProvider>();
  app.addSchema(ProblemSchema);
  registerFreshness(app, sharedStoreStateReader(store));
  networkHealthRoute(app as unknown as RouteApp, ctx, { now: () => nowSeconds * 1_000_000 + 123_456 });
  const body = (await app.inject({ url: '/analytics/network/health' })).json();
  await app.close();
  return body;
}

/**
 * The clock of the generated world's chains: its pos blocks are 12 s slots, recorded at load as
 * what the blocks show; pow keeps its 60 s target, the default.
 */
const WORLD_CLOCK: Record<ChainId, { seconds: number; source: string }> = { pow: { seconds: TARGET_BLOCK_SECONDS.pow, source: 'default' }, pos: { seconds: 12, source: 'blocks' } };

/** A chain's entry by the definitions: lag against the clock, ok up to 10 slot times, stalled past 60. */
function expectedEntry(chain: ChainId, blocks: CanonicalBlock[], now: number, seenTs: number | null, dlq = 0, clock = WORLD_CLOCK[chain]) {
  const tip = blocks.at(-1)!.timestamp;
  const lag = Math.max(0, now - tip);
  const target = clock.seconds;
  return {
    chain,
    network: config.networks[chain],
    slot_seconds: clock.seconds,
    clock_source: clock.source,
    latest_block_time: isoSeconds(tip),
    tip_lag_seconds: lag,
    silver_blocks_24h: windowOf(blocks, now - 86_400, now).blocks,
    dlq_open_count: dlq,
    status: lag <= 10 * target ? 'ok' : lag <= 60 * target ? 'degraded' : 'stalled',
    stalled_height: null,
    stall_reason: null,
    indexer_seen_seconds_ago: seenTs === null ? null : Math.max(0, now - seenTs),
    // No indexer ran without traces here: pos's are indexed; pow has none.
    internal_transfers: chain === 'pos' ? 'indexed' : 'not_applicable',
    staking_sync: chain === 'pos' ? NO_STAKING_SYNC : null,
    pending_pool: NO_PENDING_POOL,
  };
}

/** pos's staking sync where none has run against the store (no beacon node). */
const NO_STAKING_SYNC = { status: 'unknown', last_success_time: null, error: null };

/** A chain whose pool no indexer has read (docs/api-transactions.md, "Pending transactions"). */
const NO_PENDING_POOL = {
  following: false,
  reason: 'no indexer has followed this chain\'s node: no read of its pool is recorded',
  method: null,
  interval_seconds: null,
  stale_after_seconds: null,
  last_poll_time: null,
  last_read_time: null,
  pool_size: null,
  cap: 5000,
  error: null,
};

/** What the route says of the store it reads: the embedded one, or the test server (a primary). */
const replicaOf = (store: Store) => ({ role: store.kind === 'pglite' ? 'embedded' : 'primary', lag_seconds: null, lag_bytes: null });

/** When what fed each chain (the seeded world's generator) last recorded the node's tip, read from the table. */
async function nodeTipsSeen(store: Store): Promise<Record<ChainId, number | null>> {
  const rows = await store.query<{ chain: ChainId; seen_ts: number | string }>('test.node_tips', sql`SELECT chain, seen_ts FROM chain_node_tips`);
  const seen = Object.fromEntries(rows.map((row) => [row.chain, Number(row.seen_ts)]));
  return { pow: seen.pow ?? null, pos: seen.pos ?? null };
}

describeSeededApp('GET /analytics/network/health', loadAnalyticsWorld, (s) => {
  const key = (chain: ChainId) => `${chain}:${config.networks[chain]}`;

  it('measures each chain against the clock: lag, blocks of the last 24 h, status', async () => {
    const { pow, pos } = s.seeded().blocks;
    const posTip = pos.at(-1)!.timestamp;
    const seen = await nodeTipsSeen(s.store());
    // Clocks putting pos (12 s blocks) and pow (60 s) on each side of the thresholds, and one behind the tip.
    for (const now of [posTip - 3600, posTip, posTip + 120, posTip + 121, posTip + 720, posTip + 721, posTip + 3601, posTip + 40_000, posTip + 200_000]) {
      const body = await withClock(s.store(), now);
      assert.deepEqual(body, {
        chains: { [key('pow')]: expectedEntry('pow', pow, now, seen.pow), [key('pos')]: expectedEntry('pos', pos, now, seen.pos) },
        checked_at: `${isoSeconds(now)}.123456Z`,
        replica: replicaOf(s.store()),
      }, `now = tip + ${now - posTip}`);
    }
    const statuses = new Set<string>();
    for (const now of [posTip, posTip + 600, posTip + 100_000]) for (const e of Object.values((await withClock(s.store(), now)).chains)) statuses.add((e as { status: string }).status);
    assert.deepEqual([...statuses].sort(), ['degraded', 'ok', 'stalled']);
  });

  it('answers through the app against the wall clock', async () => {
    const before = Math.floor(Date.now() / 1000);
    const res = await s.t().app.inject({ url: '/api/v1/analytics/network/health', headers: AUTH });
    const afterwards = Math.ceil(Date.now() / 1000);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    const seen = await nodeTipsSeen(s.store());
    assert.match(body.checked_at, CHECKED_AT);
    assert.deepEqual(Object.keys(body.chains), [key('pow'), key('pos')]);
    for (const chain of ['pow', 'pos'] as const) {
      const entry = body.chains[key(chain)];
      const tip = s.seeded().blocks[chain].at(-1)!.timestamp;
      assert.equal(entry.latest_block_time, isoSeconds(tip));
      assert.ok(entry.tip_lag_seconds >= Math.max(0, before - tip) && entry.tip_lag_seconds <= Math.max(0, afterwards - tip), String(entry.tip_lag_seconds));
      const now = tip + entry.tip_lag_seconds;
      assert.deepEqual(entry, expectedEntry(chain, s.seeded().blocks[chain], now, seen[chain]));
    }
  });
  // On every store: the answer names the store it reads (embedded or a primary).
}, { everyStore: true });

const STALL_REASON = 'block 12 does not decode: transactions[3].fee: not a uint64';

describeSeededApp(
  'GET /analytics/network/health with dead letters and a stalled chain',
  async (store) => {
    const rows: [string, number, number | null][] = [['pow', 5, null], ['pow', 6, null], ['pow', 7, 1_700_000_000], ['pos', 9, 1_700_000_000]];
    for (const [chain, height, resolved] of rows) {
      await store.query('test.dead_letter', sql`INSERT INTO dead_letters (chain, source, height, error, created_ts, resolved_ts) VALUES (${chain}, 'test', ${height}, 'bad', 1700000000, ${resolved})`);
    }
    await store.query('test.stall', sql`INSERT INTO ingest_stalls (chain, source, height, reason, since_ts) VALUES ('pos', 'evm-rpc', 12, ${STALL_REASON}, 1700000000)`);
    // The pow indexer last saw its node 1000 s before the clock the test fixes.
    await store.query('test.node_tip', sql`INSERT INTO chain_node_tips (chain, height, seen_ts) VALUES ('pow', 40, 1799999000)`);
    // Its pool polls every 5 s: the last one, 10 s before the clock, failed; the last read was 100 s before it.
    await store.query(
      'test.pending_poll',
      sql`INSERT INTO pending_polls (chain, method, interval_ms, polled_ts, ok_ts, pool_size, error)
          VALUES ('pow', 'GetLatestData', 5000, 1799999990, 1799999900, 12, 'GetLatestData: 14 UNAVAILABLE: No connection established')`,
    );
  },
  (s) => {
    it('counts the letters not marked resolved; an empty chain is unknown; a stalled one says where and why', async () => {
      const body = await withClock(s.store(), 1_800_000_000);
      assert.deepEqual(body, {
        chains: Object.fromEntries(
          (['pow', 'pos'] as const).map((chain) => [
            `${chain}:${config.networks[chain]}`,
            {
              chain,
              network: config.networks[chain],
              slot_seconds: TARGET_BLOCK_SECONDS[chain],
              clock_source: 'default',
              latest_block_time: null,
              tip_lag_seconds: null,
              silver_blocks_24h: 0,
              dlq_open_count: chain === 'pow' ? 2 : 0,
              status: chain === 'pow' ? 'unknown' : 'stalled',
              stalled_height: chain === 'pow' ? null : 12,
              stall_reason: chain === 'pow' ? null : STALL_REASON,
              indexer_seen_seconds_ago: chain === 'pow' ? 1000 : null,
              internal_transfers: chain === 'pos' ? 'indexed' : 'not_applicable',
              staking_sync: chain === 'pos' ? NO_STAKING_SYNC : null,
              // Polled within three intervals (at least 60 s), so following; not read within them, so the list is empty and says why.
              pending_pool:
                chain === 'pow'
                  ? {
                      following: true,
                      reason: `the node's pool is not read since ${isoSeconds(1_799_999_900)} UTC: GetLatestData: 14 UNAVAILABLE: No connection established`,
                      method: 'GetLatestData',
                      interval_seconds: 5,
                      stale_after_seconds: 60,
                      last_poll_time: isoSeconds(1_799_999_990),
                      last_read_time: isoSeconds(1_799_999_900),
                      pool_size: 12,
                      cap: 5000,
                      error: 'GetLatestData: 14 UNAVAILABLE: No connection established',
                    }
                  : NO_PENDING_POOL,
            },
          ]),
        ),
        checked_at: `${isoSeconds(1_800_000_000)}.123456Z`,
        replica: replicaOf(s.store()),
      });
      const res = await s.t().app.inject({ url: '/api/v1/analytics/network/health', headers: AUTH });
      assert.equal(res.json().chains[`pow:${config.networks.pow}`].status, 'unknown');
    });

    it('/readyz names the stalled chain and stays ready (the API still serves what is indexed)', async () => {
      const res = await s.t().app.inject({ url: '/readyz' });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json().stalled_chains, { pos: { height: 12, reason: STALL_REASON, since: '2023-11-14T22:13:20Z' } });
    });
  },
);

/** A pos network of 60 s slots (qrysm's mainnet): 3 days of blocks, every 7th slot missed, its clock stored as a node gave it. */
const SLOT = 60;
const T0 = Date.UTC(2026, 4, 1) / 1000;
function sixtySecondChain(): ChainBuilder {
  const c = new ChainBuilder('pos', T0, SLOT);
  for (let slot = 0; slot <= (3 * 86_400) / SLOT; slot++) if (slot % 7 !== 3) c.block(() => {}, { gap: c.tip ? slot - (c.tip.timestamp - T0) / SLOT : 1 });
  return c;
}

describeSeededApp(
  'GET /analytics/network/health on a 60 s network',
  async (store) => {
    const c = sixtySecondChain();
    await ingest(store, c.source());
    await store.query('test.clock', sql`INSERT INTO chain_settings (chain, key, value) VALUES ('pos', 'slot_seconds', '60'), ('pos', 'clock_source', 'beacon')`);
    return c.blocks;
  },
  (s) => {
    it('measures the tip in 60 s slots: 4 minutes late is ok, not degraded', async () => {
      const blocks = s.seeded();
      const tip = blocks.at(-1)!.timestamp;
      const clock = { seconds: SLOT, source: 'beacon' };
      const statuses: Record<number, string> = {};
      // 240 s: ok here (≤ 600), degraded on a 12 s network (> 120); 601 s and 3,601 s cross the thresholds.
      for (const lag of [0, 240, 600, 601, 3600, 3601]) {
        const body = await withClock(s.store(), tip + lag);
        assert.deepEqual(body.chains[`pos:${config.networks.pos}`], expectedEntry('pos', blocks, tip + lag, null, 0, clock), `lag ${lag}`);
        statuses[lag] = body.chains[`pos:${config.networks.pos}`].status;
      }
      assert.deepEqual(statuses, { 0: 'ok', 240: 'ok', 600: 'ok', 601: 'degraded', 3600: 'degraded', 3601: 'stalled' });
      // pow has no block and keeps its default clock.
      const pow = (await withClock(s.store(), tip)).chains[`pow:${config.networks.pow}`];
      assert.deepEqual([pow.status, pow.slot_seconds, pow.clock_source], ['unknown', 60, 'default']);
    });

    it('says the same through the app', async () => {
      const res = await s.t().app.inject({ url: '/api/v1/analytics/network/health', headers: AUTH });
      assert.equal(res.statusCode, 200, res.body);
      const entry = res.json().chains[`pos:${config.networks.pos}`];
      assert.deepEqual([entry.slot_seconds, entry.clock_source], [SLOT, 'beacon']);
      assert.equal(entry.status, entry.tip_lag_seconds <= 600 ? 'ok' : entry.tip_lag_seconds <= 3600 ? 'degraded' : 'stalled');
    });

    it('counts the expected blocks of a day in 60 s slots: 1,440', async () => {
      const blocks = s.seeded();
      const tip = blocks.at(-1)!.timestamp;
      const res = await s.t().app.inject({ url: '/api/v1/analytics/home/highlights?chain=pos', headers: AUTH });
      assert.equal(res.statusCode, 200, res.body);
      const blocks24h = windowOf(blocks, tip - 86_400, tip).blocks;
      // A day holds 1,440 slots, every 7th missed: 1,234 or 1,235 blocks.
      assert.ok(blocks24h >= 1234 && blocks24h <= 1235, String(blocks24h));
      assert.deepEqual(res.json().block_cadence, { blocks_24h: blocks24h, expected_24h: 1440, ratio: blocks24h / 1440 });
    });
  },
);
