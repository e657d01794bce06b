import assert from 'node:assert/strict';
import { it } from 'node:test';
import { AUTH } from '../../../support/app.ts';
import { loadAnalyticsWorld } from '../../../support/analytics-world.ts';
import { historyOf, migrationLegs } from '../../../support/expected-staking.ts';
import { describeSeededApp } from '../../../support/seeded-app.ts';

const page = (items: unknown[], total: number, limit: number, offset: number, pageNo: number, address: string) => ({
  items, count: items.length, total, limit, offset, page: pageNo, has_next: offset + items.length < total, has_prev: pageNo > 1, next_cursor: null, address,
});

describeSeededApp('GET /analytics/cross-chain/history/{address}', loadAnalyticsWorld, (s) => {
  const get = (address: string, query = '') => s.t().app.inject({ url: `/api/v1/analytics/cross-chain/history/${address}${query}`, headers: AUTH });

  /** A migration whose burn and mint are both indexed. */
  const completePair = () => {
    const legs = migrationLegs(s.seeded());
    const mint = legs.find((l) => l.migration_role === 'mint' && legs.some((b) => b.migration_role === 'burn' && b.account_id === l.account_id));
    assert.ok(mint, 'the world has a claimed migration');
    const burn = legs.find((b) => b.migration_role === 'burn' && b.account_id === mint.account_id)!;
    return { burn, mint };
  };

  it('answers both legs of the burner’s account, newest first, asked with the pow address', async () => {
    const { burn, mint } = completePair();
    const res = await get(burn.from_addr);
    assert.equal(res.statusCode, 200, res.body);
    const expected = historyOf(s.seeded(), burn.from_addr);
    assert.deepEqual(res.json(), page(expected, expected.length, 50, 0, 1, burn.from_addr));
    assert.deepEqual(expected.map((l) => [l.chain, l.migration_role]).slice(0, 2), [['pos', 'mint'], ['pow', 'burn']]);
    assert.equal(expected[0]!.value_quanta, expected[1]!.value_quanta, 'a migration mints what it burned');
    assert.equal(expected[0]!.account_id, mint.account_id);
  });

  it('answers the same account asked with the claimant’s pos address, in any of its forms', async () => {
    const { burn, mint } = completePair();
    const expected = historyOf(s.seeded(), mint.to_addr);
    assert.deepEqual(expected, historyOf(s.seeded(), burn.from_addr));
    for (const form of [mint.to_addr, `0x${mint.to_addr.slice(1).toUpperCase()}`, `Z${mint.to_addr.slice(1)}`]) {
      const res = await get(form);
      assert.equal(res.statusCode, 200, form);
      assert.deepEqual(res.json(), page(expected, expected.length, 50, 0, 1, mint.to_addr), form);
    }
  });

  it('answers an unclaimed burn alone', async () => {
    const legs = migrationLegs(s.seeded());
    const unclaimed = legs.find((b) => b.migration_role === 'burn' && !legs.some((m) => m.migration_role === 'mint' && m.account_id === b.account_id));
    assert.ok(unclaimed, 'the world has an unclaimed burn');
    const body = (await get(unclaimed.from_addr)).json();
    assert.deepEqual(body.items, historyOf(s.seeded(), unclaimed.from_addr));
    assert.ok(body.items.every((l: { migration_role: string }) => l.migration_role === 'burn'));
  });

  it('pages with page and page_size, echoing limit and offset', async () => {
    const { burn } = completePair();
    const expected = historyOf(s.seeded(), burn.from_addr);
    assert.ok(expected.length >= 2);
    const second = (await get(burn.from_addr, '?page=2&page_size=1')).json();
    assert.deepEqual(second, page([expected[1]], expected.length, 1, 1, 2, burn.from_addr));
    const past = (await get(burn.from_addr, `?page=${expected.length + 1}&page_size=1`)).json();
    assert.deepEqual(past, page([], expected.length, 1, expected.length, expected.length + 1, burn.from_addr));
  });

  it('answers an empty list for an address without migrations, the migration address and the zero address', async () => {
    const legs = migrationLegs(s.seeded());
    const migrationAddress = legs.find((l) => l.migration_role === 'burn')!.to_addr;
    const quiet = s.seeded().blocks.pos.at(-1)!.miner!;
    assert.ok(!legs.some((l) => l.to_addr === quiet));
    for (const address of [migrationAddress, 'Q0000000000000000000000000000000000000000', quiet, `Q${'ab'.repeat(20)}`]) {
      const res = await get(address);
      assert.equal(res.statusCode, 200, address);
      assert.deepEqual(res.json(), page([], 0, 50, 0, 1, address), address);
    }
  });

  it('refuses a malformed address or page, naming it', async () => {
    const { burn } = completePair();
    const badChecksum = burn.from_addr.slice(0, -1) + (burn.from_addr.endsWith('0') ? '1' : '0');
    for (const [address, query, param] of [
      ['Qxyz', '', 'address'],
      [`Q${'ab'.repeat(19)}`, '', 'address'],
      [badChecksum, '', 'address'],
      [burn.from_addr, '?page=0', 'page'],
      [burn.from_addr, '?page_size=0', 'page_size'],
      [burn.from_addr, '?page_size=201', 'page_size'],
    ] as const) {
      const res = await get(address, query);
      assert.equal(res.statusCode, 400, `${address}${query}`);
      assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
      assert.ok(res.json().errors.some((e: { param: string }) => e.param === param), res.body);
    }
  });
});

describeSeededApp('GET /analytics/cross-chain/history/{address} on an empty store', async () => null, (s) => {
  it('answers an empty list', async () => {
    const address = `Q${'12'.repeat(20)}`;
    const res = await s.t().app.inject({ url: `/api/v1/analytics/cross-chain/history/${address}`, headers: AUTH });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), page([], 0, 50, 0, 1, address));
  });
});
