import assert from 'node:assert/strict';
import { it } from 'node:test';
import fc from 'fast-check';
import { addLimbs, limbsToBigInt, parseLimbs, SortedBalances, scanBalances } from './balances.ts';

const cmp = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);

it('parses, adds and converts signed integers exactly', () => {
  // Small values too: up to 15 digits they are parsed as one double.
  const value = fc.oneof(fc.bigInt({ min: -(10n ** 16n), max: 10n ** 16n }), fc.bigInt({ min: -(10n ** 27n), max: 10n ** 27n }));
  fc.assert(
    fc.property(value, value, (a, b) => {
      assert.equal(limbsToBigInt(parseLimbs(a.toString())), a);
      assert.equal(limbsToBigInt(addLimbs(parseLimbs(a.toString()), parseLimbs(b.toString()))), a + b);
    }),
  );
});

it('scans sorted balances: supply, pair differences, squares, prefix sums and the Nakamoto count by their definitions', () => {
  fc.assert(
    fc.property(fc.array(fc.oneof(fc.bigInt({ min: 1n, max: 1000n }), fc.bigInt({ min: 1n, max: 10n ** 26n }), fc.bigInt({ min: 2n ** 95n, max: 2n ** 96n - 1n })), { maxLength: 300 }), (values) => {
      const xs = [...values].sort(cmp);
      const n = xs.length;
      const s = SortedBalances.of(xs.map((x) => parseLimbs(x.toString())));
      const scan = scanBalances(s, [0, Math.floor(n / 2), n]);
      const supply = xs.reduce((a, b) => a + b, 0n);
      let pair = 0n;
      for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) pair += xs[j]! - xs[i]!;
      assert.equal(scan.supply, supply);
      assert.equal(scan.pairDiff, pair);
      assert.equal(scan.sumSq, xs.reduce((a, b) => a + b * b, 0n));
      assert.equal(scan.prefix.get(Math.floor(n / 2)), xs.slice(0, Math.floor(n / 2)).reduce((a, b) => a + b, 0n));
      let k = 0;
      let top = 0n;
      while (n > 0 && 2n * top <= supply) top += xs[n - 1 - k++]!;
      assert.equal(scan.nakamoto, k);
    }),
  );
});

it('sums squares exactly at the largest balance the limbs hold (every limb at its maximum)', () => {
  const max = 2n ** 96n - 1n;
  const s = SortedBalances.of(Array.from({ length: 64 }, () => parseLimbs(max.toString())));
  assert.equal(scanBalances(s, []).sumSq, 64n * max * max);
});

it('updates a sorted population by removing and adding balances', () => {
  const l = (x: number) => parseLimbs(String(x));
  const s = SortedBalances.of([1, 3, 3, 7].map(l)).update([l(3), l(7)], [l(2), l(9)]);
  assert.deepEqual(Array.from({ length: s.n }, (_, i) => limbsToBigInt(s.at(i))), [1n, 2n, 3n, 9n]);
});

it('holds every balance up to the limbs\' range exactly, and head(n) is the first n of them', () => {
  const balance = fc.oneof(fc.bigInt({ min: 1n, max: 2n ** 24n }), fc.bigInt({ min: 1n, max: 10n ** 26n }), fc.bigInt({ min: 2n ** 95n, max: 2n ** 96n - 1n }));
  fc.assert(
    fc.property(fc.array(balance, { minLength: 1, maxLength: 50 }), fc.nat(), (values, cut) => {
      const xs = [...values].sort(cmp);
      const s = SortedBalances.of(xs.map((x) => parseLimbs(x.toString())));
      assert.deepEqual(xs.map((_, i) => limbsToBigInt(s.at(i))), xs);
      const n = cut % (xs.length + 1);
      const head = s.head(n);
      assert.equal(head.n, n);
      assert.deepEqual(Array.from({ length: n }, (_, i) => limbsToBigInt(head.at(i))), xs.slice(0, n));
    }),
  );
});
