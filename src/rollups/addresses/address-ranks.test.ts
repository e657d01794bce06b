import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import sql from 'sql-template-tag';
import { describeEachStore } from '../../../test/support/stores.ts';
import { addressRanks, ageBucket, GRAM_MAX, isGramText, NO_AGE_BUCKET, rankBucket, rankBucketRange } from './address-ranks.ts';

const VALUES = [
  -5n, 0n, 1n, 9n, 10n, 42n, 99n, 100n, 101n, 109n, 110n, 999n, 1000n, 12_345n, 99_999n, 100_000n,
  10n ** 18n, 10n ** 18n - 1n, 123n * 10n ** 20n + 7n, 10n ** 77n, 10n ** 78n - 1n,
];

describeEachStore('rank buckets: SQL and TypeScript agree', (getStore) => {
  it('quarry_rank_bucket equals rankBucket', async () => {
    for (const v of VALUES) {
      const [row] = await getStore().query<{ b: number }>('test.bucket', sql`SELECT quarry_rank_bucket(${v.toString()}::numeric) AS b`);
      assert.equal(Number(row!.b), rankBucket(v), v.toString());
    }
  });
  it('quarry_age_bucket equals ageBucket', async () => {
    for (const appeared of [null, 0, 3599, 3600, 1_767_225_600, 1_767_229_199]) {
      const [row] = await getStore().query<{ b: number }>('test.age', sql`SELECT quarry_age_bucket(${appeared}::bigint) AS b`);
      assert.equal(Number(row!.b), ageBucket(appeared));
    }
    assert.equal(ageBucket(null), NO_AGE_BUCKET);
  });
});

describe('rank bucket ranges', () => {
  it('hold exactly the values of their bucket, in order', () => {
    let previous = -Infinity;
    for (const v of [...VALUES].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
      const bucket = rankBucket(v);
      assert.ok(bucket >= previous, `buckets order like values (${v})`);
      previous = bucket;
      const range = rankBucketRange(bucket);
      assert.ok((range.lo === null || v >= range.lo) && v < range.hi, `${v} in its range`);
      if (range.exact) assert.equal(range.lo, v);
      if (range.lo !== null && range.lo > 0n) assert.equal(rankBucket(range.lo), bucket);
      if (range.hi > 0n) assert.notEqual(rankBucket(range.hi), bucket);
      assert.equal(rankBucket(range.hi - 1n), bucket);
    }
  });
  it('gram text is what canonical addresses are made of', () => {
    assert.ok(isGramText('q0af9'));
    assert.ok(!isGramText('0x12'));
    assert.ok(!isGramText('Q'));
    assert.ok(!isGramText('é'));
  });
});

describeEachStore('address grams counted at once', (getStore) => {
  it('hold, per population, how many addresses contain each string of one to four characters', async () => {
    const store = getStore();
    // Enough addresses for tens of thousands of grams: the first count of an empty table goes in whole.
    const addresses = Array.from({ length: 400 }, (_, i) => `Q${createHash('sha256').update(String(i)).digest('hex').slice(0, 40)}`);
    const balances = addresses.map((_, i) => (i % 3 === 0 ? '0' : String(i)));
    await store.query('test.grams.clear', sql`DELETE FROM address_summary WHERE chain = 'pos'`);
    await store.query('test.grams.clear', sql`DELETE FROM address_grams WHERE chain = 'pos'`);
    await store.query(
      'test.grams.summary',
      sql`INSERT INTO address_summary (chain, address, balance) SELECT 'pos', a, b::numeric FROM unnest(${addresses}::text[], ${balances}::text[]) AS u(a, b)`,
    );
    await addressRanks.afterRefresh!(store, 'pos', false);

    const expected = new Map<string, number>();
    addresses.forEach((address, i) => {
      const grams = new Set<string>();
      const text = address.toLowerCase();
      for (let n = 1; n <= GRAM_MAX; n++) for (let at = 0; at + n <= text.length; at++) grams.add(text.slice(at, at + n));
      for (const gram of grams) {
        for (const population of balances[i] === '0' ? ['all'] : ['all', 'holders']) {
          expected.set(`${population} ${gram}`, (expected.get(`${population} ${gram}`) ?? 0) + 1);
        }
      }
    });
    assert.ok(expected.size > 10_000, `${expected.size} grams`);
    const rows = await store.query<{ population: string; gram: string; addresses: number }>(
      'test.grams.read',
      sql`SELECT population, gram, addresses FROM address_grams WHERE chain = 'pos'`,
    );
    assert.deepEqual(new Map(rows.map((r) => [`${r.population} ${r.gram}`, Number(r.addresses)])), expected);
  });
});
