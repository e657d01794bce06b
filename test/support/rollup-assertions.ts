/** Assertions that a store's derived rollup tables equal what the oracle computes from the blocks. */
import assert from 'node:assert/strict';
import sql from 'sql-template-tag';
import type { ChainId } from '../../src/chain/chains.ts';
import type { Store } from '../../src/store/store.ts';
import { expectedFeeWindows, expectedGrams, expectedRankBuckets, rankRowsByKey, type Expected } from './expected.ts';

/** address_rank_buckets, address_grams and (pos) address_fee_windows equal what the oracle's addresses give. */
export async function assertRanksMatch(store: Store, chain: ChainId, expected: Expected, tipTs: number | null, label = ''): Promise<void> {
  const buckets = await store.query<any>('test.rank_buckets', sql`SELECT metric, bucket, addresses, balance FROM address_rank_buckets WHERE chain = ${chain}`);
  const grams = await store.query<any>('test.grams', sql`SELECT population, gram, addresses FROM address_grams WHERE chain = ${chain}`);
  const actual = rankRowsByKey(buckets, grams);
  assert.deepEqual(actual.buckets, expectedRankBuckets(expected), `${label}rank buckets`);
  assert.deepEqual(actual.grams, expectedGrams(expected), `${label}address grams`);
  const windows = await store.query<any>('test.fee_windows', sql`SELECT days, address, fees, gas_used, tx_count FROM address_fee_windows WHERE chain = ${chain}`);
  const want = chain === 'pos' && tipTs !== null ? expectedFeeWindows(expected, tipTs, [1, 2, 7, 30, 90, 365]) : new Map();
  assert.deepEqual(new Map(windows.map((w) => [`${w.days}|${w.address}`, `${w.fees}|${w.gas_used}|${w.tx_count}`])), want, `${label}fee windows`);
}
