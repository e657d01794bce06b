/**
 * The validator routes on a store synced from a fake qrysm beacon node (every status, exits,
 * slashings) beside pos blocks in its slots: every figure against the node's model and the builder's
 * blocks (oracle.ts), whole lists walked by cursor in every order and filter, bad input and unknown
 * validators, CSV, and the block page's proposer.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { AUTH } from '../../support/app.ts';
import { isoSeconds } from '../../support/expected-transaction.ts';
import { describeSeededApp } from '../../support/seeded-app.ts';
import { expectedDays, expectedList, expectedProposals, expectedProposer, expectedSummary, expectedWithdrawals } from './oracle.ts';
import { CONFIG, seedValidators, slotOf, SYNCED_AT } from './world.ts';

const STATUSES = ['pending_initialized', 'pending_queued', 'active_ongoing', 'active_exiting', 'active_slashed', 'exited_unslashed', 'exited_slashed', 'withdrawal_possible', 'withdrawal_done'];
const GROUPS = ['pending', 'active', 'exited', 'withdrawal'];
const SORTS = ['index', '-index', 'balance', '-balance'];

describeSeededApp('GET /pos/validators and a validator\'s pages', seedValidators, (s) => {
  const request = (url: string, headers: Record<string, string> = {}) => s.t().app.inject({ url, headers: { ...AUTH, ...headers } });
  const get = async (url: string) => {
    const res = await request(url);
    assert.equal(res.statusCode, 200, `${url}: ${res.body.slice(0, 300)}`);
    return res.json();
  };
  const problem = async (url: string, status: number) => {
    const res = await request(url);
    assert.equal(res.statusCode, status, `${url}: ${res.body.slice(0, 300)}`);
    assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
    return res.json();
  };
  /** Every item of a cursor list, page by page; the pages' totals. */
  const walk = async (url: string, limit: number) => {
    const items: unknown[] = [];
    const totals = new Set<number | null>();
    let cursor: string | null = null;
    do {
      const sep = url.includes('?') ? '&' : '?';
      const body = await get(`${url}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      assert.equal(body.count, body.items.length);
      assert.ok(body.items.length <= limit);
      assert.equal(body.has_more, body.next_cursor !== null);
      totals.add(body.total);
      items.push(...body.items);
      cursor = body.next_cursor;
    } while (cursor !== null);
    return { items, totals: [...totals] };
  };
  const key = (v: number) => s.seeded().head[v]!.validator.pubkey;

  it('the head state has every status of qrysm', () => {
    assert.deepEqual([...new Set(s.seeded().head.map((r) => r.status))].sort(), [...STATUSES].sort());
  });

  it('the first page: every validator by index, with the count, the echo and full public keys', async () => {
    const body = await get('/api/v1/pos/validators');
    assert.deepEqual(body.items, expectedList(s.seeded(), 'index', null));
    assert.equal(body.total, CONFIG.validators);
    assert.equal(body.has_more, false);
    assert.equal(body.next_cursor, null);
    assert.deepEqual([body.chain, body.network, body.status, body.sort, body.limit], ['pos', 'testnet', null, 'index', 25]);
    assert.ok(body.items.every((v: { pubkey: string }) => v.pubkey.length === 2 + 2 * 2592), 'ML-DSA-87 keys, whole');
  });

  for (const sort of SORTS) {
    it(`sort=${sort}: every status and group, walked by cursor three at a time, equals the head state in that order`, async () => {
      for (const status of [null, ...STATUSES, ...GROUPS]) {
        const url = `/api/v1/pos/validators?sort=${sort}${status ? `&status=${status}` : ''}`;
        const want = expectedList(s.seeded(), sort, status);
        assert.ok(status === null || want.length > 0, `${status} has validators`);
        const { items, totals } = await walk(url, 3);
        assert.deepEqual(items, want, url);
        assert.deepEqual(totals, [want.length], `${url}: total`);
      }
    });
  }

  it('balance order is not index order: effective balances differ and paid-out validators hold 0, ties by index', () => {
    const byBalance = expectedList(s.seeded(), '-balance', null).map((v) => v.index);
    assert.notDeepEqual(byBalance, expectedList(s.seeded(), '-index', null).map((v) => v.index));
    // Validators 6 and 7 were paid out: balance 0, last, the higher index first.
    assert.deepEqual(byBalance.slice(-2), [7, 6]);
  });

  it('a cursor is bound to its sort and filter; a bad status or sort is a 400 naming it', async () => {
    const first = await get('/api/v1/pos/validators?sort=-balance&limit=2');
    const cursor = encodeURIComponent(first.next_cursor);
    for (const other of ['sort=balance', 'sort=-balance&status=active', 'sort=index']) {
      const body = await problem(`/api/v1/pos/validators?${other}&limit=2&cursor=${cursor}`, 400);
      assert.equal(body.errors[0].param, 'cursor', other);
    }
    for (const [query, param] of [['status=running', 'status'], ['status=ACTIVE', 'status'], ['sort=-stake', 'sort'], ['limit=101', 'limit'], ['cursor=abc', 'cursor']]) {
      const body = await problem(`/api/v1/pos/validators?${query}`, 400);
      assert.equal(body.errors[0].param, param, query);
    }
  });

  it('a validator by index and by public key (any case): its state, counts and recorded rewards', async () => {
    const w = s.seeded();
    for (const r of w.head) {
      const v = Number(r.index);
      const days = expectedDays(w, v);
      const withdrawals = expectedWithdrawals(w.blocks, v);
      const want = {
        chain: 'pos',
        network: 'testnet',
        ...expectedSummary(r),
        status_group: r.status.split('_')[0],
        updated_at: isoSeconds(SYNCED_AT),
        proposed_blocks: w.proposals.filter((p) => p.proposer === v).length,
        withdrawals_count: withdrawals.length,
        withdrawals_total: withdrawals.reduce((sum, x) => sum + BigInt(x.amount), 0n).toString(),
        days: days.length,
        rewards_total: days.reduce((sum, d) => sum + BigInt(d.rewards), 0n).toString(),
      };
      assert.deepEqual(await get(`/api/v1/pos/validators/${v}`), want, `validator ${v}`);
      assert.deepEqual(await get(`/api/v1/pos/validators/${key(v)}`), want, `validator ${v} by key`);
      assert.deepEqual(await get(`/api/v1/pos/validators/0X${key(v).slice(2).toUpperCase()}`), want, `validator ${v} by key in capitals`);
    }
    // The slashed validator's net over the days is negative: the initial penalty outweighs its rewards.
    assert.ok(BigInt((await get('/api/v1/pos/validators/3')).rewards_total) < 0n);
    assert.ok((await get('/api/v1/pos/validators/0')).proposed_blocks > 100);
  });

  it('a malformed validator is a 400 naming it; a well-formed unknown one a 404', async () => {
    const k = key(0).slice(2);
    for (const id of ['-1', '01', '+1', '1e3', '9'.repeat(17), 'abc', k, `0x${k.slice(2)}`, `0x${k}00`, `0x${'ab'.repeat(47)}`, `0x${'g'.repeat(5184)}`, `0x${'a'.repeat(5185)}`, "1' OR 1=1"]) {
      for (const suffix of ['', '/daily', '/blocks', '/withdrawals']) {
        const body = await problem(`/api/v1/pos/validators/${encodeURIComponent(id)}${suffix}`, 400);
        assert.equal(body.errors[0].param, 'validator', `${id.slice(0, 12)}… ${suffix}`);
      }
    }
    // Longer than any validator: refused by the router, naming it too.
    assert.equal((await problem(`/api/v1/pos/validators/0x${'a'.repeat(5200)}`, 400)).errors[0].param, 'validator');
    for (const id of [String(CONFIG.validators), '9007199254740991', `0x${'ab'.repeat(2592)}`, `0x${'ab'.repeat(48)}`]) {
      for (const suffix of ['', '/daily', '/blocks', '/withdrawals']) {
        const body = await problem(`/api/v1/pos/validators/${id}${suffix}`, 404);
        assert.match(body.detail, /^no pos validator with (index \d+|public key 0xabababab…abababab) is stored$/, id.slice(0, 12));
      }
    }
    await problem('/api/v1/pow/validators', 404);
    await problem('/api/v1/pow/validators/1', 404);
  });

  it('daily: each recorded day\'s status, balances and net rewards, all of them or a window', async () => {
    const w = s.seeded();
    for (let v = 0; v < CONFIG.validators; v++) {
      const body = await get(`/api/v1/pos/validators/${v}/daily`);
      assert.deepEqual(body.items, expectedDays(w, v), `validator ${v}`);
      assert.deepEqual([body.index, body.window_days, body.count], [v, null, 3]);
    }
    assert.deepEqual((await get('/api/v1/pos/validators/3/daily?window=1d')).items, expectedDays(w, 3, 1));
    assert.deepEqual((await get(`/api/v1/pos/validators/${key(3)}/daily?window=2d`)).items, expectedDays(w, 3, 2));
    assert.equal((await get('/api/v1/pos/validators/3/daily?window=2d')).window_days, 2);
    // The slashing's day: a negative net.
    assert.ok((await get('/api/v1/pos/validators/3/daily')).items.some((d: { rewards: string }) => d.rewards.startsWith('-')));
    assert.equal((await problem('/api/v1/pos/validators/3/daily?window=0d', 400)).errors[0].param, 'window');
  });

  it('blocks: every proposal of each validator, newest first, with the stored block of its slot where there is one', async () => {
    const w = s.seeded();
    let joined = 0;
    for (let v = 0; v < CONFIG.validators; v++) {
      const want = expectedProposals(w, v);
      const { items, totals } = await walk(`/api/v1/pos/validators/${v}/blocks`, 40);
      assert.deepEqual(items, want, `validator ${v}`);
      assert.deepEqual(totals, [want.length]);
      joined += want.filter((p) => p.height !== null).length;
    }
    assert.ok(joined > 300, `${joined} proposals with their blocks`);
    // Validator 13 never became active: no proposals.
    assert.deepEqual((await get('/api/v1/pos/validators/13/blocks')).items, []);
  });

  it('withdrawals: every withdrawal paid from each validator, newest first', async () => {
    const w = s.seeded();
    for (let v = 0; v < CONFIG.validators; v++) {
      const want = expectedWithdrawals(w.blocks, v);
      assert.ok(want.length > 0, `validator ${v} has withdrawals`);
      const { items, totals } = await walk(`/api/v1/pos/validators/${v}/withdrawals`, 4);
      assert.deepEqual(items, want, `validator ${v}`);
      assert.deepEqual(totals, [want.length]);
    }
    const first = await get('/api/v1/pos/validators/1/withdrawals?limit=1');
    assert.equal((await problem(`/api/v1/pos/validators/2/withdrawals?cursor=${encodeURIComponent(first.next_cursor)}`, 400)).errors[0].param, 'cursor');
  });

  it('the block page names the proposer the beacon node gives for its slot; null past the epochs the sync read', async () => {
    const w = s.seeded();
    const lastSynced = CONFIG.finalizedEpoch * CONFIG.slotsPerEpoch - 1;
    let named = 0;
    for (const b of w.blocks) {
      const body = await get(`/api/v1/pos/blocks/${b.height}`);
      const want = expectedProposer(w, b);
      assert.equal(body.proposer_index, want, `block ${b.height} (slot ${slotOf(b)})`);
      if (want !== null) {
        named++;
        assert.ok(slotOf(b) <= lastSynced);
        assert.equal(want, w.model.proposer(slotOf(b)));
      } else assert.ok(slotOf(b) === 0 || slotOf(b) > lastSynced, `block ${b.height} in a synced slot has a proposer`);
    }
    assert.ok(named > 300 && named < w.blocks.length, `${named} of ${w.blocks.length}`);
  });

  it('every list answers CSV: a header of the item\'s fields and a record per item', async () => {
    for (const url of ['/api/v1/pos/validators?sort=-balance', '/api/v1/pos/validators/3/daily', '/api/v1/pos/validators/0/blocks?limit=100', '/api/v1/pos/validators/1/withdrawals']) {
      const json = await get(url);
      const csv = await request(url, { accept: 'text/csv' });
      assert.equal(csv.statusCode, 200, url);
      assert.match(String(csv.headers['content-type']), /^text\/csv/);
      const cell = (value: unknown) => (value === null ? '' : String(value));
      const expected = [Object.keys(json.items[0]).join(','), ...json.items.map((item: Record<string, unknown>) => Object.values(item).map(cell).join(','))];
      assert.deepEqual(csv.body.trimEnd().split('\r\n'), expected, url);
    }
  });

  it('answers carry the pos tip and an ETag; a second ask with If-None-Match is a 304', async () => {
    const tip = s.seeded().blocks.at(-1)!;
    for (const url of ['/api/v1/pos/validators', '/api/v1/pos/validators/0', '/api/v1/pos/validators/0/daily', '/api/v1/pos/validators/0/blocks', '/api/v1/pos/validators/0/withdrawals']) {
      const res = await request(url);
      assert.equal(res.headers['quarry-block-height'], String(tip.height), url);
      assert.equal(res.headers['quarry-block-hash'], tip.hash, url);
      assert.ok(res.headers.etag, url);
      assert.equal((await request(url, { 'if-none-match': String(res.headers.etag) })).statusCode, 304, url);
    }
  });
});
