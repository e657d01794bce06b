import assert from 'node:assert/strict';
import { it } from 'node:test';
import { POS_ZERO_ADDRESS, POW_COINBASE_SENTINEL, type ChainId } from '../../../src/chain/chains.ts';
import { tuningWith, type ApiTuning } from '../../../src/api/context.ts';
import { AUTH } from '../../support/app.ts';
import type { Expected, ExpectedAddress } from '../../support/expected.ts';
import { totalSupplyOf } from '../../support/expected-windows.ts';
import { describeSeededApp, emptyStore } from '../../support/seeded-app.ts';
import { CURATED, loadProfileExpected, POSA, POWA } from './profile-fixtures.ts';
import { utcDay } from '../../support/utc-day.ts';

const UNITS: Record<ChainId, bigint> = { pow: 10n ** 9n, pos: 10n ** 18n };
const SENTINEL: Record<ChainId, string> = { pow: POW_COINBASE_SENTINEL, pos: POS_ZERO_ADDRESS };
const FIELDS = ['tx_count', 'balance', 'total_received', 'total_sent', 'total_fees_paid', 'first_seen', 'first_seen_asc', 'last_seen_asc'] as const;
type Field = (typeof FIELDS)[number];

interface Options {
  page?: number;
  page_size?: number;
  q?: string;
  with_labels?: boolean;
  with_delta_30d?: boolean;
  positive_only?: boolean;
  exclude_sentinel?: boolean;
  exclude?: string[];
  min_balance_pct?: string;
  whale_only?: boolean;
  sort?: string;
}

const ts = (t: number | null) => (t === null ? null : new Date(t * 1000).toISOString().slice(0, 19));

/** The leaderboard computed from the oracle's addresses, by the spec's words and docs/metrics.md. */
function expectedTop(chain: ChainId, e: Expected, tipTs: number, o: Options) {
  let rows = [...e.addresses.entries()];
  // min_balance_pct is a percent of the total supply: positive balances, sentinels excluded.
  const supply = totalSupplyOf(chain, e);
  if (o.q) {
    let q = o.q.toLowerCase();
    if (chain === 'pos' && q.startsWith('0x')) q = 'q' + q.slice(2);
    if (chain === 'pos' && q.startsWith('z')) q = 'q' + q.slice(1);
    rows = rows.filter(([address]) => address.toLowerCase().includes(q));
  }
  if (o.positive_only) rows = rows.filter(([, a]) => a.balance > 0n);
  if (o.exclude_sentinel) rows = rows.filter(([address]) => address !== SENTINEL[chain]);
  if (o.exclude) rows = rows.filter(([address]) => !o.exclude!.some((x) => x.toLowerCase().replace(/^(0x|z)/, 'q') === address.toLowerCase()));
  if (o.whale_only) {
    rows = rows.filter(([, a]) => a.balance >= 100_000n * UNITS[chain]);
  } else if (o.min_balance_pct !== undefined) {
    const [whole, fraction = ''] = o.min_balance_pct.split('.');
    const num = BigInt(whole! + fraction);
    const den = 10n ** BigInt(fraction.length);
    rows = rows.filter(([, a]) => a.balance * 100n * den >= num * supply);
  }
  const field = (o.sort ?? '-tx_count').replace(/^-/, '') as Field;
  const key = (a: ExpectedAddress): bigint | number | null => {
    switch (field) {
      case 'tx_count': return a.txCount;
      case 'balance': return a.balance;
      case 'total_received': return a.totalReceived;
      case 'total_sent': return a.totalSent;
      case 'total_fees_paid': return a.totalFees;
      case 'first_seen': case 'first_seen_asc': return a.firstSeen;
      case 'last_seen_asc': return a.lastSeen;
    }
  };
  const ascending = field === 'first_seen_asc' || field === 'last_seen_asc';
  rows.sort(([x, a], [y, b]) => {
    const [ka, kb] = [key(a), key(b)];
    if (ka !== kb) {
      if (ka === null) return 1;
      if (kb === null) return -1;
      return (ka < kb ? -1 : 1) * (ascending ? 1 : -1);
    }
    return x < y ? -1 : 1;
  });
  const size = o.page_size ?? 25;
  const start = ((o.page ?? 1) - 1) * size;
  const labels = new Map(CURATED.labels.filter((l) => l.isPrimary && l.chain === chain).map((l) => [l.address, l]));
  const from = utcDay(tipTs - 29 * 86_400);
  return {
    total: rows.length,
    sort_by: field,
    addresses: rows.slice(start, start + size).map(([address, a]) => {
      let received = 0n;
      let sent = 0n;
      for (const [day, d] of e.daily.get(address) ?? []) {
        if (day < from) continue;
        received += d.received;
        sent += d.sentWithFees - d.fees;
      }
      return {
        address, chain, network: chain === 'pow' ? 'mainnet' : 'testnet', balance: a.balance.toString(), total_received: a.totalReceived.toString(),
        total_sent: a.totalSent.toString(), total_fees_paid: a.totalFees.toString(), tx_count: a.txCount, tx_received_count: a.txIn,
        tx_sent_count: a.txOut, first_seen: ts(a.firstSeen), last_seen: ts(a.lastSeen),
        label: o.with_labels ? (labels.get(address)?.label ?? null) : null,
        label_category: o.with_labels ? (labels.get(address)?.category ?? null) : null,
        received_30d: o.with_delta_30d ? received.toString() : null,
        sent_30d: o.with_delta_30d ? sent.toString() : null,
      };
    }),
  };
}

function queryString(o: Options): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(o)) {
    if (v === undefined) continue;
    params.set(k, Array.isArray(v) ? v.join(',') : String(v));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** The planner's thresholds, set so that each plan is taken wherever it can be on the small fixture chains. */
const PLANS: Record<string, Partial<ApiTuning['topActive']>> = {
  'planned for size': {},
  'index order and bucket seeks': { smallSet: 0, seekFrom: 0, orderScan: Infinity },
  'candidates through the trigram and balance indexes': { smallSet: Infinity, seekFrom: Infinity, orderScan: 0 },
};

for (const [plan, tuning] of Object.entries(PLANS)) {
  describeSeededApp(`GET /addresses/top/active (${plan})`, loadProfileExpected, (s) => {
    async function check(chain: ChainId, o: Options) {
      const res = await s.t().app.inject({ url: `/api/v1/${chain}/addresses/top/active${queryString(o)}`, headers: AUTH });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      const want = expectedTop(chain, s.seeded().expected[chain], s.seeded().tipTs[chain], o);
      const label = `${chain} ${JSON.stringify(o)}`;
      assert.equal(body.total, want.total, `${label}: total`);
      assert.deepEqual(body.addresses, want.addresses, `${label}: rows`);
      assert.deepEqual(
        [body.sort_by, body.page, body.page_size, body.q, body.chain, body.network],
        [want.sort_by, o.page ?? 1, o.page_size ?? 25, o.q ?? null, chain, chain === 'pow' ? 'mainnet' : 'testnet'],
        `${label}: echo`,
      );
      return body;
    }

    it('sorts by every field, the sign making no difference, over every page', async () => {
      for (const chain of ['pow', 'pos'] as const) {
        for (const field of FIELDS) {
          for (const sort of [field, `-${field}`]) {
            for (const page of [1, 2, 3]) await check(chain, { sort, page, page_size: 17 });
          }
        }
        await check(chain, {});
        await check(chain, { page_size: 100 });
        await check(chain, { page: 400 }); // past the end (page × page_size at the bound)
      }
    });

    it('filters by substring: short (counted), long (trigram), with prefixes, cases and characters no address has', async () => {
      for (const chain of ['pow', 'pos'] as const) {
        const sample = chain === 'pow' ? POWA.busy1 : POSA.payer1;
        const qs = [sample.slice(5, 6), sample.slice(5, 7), sample.slice(5, 8), sample.slice(5, 9), sample.slice(5, 10), sample.slice(5, 13), sample.slice(0, 3),
          sample.slice(0, 6).toUpperCase(), sample, '0105', '01050',
          'q', 'Q0', '0', 'zz', 'x', 'qq', '%', '_', 'a'.repeat(90)];
        if (chain === 'pos') qs.push(`0x${sample.slice(1, 5)}`, `Z${sample.slice(1, 4)}`, `0X${sample.slice(1, 9).toUpperCase()}`);
        for (const q of qs) {
          await check(chain, { q });
          await check(chain, { q, positive_only: true, sort: '-balance' });
          await check(chain, { q, whale_only: true });
          await check(chain, { q, min_balance_pct: '0.001', sort: 'first_seen' });
          await check(chain, { q, exclude: [sample], exclude_sentinel: true, page_size: 5, page: 2 });
        }
      }
    });

    it('filters by balance: positive_only, whale_only, min_balance_pct (ignored with whale_only)', async () => {
      for (const chain of ['pow', 'pos'] as const) {
        for (const sort of ['-tx_count', '-balance', 'last_seen_asc']) {
          await check(chain, { positive_only: true, sort });
          await check(chain, { whale_only: true, sort });
          for (const pct of ['0', '0.0001', '0.1', '1', '2.5', '50', '100']) {
            await check(chain, { min_balance_pct: pct, sort });
            await check(chain, { min_balance_pct: pct, positive_only: true, sort, page_size: 3, page: 2 });
          }
          await check(chain, { whale_only: true, min_balance_pct: '50', sort });
        }
      }
    });

    it('excludes sentinels and listed addresses (any accepted form)', async () => {
      await check('pow', { exclude_sentinel: true });
      await check('pos', { exclude_sentinel: true, sort: 'tx_count' });
      await check('pow', { exclude: [POWA.busy1, POWA.pool, POW_COINBASE_SENTINEL] });
      await check('pow', { exclude: [POWA.busy1, POWA.busy1], exclude_sentinel: true, positive_only: true, sort: 'balance', page: 2, page_size: 10 });
      await check('pos', { exclude: [`0x${POSA.payer1.slice(1).toUpperCase()}`, `Z${POSA.alice.slice(1)}`], sort: 'balance' });
      await check('pos', { exclude: [POSA.alice], whale_only: true });
    });

    it('fills labels and 30-day flows only when asked', async () => {
      for (const chain of ['pow', 'pos'] as const) {
        await check(chain, { with_labels: true, sort: '-balance' });
        await check(chain, { with_delta_30d: true, sort: '-total_received' });
        await check(chain, { with_labels: true, with_delta_30d: true, positive_only: true, exclude_sentinel: true, sort: '-balance', page: 2, page_size: 10 });
      }
    });
  }, { tuning: tuningWith({ topActive: tuning }) });
}

/** Nothing is seeded: the last test wants an empty store. */
describeSeededApp('GET /addresses/top/active parameters', emptyStore, (s) => {
  for (const [query, param] of [
    ['page=0', 'page'], ['page=-1', 'page'], ['page=1.5', 'page'], ['page=x', 'page'],
    ['page_size=0', 'page_size'], ['page_size=101', 'page_size'], ['page_size=abc', 'page_size'],
    ['sort=bogus', 'sort'], ['sort=--tx_count', 'sort'], ['sort=+balance', 'sort'], ['sort=first_seen_desc', 'sort'],
    ['min_balance_pct=-1', 'min_balance_pct'], ['min_balance_pct=100.5', 'min_balance_pct'], ['min_balance_pct=abc', 'min_balance_pct'],
    ['min_balance_pct=Infinity', 'min_balance_pct'], ['min_balance_pct=0x10', 'min_balance_pct'], ['min_balance_pct=1e1', 'min_balance_pct'],
    ['min_balance_pct=.5', 'min_balance_pct'], ['page=Infinity', 'page'], ['page_size=1e1', 'page_size'],
    ['exclude=nope', 'exclude'], [`exclude=${POWA.user},Qbad`, 'exclude'],
    ['with_labels=yes', 'with_labels'], ['with_delta_30d=2', 'with_delta_30d'], ['positive_only=on', 'positive_only'],
    ['exclude_sentinel=y', 'exclude_sentinel'], ['whale_only=TRUE', 'whale_only'],
  ] as const) {
    it(`400 naming ${param} for ${query.slice(0, 40)}`, async () => {
      const res = await s.t().app.inject({ url: `/api/v1/pow/addresses/top/active?${query}`, headers: AUTH });
      assert.equal(res.statusCode, 400, res.body);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      assert.equal(res.json().errors[0].param, param);
    });
  }

  it('an empty store answers an empty board', async () => {
    const res = await s.t().app.inject({ url: '/api/v1/pos/addresses/top/active?q=ab&positive_only=1', headers: AUTH });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { addresses: [], total: 0, sort_by: 'tx_count', page: 1, page_size: 25, q: 'ab', chain: 'pos', network: 'testnet' });
  });
});
