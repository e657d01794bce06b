/** Bounds, defaults and malformed input of the per-address list endpoints: 400s naming the parameter. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Store } from '../../../src/store/store.ts';
import { AUTH } from '../../support/app.ts';
import { bech32Encode } from '../../support/bech32.ts';
import { addr } from '../../support/chain-builder.ts';
import { describeSeededApp } from '../../support/seeded-app.ts';
import { ingestChain, posChain, powChain } from './fixtures.ts';

const POW_ADDRESS = addr('pow', 'user');
const POS_ADDRESS = addr('pos', 'bob');

async function loadChains(store: Store): Promise<void> {
  await ingestChain(store, powChain(6));
  await ingestChain(store, posChain(6));
}

describeSeededApp('per-address endpoints: parameters', loadChains, (s) => {
  const inject = (url: string) => s.t().app.inject({ url, headers: AUTH });

  async function rejects(url: string, param: string, message?: RegExp) {
    const res = await inject(url);
    assert.equal(res.statusCode, 400, `${url} → ${res.statusCode} ${res.body}`);
    assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
    const body = res.json();
    assert.equal(body.errors[0].param, param, url);
    if (message) assert.match(body.errors[0].message, message, url);
  }

  const bad: [string, string, string, RegExp?][] = [
    ['transactions', 'limit=0', 'limit', /at least 1/],
    ['transactions', 'limit=101', 'limit', /at most 100/],
    ['transactions', 'limit=ten', 'limit', /whole number/],
    ['transactions', 'offset=-1', 'offset', /at least 0/],
    ['transactions', 'offset=1.5', 'offset', /whole number/],
    ['transactions', 'direction=sideways', 'direction', /one of: both, in, out/],
    ['transactions', 'direction=sent', 'direction'],
    ['transactions', 'tx_type=swap', 'tx_type', /one of: /],
    ['transactions', 'time_from=-5', 'time_from', /at least 0/],
    ['transactions', 'time_from=yesterday', 'time_from', /whole number/],
    ['transactions', 'time_to=1.5', 'time_to', /whole number/],
    ['transactions', 'time_to=99999999999999', 'time_to', /at most/],
    ['transactions', 'cursor=abc', 'cursor'],
    ['counterparties', 'limit=0', 'limit', /at least 1/],
    ['counterparties', 'limit=201', 'limit', /at most 200/],
    ['counterparties', 'direction=in', 'direction', /one of: sent, received, both/],
    ['balance-history', 'window=0d', 'window'],
    ['balance-history', 'window=7', 'window'],
    ['balance-history', 'window=3651d', 'window', /10 years/],
    ['balance-history', 'window=ALL', 'window'],
    ['slaves', 'limit=0', 'limit', /at least 1/],
    ['slaves', 'limit=201', 'limit', /at most 200/],
    ['slaves', 'offset=-1', 'offset', /at least 0/],
    ['token-holdings', 'limit=0', 'limit', /at least 1/],
    ['token-holdings', 'limit=501', 'limit', /at most 500/],
    ['internal-transactions', 'page=0', 'page', /at least 1/],
    ['internal-transactions', 'page=x', 'page', /whole number/],
    ['internal-transactions', 'page_size=0', 'page_size', /at least 1/],
    ['internal-transactions', 'page_size=101', 'page_size', /at most 100/],
    // Forms Number() would take: Infinity would slip past every bound.
    ['transactions', 'limit=Infinity', 'limit', /decimal digits/],
    ['transactions', 'limit=-Infinity', 'limit', /decimal digits/],
    ['transactions', 'limit=1e1', 'limit', /decimal digits/],
    ['transactions', 'limit=0x10', 'limit', /decimal digits/],
    ['transactions', 'limit=%2B1', 'limit', /decimal digits/],
    ['transactions', 'limit=%201', 'limit', /decimal digits/],
    ['transactions', 'limit=1%0A', 'limit', /decimal digits/],
    ['transactions', 'limit=', 'limit'],
    ['transactions', 'offset=1e3', 'offset', /decimal digits/],
    ['transactions', 'time_to=1e400', 'time_to', /decimal digits/],
    ['transactions', `time_from=${'9'.repeat(400)}`, 'time_from', /at most/],
    ['slaves', 'offset=Infinity', 'offset', /decimal digits/],
    ['token-holdings', 'limit=Infinity', 'limit', /decimal digits/],
    ['internal-transactions', 'page=Infinity', 'page', /decimal digits/],
    ['internal-transactions', 'page_size=1.0', 'page_size', /decimal digits/],
  ];
  for (const [path, query, param, message] of bad) {
    for (const [chain, address] of [['pow', POW_ADDRESS], ['pos', POS_ADDRESS]] as const) {
      it(`${chain} ${path}?${query}: 400 naming ${param}`, () => rejects(`/api/v1/${chain}/addresses/${address}/${path}?${query}`, param, message));
    }
  }

  const good: [string, string][] = [
    ['transactions', 'limit=1&offset=0&direction=out&time_from=0&time_to=253402300799'],
    ['transactions', 'limit=100'],
    ['counterparties', 'limit=200&direction=received'],
    ['counterparties', 'limit=1&direction=sent'],
    ['balance-history', 'window=3650d'],
    ['balance-history', 'window=all'],
    ['balance-history', 'window=24h'],
    ['slaves', 'limit=200&offset=1000000'],
    ['token-holdings', 'limit=500'],
    ['internal-transactions', 'page=1000000&page_size=100'],
    // Offsets past 2^31 (compared with a 32-bit count) and the largest page.
    ['internal-transactions', 'page=21474838&page_size=100'],
    ['internal-transactions', 'page=9007199254740991&page_size=100'],
    ['transactions', 'limit=007'],
    ['transactions', 'unknown_parameter=ignored'],
  ];
  for (const [path, query] of good) {
    for (const [chain, address] of [['pow', POW_ADDRESS], ['pos', POS_ADDRESS]] as const) {
      it(`${chain} ${path}?${query}: 200`, async () => {
        const res = await inject(`/api/v1/${chain}/addresses/${address}/${path}?${query}`);
        assert.equal(res.statusCode, 200, res.body);
        assert.match(String(res.headers['cache-control']), /^private, max-age=\d+$/);
      });
    }
  }

  const paths = ['transactions', 'internal-transactions', 'counterparties', 'balance-history', 'activity-heatmap', 'provenance', 'slaves', 'token-holdings'];
  for (const path of paths) {
    for (const [chain, address] of [
      ['pow', 'Qnothex'],
      ['pow', POW_ADDRESS.slice(0, -1) + (POW_ADDRESS.endsWith('0') ? '1' : '0')], // checksum off
      ['pow', POS_ADDRESS], // a pos address on pow
      ['pos', POW_ADDRESS],
      ['pos', '0x' + 'g'.repeat(40)],
      ['pos', 'Q' + 'ab'.repeat(21)],
    ] as const) {
      it(`${chain} ${path}: a malformed address ${address.slice(0, 10)}… is a 400 naming address`, () =>
        rejects(`/api/v1/${chain}/addresses/${address}/${path}`, 'address'));
    }
    it(`${path}: an unknown chain is a 404`, async () => {
      const res = await inject(`/api/v1/btc/addresses/${POS_ADDRESS}/${path}`);
      assert.equal(res.statusCode, 404);
    });
    it(`${path}: needs a key`, async () => {
      const res = await s.t().app.inject({ url: `/api/v1/pos/addresses/${POS_ADDRESS}/${path}` });
      assert.equal(res.statusCode, 401);
    });
  }

  // QRL's bech32 form: prefix q over the 35 bytes of descriptor and hash (docs/api-conventions.md).
  const POW_BECH32 = bech32Encode('q', Buffer.from(POW_ADDRESS.slice(1, 71), 'hex'));
  for (const path of ['', '/transactions', '/balance-history?window=all']) {
    it(`pow ${path || 'detail'}: the bech32 form answers as the hex form does`, async () => {
      const [hex, b32] = await Promise.all([inject(`/api/v1/pow/addresses/${POW_ADDRESS}${path}`), inject(`/api/v1/pow/addresses/${POW_BECH32}${path}`)]);
      assert.equal(b32.statusCode, 200, b32.body);
      assert.deepEqual(b32.json(), hex.json());
      assert.equal(hex.statusCode, 200, hex.body);
      if (!path) assert.equal(b32.json().address, POW_ADDRESS, 'the canonical hex form is echoed');
    });
  }
  it('pow: a bech32 address with a changed character is a 400 naming address', () => {
    const at = 30;
    const corrupted = POW_BECH32.slice(0, at) + (POW_BECH32[at] === 'q' ? 'p' : 'q') + POW_BECH32.slice(at + 1);
    return rejects(`/api/v1/pow/addresses/${corrupted}`, 'address', /bech32: checksum does not match/);
  });
  it('pow: a bech32 address in mixed case is a 400 naming address', () =>
    rejects(`/api/v1/pow/addresses/${POW_BECH32.slice(0, 12)}${POW_BECH32.slice(12).toUpperCase()}`, 'address', /mixes upper and lower case/));

  it('every endpoint is in the OpenAPI document with its parameters, bounds and defaults', async () => {
    const doc = (await s.t().app.inject({ url: '/api/v1/openapi.json' })).json();
    const parameters = (path: string) => {
      const op = doc.paths[`/api/v1/{chain}/addresses/{address}/${path}`]?.get;
      assert.ok(op, path);
      assert.deepEqual(op.tags, ['addresses']);
      assert.ok(op.operationId && op.summary);
      return Object.fromEntries((op.parameters as any[]).filter((p) => p.in === 'query').map((p) => [p.name, p.schema]));
    };
    const tx = parameters('transactions');
    assert.deepEqual([tx.limit.minimum, tx.limit.maximum, tx.limit.default], [1, 100, 25]);
    assert.deepEqual([tx.offset.minimum, tx.offset.default], [0, 0]);
    assert.equal(tx.direction.default, 'both');
    assert.ok(tx.cursor && tx.tx_type && tx.time_from && tx.time_to);
    const cp = parameters('counterparties');
    assert.deepEqual([cp.limit.minimum, cp.limit.maximum, cp.limit.default, cp.direction.default], [1, 200, 20, 'both']);
    assert.deepEqual(cp.direction.enum, ['sent', 'received', 'both']);
    const slaves = parameters('slaves');
    assert.deepEqual([slaves.limit.minimum, slaves.limit.maximum, slaves.limit.default, slaves.offset.minimum, slaves.offset.default], [1, 200, 25, 0, 0]);
    const holdings = parameters('token-holdings');
    assert.deepEqual([holdings.limit.minimum, holdings.limit.maximum, holdings.limit.default], [1, 500, 100]);
    const internal = parameters('internal-transactions');
    assert.deepEqual([internal.page.minimum, internal.page.default, internal.page_size.minimum, internal.page_size.maximum, internal.page_size.default], [1, 1, 1, 100, 25]);
    assert.ok(parameters('balance-history').window);
    assert.deepEqual(parameters('activity-heatmap'), {});
    assert.deepEqual(parameters('provenance'), {});
  });
});
