import assert from 'node:assert/strict';
import sql from 'sql-template-tag';
import { describe, it } from 'node:test';
import { POS_ZERO_ADDRESS, POW_COINBASE_SENTINEL, type ChainId } from '../../../src/chain/chains.ts';
import { classifyWallet } from '../../../src/domain/wallet-class.ts';
import type { AddressFacts } from '../../../src/domain/address-facts.ts';
import type { Store } from '../../../src/store/store.ts';
import { AUTH, TEST_KEY } from '../../support/app.ts';
import { addr } from '../../support/chain-builder.ts';
import { describeSeededApp } from '../../support/seeded-app.ts';
import { CURATED, loadProfileChains, loadProfileExpected, POSA, POWA } from './profile-fixtures.ts';

const ts = (t: number | null) => (t === null ? null : new Date(t * 1000).toISOString().slice(0, 19));

describeSeededApp('GET /addresses/{address}', loadProfileExpected, (s) => {
  const expected = () => s.seeded().expected;

  const get = async (chain: ChainId, address: string, query = '') => {
    const res = await s.t().app.inject({ url: `/api/v1/${chain}/addresses/${address}${query}`, headers: AUTH });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };

  it('equals the sums of every address’s indexed movements, on both chains', async () => {
    for (const chain of ['pow', 'pos'] as const) {
      for (const [address, e] of expected()[chain].addresses) {
        const body = await get(chain, address);
        const label = `${chain} ${address.slice(0, 12)}`;
        assert.deepEqual(
          {
            chain: body.chain, address: body.address, balance: body.balance, total_received: body.total_received, total_sent: body.total_sent,
            total_fees_paid: body.total_fees_paid, tx_count: body.tx_count, tx_received_count: body.tx_received_count,
            tx_sent_count: body.tx_sent_count, first_seen: body.first_seen, last_seen: body.last_seen, master_address: body.master_address,
          },
          {
            chain, address, balance: e.balance.toString(), total_received: e.totalReceived.toString(), total_sent: e.totalSent.toString(),
            total_fees_paid: e.totalFees.toString(), tx_count: e.txCount, tx_received_count: e.txIn, tx_sent_count: e.txOut,
            first_seen: ts(e.firstSeen), last_seen: ts(e.lastSeen), master_address: e.masterAddress,
          },
          label,
        );
        if (chain === 'pos') {
          assert.equal(body.is_deployer, e.deployedCount > 0, `${label} is_deployer`);
          assert.equal(body.withdrawal_count, e.withdrawalCount, `${label} withdrawal_count`);
          assert.equal(body.withdrawal_total, e.withdrawalTotal.toString(), `${label} withdrawal_total`);
          assert.equal(body.internal_tx_count, e.internalCount, `${label} internal_tx_count`);
        } else {
          assert.deepEqual([body.is_deployer, body.withdrawal_count, body.withdrawal_total, body.internal_tx_count], [null, null, null, null], `${label} pos-only fields`);
        }
        assert.equal(body.network, chain === 'pow' ? 'mainnet' : 'testnet');
        assert.ok(!('label' in body) && !('label_category' in body), 'no label fields without with_labels');
        assert.equal(typeof body.wallet_class, 'string', `${label} has a class`);
      }
    }
  });

  it('master_address names the master of a pow slave key', async () => {
    assert.equal((await get('pow', POWA.exslave)).master_address, POWA.exchange);
    assert.equal((await get('pow', POWA.exchange)).master_address, null);
  });

  it('classifies wallets by the documented rules, saying how and why', async () => {
    const cases: [ChainId, string, string, string, RegExp][] = [
      ['pow', POW_COINBASE_SENTINEL, 'protocol', 'protocol', /coinbase sentinel/],
      ['pos', POS_ZERO_ADDRESS, 'protocol', 'protocol', /zero address/],
      ['pow', POWA.exchange, 'exchange', 'curated', /hot wallet of Bitshore/],
      ['pow', POWA.relay, 'exchange_deposit', 'curated', /deposit relay of Bitshore/],
      ['pow', POWA.relay2, 'exchange_deposit', 'heuristic', /not confirmed/],
      ['pow', POWA.pool, 'mining_pool', 'curated', /Deep Pool/],
      ['pow', POWA.treasury, 'treasury', 'curated', /QRL Foundation treasury \(treasury\)/],
      ['pow', POWA.dolphin, 'entity', 'curated', /Friendly dolphin \(community\)/],
      ['pow', POWA.exslave, 'slave_key', 'onchain', new RegExp(POWA.exchange)],
      ['pow', POWA.solo, 'miner', 'heuristic', /block reward/],
      ['pow', POWA.tie1, 'holder', 'heuristic', /never sent/],
      ['pow', POWA.leviathan, 'holder', 'heuristic', /never sent/],
      ['pow', POWA.user, 'individual', 'heuristic', /ordinary/],
      ['pos', POSA.contract, 'contract', 'curated', /Test contract/],
      ['pos', addr('pos', 'deployed-1'), 'contract', 'onchain', /contract-creation/],
      ['pos', POSA.staker, 'staker', 'onchain', /withdrawals \(5 withdrawals\)/],
      ['pos', POSA.vault, 'custodial', 'curated', /Vaultkeep/],
      ['pos', POSA.claimer, 'holder', 'heuristic', /never sent/],
      ['pos', POSA.payer1, 'individual', 'heuristic', /ordinary/],
    ];
    for (const [chain, address, walletClass, method, reason] of cases) {
      const body = await get(chain, address);
      assert.equal(body.wallet_class, walletClass, `${chain} ${address.slice(0, 12)} class`);
      assert.equal(body.wallet_class_method, method, `${chain} ${address.slice(0, 12)} method`);
      assert.match(body.wallet_class_reason, reason);
    }
    assert.equal((await get('pos', POSA.deployer)).is_deployer, true);
    assert.equal((await get('pos', POSA.payer1)).is_deployer, false);
  });

  it('adds the primary label with with_labels=true (and 1), null where there is none', async () => {
    for (const flag of ['true', '1']) {
      const body = await get('pow', POWA.treasury, `?with_labels=${flag}`);
      assert.equal(body.label, 'QRL Foundation treasury');
      assert.equal(body.label_category, 'treasury');
    }
    const plain = await get('pow', POWA.user, '?with_labels=true');
    assert.equal(plain.label, null);
    assert.equal(plain.label_category, null);
    const off = await get('pow', POWA.treasury, '?with_labels=0');
    assert.ok(!('label' in off));
    const curatedPos = CURATED.labels.find((l) => l.chain === 'pos' && l.isPrimary)!;
    assert.equal((await get('pos', curatedPos.address, '?with_labels=true')).label, curatedPos.label);
  });

  it('answers an address never seen with zeros and nulls', async () => {
    for (const chain of ['pow', 'pos'] as const) {
      const address = addr(chain, 'never-seen');
      const body = await get(chain, address, '?with_labels=true');
      assert.deepEqual(body, {
        chain, network: chain === 'pow' ? 'mainnet' : 'testnet', address, balance: '0', total_received: '0', total_sent: '0', total_fees_paid: '0',
        tx_count: 0, tx_received_count: 0, tx_sent_count: 0, first_seen: null, last_seen: null, master_address: null,
        wallet_class: null, wallet_class_method: null, wallet_class_reason: null,
        is_deployer: chain === 'pos' ? false : null, withdrawal_count: chain === 'pos' ? 0 : null,
        withdrawal_total: chain === 'pos' ? '0' : null, internal_tx_count: chain === 'pos' ? 0 : null,
        internal_transfers: chain === 'pos' ? 'indexed' : 'not_applicable',
        label: null, label_category: null,
      });
    }
  });

  it('accepts the Q, Z and 0x forms of a pos address in any case and answers in the canonical form', async () => {
    const canonical = POSA.payer1;
    const hex = canonical.slice(1);
    for (const form of [canonical, `0x${hex}`, `0X${hex.toUpperCase()}`, `Z${hex}`, `z${hex.toUpperCase()}`, `q${hex}`]) {
      const body = await get('pos', form);
      assert.equal(body.address, canonical);
      assert.equal(body.tx_count, expected().pos.addresses.get(canonical)!.txCount);
    }
    assert.equal((await get('pow', POWA.user.toUpperCase().replace(/^Q/, 'q'))).address, POWA.user);
  });

  const problem = async (url: string) => {
    const res = await s.t().app.inject({ url, headers: AUTH });
    assert.equal(res.statusCode, 400, res.body);
    assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
    return res.json();
  };

  it('400 naming address for malformed addresses', async () => {
    const badPow = POWA.user.slice(0, -1) + (POWA.user.endsWith('0') ? '1' : '0'); // checksum broken
    for (const [chain, address] of [
      ['pow', 'nope'], ['pow', badPow], ['pow', POSA.alice], ['pos', POWA.user], ['pos', 'Q' + 'zz'.repeat(20)], ['pos', '0x' + 'ab'.repeat(19)],
    ] as const) {
      const body = await problem(`/api/v1/${chain}/addresses/${address}`);
      assert.equal(body.errors[0].param, 'address');
    }
  });

  it('400 naming with_labels for a value that is not a boolean', async () => {
    const body = await problem(`/api/v1/pow/addresses/${POWA.user}?with_labels=yes`);
    assert.equal(body.errors[0].param, 'with_labels');
  });

  it('404 for an unknown chain', async () => {
    const res = await s.t().app.inject({ url: `/api/v1/btc/addresses/${POWA.user}`, headers: AUTH });
    assert.equal(res.statusCode, 404);
  });
});

describe('wallet class rules on facts the fixture chains do not reach', () => {
  const base: AddressFacts = {
    chain: 'pow', address: addr('pow', 'facts'), exists: true, balance: 0n, balanceKnown: true, totalReceived: 0n, totalSent: 0n, totalFeesPaid: 0n,
    txCount: 0, txReceivedCount: 0, txSentCount: 0, firstSeen: null, lastSeen: null, appeared: null, fundedBy: null,
    withdrawalCount: 0, withdrawalTotal: 0n, internalTxCount: 0, deployedCount: 0, isContract: false, masterAddress: null,
    slaveCount: 0, otsUsed: 0, otsMaxIndex: null, label: null, labelCategory: null, exchange: null, genesisHolder: false, tipTs: null,
  };
  it('automated: at least 1,000 transactions and 50 a day over the address’s life', () => {
    const day = 86_400;
    assert.equal(classifyWallet({ ...base, txCount: 1_000, txSentCount: 900, firstSeen: 0, lastSeen: 20 * day })?.walletClass, 'automated');
    assert.equal(classifyWallet({ ...base, txCount: 1_000, txSentCount: 900, firstSeen: 0, lastSeen: 20 * day + 1 })?.walletClass, 'individual');
    assert.equal(classifyWallet({ ...base, txCount: 999, txSentCount: 900, firstSeen: 0, lastSeen: 1 })?.walletClass, 'individual');
  });
  it('a curated entry applies to an address never seen; otherwise none', () => {
    assert.equal(classifyWallet({ ...base, exists: false }), null);
    assert.equal(classifyWallet({ ...base, exists: false, label: 'X', labelCategory: 'treasury' })?.walletClass, 'treasury');
  });
});

/** The profile chains as indexing from a height above 0 leaves them when an address spends coins it received earlier. */
async function loadWithNegativeBalance(store: Store): Promise<void> {
  await loadProfileChains(store);
  await store.query('test.negative', sql`UPDATE address_summary SET balance = -114 WHERE chain = 'pow' AND address = ${POWA.user}`);
}

describeSeededApp('an indexing gap: a negative stored balance', loadWithNegativeBalance, (s) => {
  it('is answered as null, not as stored or with a 500, wherever the balance is written, and logged as a data-integrity error', async () => {
    const t = s.t();
    const detail = await t.app.inject({ url: `/api/v1/pow/addresses/${POWA.user}`, headers: AUTH });
    assert.equal(detail.statusCode, 200, detail.body);
    assert.equal(detail.json().balance, null);
    assert.match(detail.json().total_received, /^[0-9]+$/, 'the other amounts are answered');
    for (const sort of ['first_seen', '-balance', 'last_seen_asc']) {
      const board = await t.app.inject({ url: `/api/v1/pow/addresses/top/active?sort=${sort}&page_size=100`, headers: AUTH });
      assert.equal(board.statusCode, 200, board.body);
      const row = board.json().addresses.find((a: { address: string }) => a.address === POWA.user);
      assert.ok(row, sort);
      assert.equal(row.balance, null, sort);
    }
    const logged = t
      .logs()
      .split('\n')
      .filter((line) => line.includes('negative-amount'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.equal(logged.length, 4, 'one entry per answer that carried the balance');
    for (const entry of logged) {
      assert.equal(entry.level, 50, 'logged as an error');
      assert.deepEqual([entry.chain, entry.address, entry.field, entry.stored], ['pow', POWA.user, 'balance', '-114']);
      assert.ok(entry.reqId, 'through the request logger');
    }
    assert.ok(!t.logs().includes(TEST_KEY), 'no secret in the log');
  });
});
