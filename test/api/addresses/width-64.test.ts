/**
 * A pos store of a 64-byte network (go-qrllib's `Q` + 128 hex addresses): the per-address routes
 * answer the 64-byte canonical form, take the checksummed form, and refuse a 20-byte address with a
 * 400 naming the parameter and the width. The addresses are go-qrllib's checksum parity vectors
 * (wallet/common/address_test.go), so their forms are known independently of Quarry.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { writeChainNetwork } from '../../../src/store/chain-network.ts';
import type { Store } from '../../../src/store/store.ts';
import { AUTH } from '../../support/app.ts';
import { ChainBuilder, coins } from '../../support/chain-builder.ts';
import { describeSeededApp } from '../../support/seeded-app.ts';
import { ingestChain } from './fixtures.ts';

const ALICE = 'Qd5812f6cf4a0f645aa620cd57319a0ed649dd8f5519a9dde7770ae5b0e49e547985f35eb972a2a07041561aa39c65a3991478f9b1e6749e05277dcf58a9a8b72';
const ALICE_CHECKSUMMED = 'Qd5812F6Cf4a0f645aa620cd57319a0Ed649dd8f5519A9dde7770ae5b0E49e547985f35eB972A2a07041561aa39c65A3991478f9B1e6749e05277dcf58A9A8B72';
const BOB = 'Qbe95a82d87a6cb9c7ff4c64e0c15bb1dff20b1d77e6b571b28ad4736f2a2a3e5857e8c225d6d61399b15beef3b196936e490ed6e234374c4887cbbe86c13b1ba';
const TOKEN = 'Q31f654037d4d7bce04e9522e4d346ab47a90686ef20a6c19916e68d3c77950f54babb7725ad48a3201c0acb74271e790730f9f39f9ce2e9ba1be9e41a763caf9';
const WIDTH_REASON = /must be Q followed by 128 hex characters \(64-byte addresses on this network\)/;

async function load64(store: Store): Promise<void> {
  const chain = new ChainBuilder('pos', 1_760_000_000, 12, { addressBytes: 64 });
  chain.block((b) => b.genesis([{ address: ALICE, amount: coins('pos', 100) }]));
  chain.block((b) => {
    b.transfer(ALICE, BOB, coins('pos', 5));
    const call = b.contractCall(ALICE, TOKEN, 0n, []);
    b.token(TOKEN, 'Wide', 'WIDE', 18);
    b.tokenTransfer(call, TOKEN, ALICE, BOB, 7n);
  });
  await ingestChain(store, chain);
  // What the indexer records when it first meets the 64-byte node (ingest/address-width.ts).
  await writeChainNetwork(store, 'pos', { addressBytes: 64 });
}

describeSeededApp('a 64-byte pos network: address parameters and answers', load64, (s) => {
  const inject = (url: string) => s.t().app.inject({ url, headers: AUTH });

  it('answers the address page of the checksummed form with the lowercase 64-byte address', async () => {
    const res = await inject(`/api/v1/pos/addresses/${ALICE_CHECKSUMMED}`);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.address, ALICE);
    assert.equal(body.tx_sent_count, 2);
  });

  it('lists transactions with 64-byte from and to addresses', async () => {
    const res = await inject(`/api/v1/pos/addresses/${ALICE}/transactions`);
    assert.equal(res.statusCode, 200, res.body);
    const rows = res.json().items as { from_addr: string; to_addr: string | null }[];
    assert.deepEqual(rows.map((r) => [r.from_addr, r.to_addr]).sort(), [[ALICE, BOB], [ALICE, TOKEN]].sort());
  });

  it('answers token holdings of the 64-byte holder', async () => {
    const res = await inject(`/api/v1/pos/addresses/${BOB}/token-holdings`);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.deepEqual(body.items.map((i: { token_contract: string; balance_raw: string }) => [i.token_contract, i.balance_raw]), [[TOKEN, '7']]);
    assert.equal(body.address, BOB);
  });

  const problem = async (url: string, param: string, message: RegExp) => {
    const res = await inject(url);
    assert.equal(res.statusCode, 400, `${url} → ${res.statusCode} ${res.body}`);
    assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
    const error = res.json().errors[0];
    assert.equal(error.param, param);
    assert.match(error.message, message);
  };

  const TWENTY = 'Q' + 'ab'.repeat(20);
  for (const path of ['', '/transactions', '/token-holdings', '/balance-history', '/counterparties', '/internal-transactions']) {
    it(`a 20-byte address on ${path || 'the address page'} is a 400 naming address and the width`, () => problem(`/api/v1/pos/addresses/${TWENTY}${path}`, 'address', WIDTH_REASON));
  }

  it('a mixed-case address with a wrong checksum is a 400 naming address', () =>
    problem(`/api/v1/pos/addresses/${ALICE_CHECKSUMMED.slice(0, 6)}f${ALICE_CHECKSUMMED.slice(7)}`, 'address', /checksum does not match/));

  it('top-active exclude follows the width', async () => {
    await problem(`/api/v1/pos/addresses/top/active?exclude=${TWENTY}`, 'exclude', WIDTH_REASON);
    const res = await inject(`/api/v1/pos/addresses/top/active?exclude=${ALICE_CHECKSUMMED}`);
    assert.equal(res.statusCode, 200, res.body);
    assert.ok(!res.json().addresses.some((a: { address: string }) => a.address === ALICE));
  });

  it('cross-chain history reads a 64-byte pos address, and refuses a 20-byte one', async () => {
    const res = await inject(`/api/v1/analytics/cross-chain/history/${ALICE_CHECKSUMMED}`);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().address, ALICE);
    await problem(`/api/v1/analytics/cross-chain/history/${TWENTY}`, 'address', WIDTH_REASON);
  });
});
