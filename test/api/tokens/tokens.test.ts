/**
 * The token routes on the generated world (both chains, reorgs included): every list walked by
 * cursor and every page against the generator's own blocks, the transfers summed here
 * (test/api/tokens/oracle.ts); the prefix filter, the token in each accepted form, bad input and
 * unknown tokens.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { CHAINS, type ChainId } from '../../../src/chain/chains.ts';
import { AUTH } from '../../support/app.ts';
import { loadAnalyticsWorld, NETWORK } from '../../support/analytics-world.ts';
import { addr, hash } from '../../support/chain-builder.ts';
import { describeSeededApp } from '../../support/seeded-app.ts';
import { utcDay } from '../../support/utc-day.ts';
import { expectedDays, expectedDetail, expectedHolders, expectedList, expectedTransfers, tokenFacts, type TokenFacts } from './oracle.ts';

describeSeededApp('GET /{chain}/tokens and a token\'s pages', loadAnalyticsWorld, (s) => {
  const facts = new Map<ChainId, Map<string, TokenFacts>>();
  const tokens = (chain: ChainId) => {
    if (!facts.has(chain)) facts.set(chain, tokenFacts(chain, s.seeded().blocks[chain]));
    return facts.get(chain)!;
  };
  const request = (url: string, headers: Record<string, string> = {}) => s.t().app.inject({ url, headers: { ...AUTH, ...headers } });
  const get = async (url: string, status = 200) => {
    const res = await request(url);
    assert.equal(res.statusCode, status, `${url}: ${res.body}`);
    return res.json();
  };
  /** Every item of a cursor list, page by page, with each page's total. */
  const walk = async (url: string, limit: number) => {
    const items: any[] = [];
    const totals = new Set<unknown>();
    let cursor: string | null = null;
    do {
      const sep = url.includes('?') ? '&' : '?';
      const body = await get(`${url}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      assert.equal(body.count, body.items.length);
      assert.ok(body.items.length <= limit);
      assert.equal(body.has_more, body.next_cursor !== null);
      items.push(...body.items);
      totals.add(body.total);
      cursor = body.next_cursor;
    } while (cursor !== null);
    return { items, totals: [...totals] };
  };
  const tipDay = (chain: ChainId) => utcDay(s.seeded().blocks[chain].at(-1)!.timestamp);

  for (const chain of CHAINS) {
    it(`${chain}: the list in each order, walked by cursor, with the chain's token count`, async () => {
      assert.ok(tokens(chain).size >= 5, `${tokens(chain).size} tokens`);
      const first = await get(`/api/v1/${chain}/tokens`);
      assert.deepEqual(first.items, expectedList(tokens(chain), 'holders').slice(0, 25));
      assert.deepEqual([first.chain, first.network, first.sort, first.q, first.limit], [chain, NETWORK[chain], 'holders', null, 25]);
      for (const sort of ['holders', 'transfers', 'newest'] as const) {
        const want = expectedList(tokens(chain), sort);
        const { items, totals } = await walk(`/api/v1/${chain}/tokens?sort=${sort}`, 2);
        assert.deepEqual(items, want, sort);
        assert.deepEqual(totals, [want.length], `${sort} total`);
      }
    });

    it(`${chain}: q keeps the tokens whose name or symbol starts with it, ASCII letters in either case`, async () => {
      const all = [...tokens(chain).values()];
      const symbol = all.find((t) => t.info?.symbol)!.info!.symbol!;
      const name = all.find((t) => t.info?.name)!.info!.name!;
      for (const q of [symbol.slice(0, 2).toLowerCase(), symbol.toUpperCase(), name.slice(0, 3).toUpperCase(), name.slice(0, 1)]) {
        const lower = q.toLowerCase();
        const keep = (t: TokenFacts) => [t.info?.name, t.info?.symbol].some((text) => text?.toLowerCase().startsWith(lower));
        const want = expectedList(tokens(chain), 'transfers', keep);
        assert.ok(want.length > 0, q);
        const { items, totals } = await walk(`/api/v1/${chain}/tokens?sort=transfers&q=${encodeURIComponent(q)}`, 1);
        assert.deepEqual(items, want, q);
        assert.deepEqual(totals, [want.length], `${q} total`);
        assert.equal((await get(`/api/v1/${chain}/tokens?q=${encodeURIComponent(q)}`)).q, q);
      }
      // Not a substring search, and nothing matches text no name or symbol begins with.
      const inner = symbol.slice(1);
      const none = await get(`/api/v1/${chain}/tokens?q=${encodeURIComponent(`${inner}zz%_`)}`);
      assert.deepEqual([none.items, none.total, none.has_more], [[], 0, false]);
      // The LIKE wildcards are text like any other.
      assert.deepEqual((await get(`/api/v1/${chain}/tokens?q=%25`)).items, []);
    });

    it(`${chain}: every token's page, its holders and its transfers, walked by cursor`, async () => {
      for (const t of tokens(chain).values()) {
        assert.deepEqual(await get(`/api/v1/${chain}/tokens/${t.id}`), expectedDetail(chain, NETWORK[chain], t), t.id);
        const holders = await walk(`/api/v1/${chain}/tokens/${t.id}/holders`, 3);
        const want = expectedHolders(t);
        assert.deepEqual(holders.items.map(({ share_pct: _, ...h }) => h), want.map(({ share: _, ...h }) => h), `${t.id} holders`);
        assert.deepEqual(holders.totals, [want.length]);
        holders.items.forEach((h, i) => {
          const share = want[i]!.share;
          if (share === null) assert.equal(h.share_pct, null);
          else assert.ok(Math.abs(h.share_pct - Number(share.num) / Number(share.den)) <= 1e-12 * Math.max(1, h.share_pct), `${t.id} ${h.address} share`);
        });
        const transfers = await walk(`/api/v1/${chain}/tokens/${t.id}/transfers`, 7);
        assert.deepEqual(transfers.items, expectedTransfers(t), `${t.id} transfers`);
        assert.deepEqual(transfers.totals, [t.transfers.length]);
      }
    });

    it(`${chain}: a token's days: transfers and holders at each day's end, over a window and the whole history`, async () => {
      const tip = tipDay(chain);
      for (const t of tokens(chain).values()) {
        const all = await get(`/api/v1/${chain}/tokens/${t.id}/daily?window=all`);
        assert.deepEqual(all.items, expectedDays(t, tip, null), t.id);
        assert.deepEqual([all.count, all.window_days, all.token, all.chain], [all.items.length, null, t.id, chain]);
        const two = await get(`/api/v1/${chain}/tokens/${t.id}/daily?window=2d`);
        const from = utcDay(Date.parse(`${tip}T00:00:00Z`) / 1000 - 86_400);
        assert.deepEqual(two.items, expectedDays(t, tip, from), `${t.id} 2d`);
        assert.equal(two.window_days, 2);
        assert.equal((await get(`/api/v1/${chain}/tokens/${t.id}/daily`)).window_days, 30);
      }
    });
  }

  it('a pos token by its contract in each accepted form; a pow token by its hash in either case', async () => {
    const pos = [...tokens('pos').keys()][0]!;
    const hex = pos.slice(1);
    for (const form of [`0x${hex}`, `Z${hex}`, `Q${hex.toUpperCase()}`, `0x${hex.toUpperCase()}`]) {
      assert.equal((await get(`/api/v1/pos/tokens/${form}`)).token, pos, form);
      assert.equal((await get(`/api/v1/pos/tokens/${form}/holders?limit=1`)).token, pos, form);
    }
    const pow = [...tokens('pow').keys()][0]!;
    assert.equal((await get(`/api/v1/pow/tokens/${pow.toUpperCase()}`)).token, pow);
    assert.equal((await get(`/api/v1/pow/tokens/${pow.toUpperCase()}/transfers?limit=1`)).token, pow);
  });

  it('a malformed token is a 400 naming token; a well-formed unknown one a 404 on every route', async () => {
    const pages = ['', '/holders', '/transfers', '/daily'];
    const malformed: [ChainId, string][] = [
      ['pos', 'nope'], ['pos', 'Q' + 'zz'.repeat(20)], ['pos', hash('x')], ['pos', 'Q' + 'ab'.repeat(64)],
      ['pow', 'Q' + 'ab'.repeat(20)], ['pow', `0x${hash('x')}`], ['pow', hash('x').slice(2)], ['pow', addr('pow', 'someone')],
    ];
    for (const [chain, token] of malformed) {
      for (const page of pages) {
        const body = await get(`/api/v1/${chain}/tokens/${encodeURIComponent(token)}${page}`, 400);
        assert.deepEqual(body.errors.map((e: { param: string }) => e.param), ['token'], `${chain} ${token}${page}`);
      }
    }
    const unknown: [ChainId, string][] = [['pos', addr('pos', 'no-such-token')], ['pow', hash('no-such-token')]];
    for (const [chain, token] of unknown) {
      for (const page of pages) {
        const body = await get(`/api/v1/${chain}/tokens/${token}${page}`, 404);
        assert.equal(body.detail, `no ${chain} token ${token} is stored`);
      }
    }
    // An address that holds tokens is not a token.
    const holder = expectedHolders([...tokens('pos').values()][0]!)[0]!.address;
    await get(`/api/v1/pos/tokens/${holder}`, 404);
  });

  it('bad parameters are 400s naming them; a cursor answers only the query it came from', async () => {
    const named = async (url: string, param: string) => {
      const body = await get(url, 400);
      assert.deepEqual(body.errors.map((e: { param: string }) => e.param), [param], url);
    };
    await named('/api/v1/pos/tokens?sort=name', 'sort');
    await named('/api/v1/pos/tokens?limit=101', 'limit');
    await named('/api/v1/pos/tokens?limit=0', 'limit');
    await named(`/api/v1/pos/tokens?q=${'a'.repeat(65)}`, 'q');
    await named('/api/v1/pos/tokens?cursor=abc', 'cursor');
    await named('/api/v1/pow/tokens?q=a%00', 'q');
    const [a, b] = [...tokens('pos').values()].filter((t) => expectedHolders(t).length > 1);
    const page = await get(`/api/v1/pos/tokens/${a!.id}/holders?limit=1`);
    await named(`/api/v1/pos/tokens/${b!.id}/holders?limit=1&cursor=${encodeURIComponent(page.next_cursor)}`, 'cursor');
    await named(`/api/v1/pos/tokens/${a!.id}/transfers?limit=1&cursor=${encodeURIComponent(page.next_cursor)}`, 'cursor');
    const sorted = await get('/api/v1/pos/tokens?limit=1');
    await named(`/api/v1/pos/tokens?limit=1&sort=newest&cursor=${encodeURIComponent(sorted.next_cursor)}`, 'cursor');
    await named(`/api/v1/pos/tokens/${a!.id}/daily?window=5x`, 'window');
    await named(`/api/v1/pos/tokens/${a!.id}/daily?window=3651d`, 'window');
  });

  it('the holders as CSV: the JSON page\'s rows, exact balances, and the next page in Link', async () => {
    const t = [...tokens('pow').values()].sort((x, y) => expectedHolders(y).length - expectedHolders(x).length)[0]!;
    const url = `/api/v1/pow/tokens/${t.id}/holders?limit=5`;
    const json = await get(url);
    const res = await request(url, { accept: 'text/csv' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/csv/);
    const [header, ...lines] = res.body.trimEnd().split('\r\n');
    assert.equal(header, 'address,balance,balance_display,share_pct,transfer_count,last_activity');
    assert.deepEqual(lines, json.items.map((h: any) => [h.address, h.balance, h.balance_display, h.share_pct, h.transfer_count, h.last_activity].join(',')));
    assert.match(String(res.headers.link), /rel="next"/);
  });
});
