/**
 * GET /search on the generated world: every kind of hit against the oracle computed from the
 * generator's blocks and labels (oracle.ts), in every form an identifier is accepted in; the caps
 * and the order; every hit resolved by its path; bad input and queries that name nothing.
 */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { CHAINS, type ChainId } from '../../../src/chain/chains.ts';
import { labelRecords } from '../../../src/ingest/load-synthetic.ts';
import { AUTH } from '../../support/app.ts';
import { loadAnalyticsWorld } from '../../support/analytics-world.ts';
import { bech32Encode } from '../../support/bech32.ts';
import { describeSeededApp } from '../../support/seeded-app.ts';
import { expectedSearch, PER_KIND, searchFacts, type Hit, type SearchFacts, type SearchWorld } from './oracle.ts';

describeSeededApp('GET /search', loadAnalyticsWorld, (s) => {
  let w: SearchWorld;
  let facts: SearchFacts;
  before(() => {
    const { world, blocks } = s.seeded();
    w = { blocks, labels: labelRecords(world.curated).map(({ chain, address, label, category, primary }) => ({ chain, address, label, category, primary })), bech32: new Map() };
    facts = searchFacts(w);
  });
  const request = (q: string) => s.t().app.inject({ url: `/api/v1/search?q=${encodeURIComponent(q)}`, headers: AUTH });
  const search = async (q: string): Promise<{ items: Hit[]; count: number; q: string }> => {
    const res = await request(q);
    assert.equal(res.statusCode, 200, `${q}: ${res.body}`);
    return res.json();
  };
  /** The answer to `q` against the oracle, whole; returns its hits. */
  const check = async (q: string): Promise<Hit[]> => {
    const body = await search(q);
    const want = expectedSearch(w, facts, q);
    assert.deepEqual(body.items, want.items, `q=${JSON.stringify(q)}`);
    assert.equal(body.count, want.items.length);
    assert.equal(body.q, want.q);
    return body.items;
  };
  const tip = (chain: ChainId) => w.blocks[chain].at(-1)!;
  /** The pow address's bech32 form (descriptor and hash, its checksum left out), registered with the oracle. */
  const bech32Of = (address: string) => {
    const form = bech32Encode('q', Buffer.from(address.slice(1, 71), 'hex'));
    w.bech32!.set(form, address);
    w.bech32!.set(form.toUpperCase(), address);
    return form;
  };

  it('a block hash, in each form, on its chain: the block first, by hash', async () => {
    for (const chain of CHAINS) {
      for (const b of [w.blocks[chain][0]!, w.blocks[chain][Math.floor(w.blocks[chain].length / 2)]!, tip(chain)]) {
        const bare = b.hash.replace(/^0x/, '');
        for (const q of [b.hash, bare, bare.toUpperCase(), `0x${bare.toUpperCase()}`, `  ${b.hash}\n`]) {
          const items = await check(q);
          assert.deepEqual(items[0], {
            kind: 'block', chain, id: b.hash, label: null, path: `/api/v1/${chain}/blocks/${b.hash}`, match: 'hash', exact: true,
            height: b.height, timestamp: new Date(b.timestamp * 1000).toISOString().slice(0, 19), tx_count: b.transactions.length, symbol: null, category: null,
          });
        }
      }
    }
  });

  it('a transaction hash, in each form: the transaction, and for a pow token creation the token too', async () => {
    for (const chain of CHAINS) {
      const txs = w.blocks[chain].flatMap((b) => b.transactions);
      for (const tx of [txs[0]!, txs[Math.floor(txs.length / 2)]!, txs.at(-1)!]) {
        const bare = tx.hash.replace(/^0x/, '');
        for (const q of [tx.hash, bare.toUpperCase(), `0x${bare}`]) {
          const items = await check(q);
          assert.equal(items[0]!.kind, 'transaction');
          assert.equal(items[0]!.path, `/api/v1/${chain}/transactions/${tx.hash}`);
        }
      }
    }
    const powToken = facts.tokens.find((t) => t.chain === 'pow')!;
    const items = await check(powToken.contract);
    assert.deepEqual(items.map((h) => [h.kind, h.match]), [['transaction', 'hash'], ['token', 'token_id']]);
    assert.equal(items[1]!.path, `/api/v1/pow/tokens/${powToken.contract}`);
  });

  it('a height: the block of each chain that has one, pos first', async () => {
    const shorter = CHAINS.reduce((a, b) => (tip(a).height < tip(b).height ? a : b));
    for (const height of [0, 1, 100, tip(shorter).height, tip(shorter).height + 1]) {
      const items = await check(String(height));
      assert.equal(items.filter((h) => h.kind === 'block').length, CHAINS.filter((c) => tip(c).height >= height).length, `height ${height}`);
    }
    assert.deepEqual((await check('0')).slice(0, 2).map((h) => h.chain), ['pos', 'pow']);
    for (const q of ['01', '+1', '-1', '1.0', '1e3']) assert.ok(!(await check(q)).some((h) => h.kind === 'block'), q);
  });

  it('an address in every accepted form: the address with its primary label and activity; a pos token contract is a token too', async () => {
    const { world } = s.seeded();
    const notable = world.describe();
    for (const chain of CHAINS) {
      for (const address of [notable[chain].busiestHotWallet, notable[chain].whale, notable[chain].ordinary, notable[chain].treasury]) {
        const hex = address.slice(1);
        const forms = chain === 'pos' ? [address, `Z${hex}`, `0x${hex}`, `0X${hex.toUpperCase()}`, `q${hex}`] : [address, `q${hex.toUpperCase()}`, bech32Of(address), bech32Of(address).toUpperCase()];
        for (const q of forms) {
          const items = await check(q);
          assert.equal(items[0]!.kind, 'address', q);
          assert.equal(items[0]!.id, address, q);
          assert.equal(items[0]!.tx_count, facts.txCounts[chain].get(address)!.txCount, q);
        }
      }
    }
    const hot = await check(notable.pos.busiestHotWallet);
    assert.ok(hot[0]!.label, 'the busiest hot wallet has a primary label');
    const token = facts.tokens.find((t) => t.chain === 'pos' && t.symbol === 'QUSD')!;
    const items = await check(token.contract);
    assert.deepEqual(items.map((h) => [h.kind, h.match]), [['address', 'address'], ['token', 'token_id']]);
    assert.equal(items[1]!.symbol, 'QUSD');
    // Well formed, never seen: a hit (its page answers zeros), with no activity.
    const fresh = `Q${'ab'.repeat(20)}`;
    assert.deepEqual((await check(fresh)).map((h) => [h.kind, h.tx_count]), [['address', null]]);
  });

  it('labels by case-insensitive prefix: whole labels first, then by activity; ten at most', async () => {
    const texts = [...new Set(w.labels.map((l) => l.label))];
    assert.ok(texts.length > 20);
    const queries = new Set<string>();
    for (const text of texts) {
      for (const q of [text, text.toUpperCase(), text.slice(0, 1), text.slice(0, 3).toLowerCase(), text.slice(0, 6)]) queries.add(q);
    }
    let capped = 0;
    for (const q of queries) {
      const labels = (await check(q)).filter((h) => h.kind === 'label');
      assert.ok(labels.length > 0, q);
      if (labels.length === PER_KIND) capped++;
    }
    assert.ok(capped > 0, 'some prefix reaches more than ten labelled addresses');
    // The exchange's deposit addresses share one label: the busiest hot wallet still comes first.
    const { world } = s.seeded();
    const exchange = world.describe().pos.exchange;
    const items = (await check(exchange)).filter((h) => h.kind === 'label');
    assert.equal(items.length, PER_KIND);
    const busiest = CHAINS.map((chain) => ({ chain, address: world.describe()[chain].busiestHotWallet }))
      .sort((a, b) => facts.txCounts[b.chain].get(b.address)!.txCount - facts.txCounts[a.chain].get(a.address)!.txCount)[0]!;
    assert.deepEqual([items[0]!.chain, items[0]!.id], [busiest.chain, busiest.address]);
  });

  it('tokens by symbol or name prefix, exact first, symbol before name', async () => {
    assert.ok(facts.tokens.some((t) => t.chain === 'pow') && facts.tokens.some((t) => t.chain === 'pos'));
    for (const t of facts.tokens) {
      for (const text of [t.symbol, t.name]) {
        if (!text) continue;
        for (const q of [text, text.toLowerCase(), text.slice(0, 2), text.slice(0, 1).toUpperCase()]) {
          const items = await check(q);
          assert.ok(items.some((h) => h.kind === 'token'), q);
        }
      }
    }
    const qusd = (await check('qusd')).find((h) => h.kind === 'token')!;
    assert.deepEqual([qusd.symbol, qusd.match, qusd.exact, qusd.label], ['QUSD', 'symbol', true, 'Quarry Dollar']);
  });

  it('every hit resolves with one GET of its path', async () => {
    const { world } = s.seeded();
    const notable = world.describe();
    const posTx = tip('pos').transactions.at(-1) ?? w.blocks.pos.flatMap((b) => b.transactions).at(-1)!;
    const queries = ['b', 'q', 't', 'Q', '0', String(tip('pos').height), tip('pow').hash, posTx.hash, notable.pos.busiestHotWallet, notable.pow.busiestHotWallet, notable.pow.token, notable.pos.token];
    let resolved = 0;
    const kinds = new Set<string>();
    for (const q of queries) {
      for (const hit of await check(q)) {
        const res = await s.t().app.inject({ url: hit.path, headers: AUTH });
        assert.equal(res.statusCode, 200, `${hit.path}: ${res.body}`);
        const body = res.json();
        if (hit.kind === 'block') assert.equal(body.hash, hit.id);
        if (hit.kind === 'transaction') assert.equal(body.tx_hash, hit.id);
        if (hit.kind === 'token') assert.deepEqual([body.token, body.symbol], [hit.id, hit.symbol]);
        if (hit.kind === 'address' || hit.kind === 'label') assert.equal(body.address, hit.id);
        kinds.add(`${hit.kind} ${hit.chain}`);
        resolved++;
      }
    }
    assert.ok(resolved > 30);
    assert.deepEqual([...kinds].sort(), ['address pos', 'address pow', 'block pos', 'block pow', 'label pos', 'label pow', 'token pos', 'token pow', 'transaction pos', 'transaction pow'].sort());
  });

  it('a query that names nothing: 200 with no hits', async () => {
    for (const q of ['zzzzzz', 'ab'.repeat(32), `0x${'cd'.repeat(32)}`, String(Math.max(tip('pow').height, tip('pos').height) + 1), 'Q123', '%', '_', '\\', 'Bitvault%', "'; DROP TABLE labels; --", 'x'.repeat(200)]) {
      const body = await search(q);
      assert.deepEqual(body.items, [], q);
      assert.equal(body.count, 0);
    }
  });

  it('no q, an empty or blank one, one over 200 characters or with a NUL: a 400 naming q', async () => {
    for (const url of ['/api/v1/search', '/api/v1/search?q=', `/api/v1/search?q=${encodeURIComponent('  \t ')}`, `/api/v1/search?q=${'a'.repeat(201)}`, '/api/v1/search?q=a%00b', '/api/v1/search?q=%00']) {
      const res = await s.t().app.inject({ url, headers: AUTH });
      assert.equal(res.statusCode, 400, url);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      assert.deepEqual(res.json().errors.map((e: { param: string }) => e.param), ['q'], url);
    }
  });

  it('answers with both chains\' freshness headers, an ETag, and as CSV', async () => {
    const res = await request('b');
    assert.equal(res.headers['quarry-pos-block-hash'], tip('pos').hash);
    assert.equal(res.headers['quarry-pow-block-height'], String(tip('pow').height));
    assert.ok(res.headers['etag']);
    const again = await s.t().app.inject({ url: '/api/v1/search?q=b', headers: { ...AUTH, 'if-none-match': String(res.headers['etag']) } });
    assert.equal(again.statusCode, 304);
    const csv = await s.t().app.inject({ url: '/api/v1/search?q=b', headers: { ...AUTH, accept: 'text/csv' } });
    assert.equal(csv.statusCode, 200);
    assert.equal(csv.body.split('\r\n')[0], 'kind,chain,id,label,path,match,exact,height,timestamp,tx_count,symbol,category');
    assert.equal(csv.body.split('\r\n').length - 2, res.json().count);
  });
});
