/**
 * The pow multisig routes on chains built by hand: votes QRL's rules refuse are listed, not counted;
 * and through reorgs: a multisig address's create, spend and votes and the
 * signatures' key indexes are written with their blocks and leave with them. A small chain built
 * by hand: two signatories (weight 1 each, threshold 2), a spend that the second vote executes;
 * then branches that drop that vote, the spend, and the create.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import sql from 'sql-template-tag';
import { multiSigAddress } from '../../../src/chain/addresses.ts';
import { emptyTx, type CanonicalTx } from '../../../src/chain/model.ts';
import { ingest } from '../../../src/ingest/pipeline.ts';
import { AUTH, buildTestApp } from '../../support/app.ts';
import { addr, ChainBuilder, coins, hash, type BlockBuilder } from '../../support/chain-builder.ts';
import { describeOnOneStore } from '../../support/stores.ts';

const ALICE = addr('pow', 'alice');
const BOB = addr('pow', 'bob');
const CAROL = addr('pow', 'carol');
const CREATE = hash('the create');
const MS = multiSigAddress(CREATE);
const SPEND = hash('the spend');

/** A transaction appended to the block by hand (the builder has no multisig helpers). */
function add(b: BlockBuilder, fields: Partial<CanonicalTx> & Pick<CanonicalTx, 'type' | 'from'>): CanonicalTx {
  const index = b.block.transactions.length;
  const tx = emptyTx({ hash: hash('tx', b.block.hash, index), index, fee: 10n, ...fields });
  b.block.transactions.push(tx);
  return tx;
}

const vote = (b: BlockBuilder, voter: string, ots: number, spend = SPEND, unvote = false) =>
  add(b, { type: 'multi_sig_vote', from: voter, otsIndex: ots, input: spend, multiSig: { kind: 'vote', sharedKey: spend, unvote } });

function chain(): ChainBuilder {
  const c = new ChainBuilder('pow', 1_700_000_000, 60);
  c.block((b) => b.genesis([{ address: ALICE, amount: coins('pow', 100) }, { address: BOB, amount: coins('pow', 100) }]));
  c.block((b) => {
    add(b, { type: 'multi_sig_create', hash: CREATE, from: ALICE, otsIndex: 0, multiSig: { kind: 'create', address: MS, signatories: [{ address: ALICE, weight: 1 }, { address: BOB, weight: 1 }], threshold: 2 } });
  });
  c.block((b) => {
    add(b, { type: 'transfer', from: ALICE, to: MS, value: 1000n, recipients: [{ to: MS, amount: 1000n }], otsIndex: 1 });
    add(b, { type: 'multi_sig_spend', hash: SPEND, from: ALICE, to: MS, otsIndex: 2, multiSig: { kind: 'spend', multiSigAddress: MS, recipients: [{ to: CAROL, amount: 600n }], expiryHeight: 50 } });
  });
  c.block((b) => vote(b, BOB, 0));
  c.block((b) => vote(b, ALICE, 3));
  return c;
}

describeOnOneStore('pow multisig and key indexes through reorgs', (getStore) => {
  it('follow the canonical branch: a vote, then a spend, then the address itself leave with their blocks', async () => {
    const store = getStore();
    const t = await buildTestApp(store, { QUARRY_RATE_LIMIT_MAX: '100000' });
    try {
      const get = async (path: string, status = 200) => {
        const res = await t.app.inject({ url: `/api/v1/pow/addresses/${path}`, headers: AUTH });
        assert.equal(res.statusCode, status, res.body.slice(0, 300));
        return res.json();
      };
      const c = chain();
      await ingest(store, c.source());
      let [spend] = (await get(`${MS}/multisig/spends`)).items;
      assert.deepEqual([spend.status, spend.approved_weight, spend.vote_count], ['executed', 2, 2]);
      assert.equal((await get(`${MS}/multisig`)).balance, '400');
      assert.deepEqual([(await get(`${ALICE}/ots`)).signatures, (await get(`${ALICE}/ots`)).next_unused_index], [4, 4]);

      // A branch without Alice's vote: the spend is approved by Bob alone, and her key's index 3 is free again.
      c.fork(1, [(b) => add(b, { type: 'message', from: CAROL, otsIndex: 0, input: '00' })]);
      // The new branch grows past the old tip, as a node switches to a heavier branch.
      c.block();
      await ingest(store, c.source());
      [spend] = (await get(`${MS}/multisig/spends`)).items;
      assert.deepEqual([spend.status, spend.approved_weight, spend.vote_count, spend.executed_by], ['open', 1, 1, null]);
      assert.deepEqual(spend.signatories.map((s: { approves: boolean }) => s.approves), [false, true]);
      assert.equal((await get(`${MS}/multisig`)).balance, '1000');
      const alice = await get(`${ALICE}/ots`);
      assert.deepEqual([alice.signatures, alice.keys_used, alice.next_unused_index, alice.highest_used_index], [3, 3, 3, 2]);

      // A branch from block 2 without the transfer and the spend (nor the votes).
      c.fork(4, [() => {}, () => {}, () => {}, () => {}]);
      c.block();
      await ingest(store, c.source());
      const ms = await get(`${MS}/multisig`);
      assert.deepEqual([ms.spends.total, ms.received, ms.balance], [0, '0', '0']);
      assert.deepEqual((await get(`${MS}/multisig/spends`)).items, []);
      assert.equal((await get(`${BOB}/ots`)).signatures, 0);

      // A branch from block 1: no create, no multisig address.
      c.fork(6, Array.from({ length: 6 }, () => () => {}));
      c.block();
      await ingest(store, c.source());
      await get(`${MS}/multisig`, 404);
      assert.equal((await get(`${ALICE}/ots`)).next_unused_index, 0);
      // Every multisig table is empty again.
      const [left] = await store.query<{ n: number }>(
        't',
        sql`SELECT (SELECT count(*) FROM multisig_addresses) + (SELECT count(*) FROM multisig_signatories) + (SELECT count(*) FROM multisig_spends)
                 + (SELECT count(*) FROM multisig_spend_recipients) + (SELECT count(*) FROM multisig_votes) AS n`,
      );
      assert.equal(Number(left!.n), 0);
    } finally {
      await t.close();
    }
  });
});

describeOnOneStore('pow multisig votes by QRL\'s rules', (getStore) => {
  it('lists the votes a node would refuse as not counted: a non-signatory, a repeat, after execution, after the expiry', async () => {
    const store = getStore();
    const late = hash('the late spend');
    const c = new ChainBuilder('pow', 1_700_000_000, 60);
    c.block((b) => b.genesis([{ address: ALICE, amount: coins('pow', 100) }, { address: BOB, amount: coins('pow', 100) }, { address: CAROL, amount: coins('pow', 100) }]));
    c.block((b) => {
      add(b, { type: 'multi_sig_create', hash: CREATE, from: ALICE, otsIndex: 0, multiSig: { kind: 'create', address: MS, signatories: [{ address: ALICE, weight: 1 }, { address: BOB, weight: 1 }], threshold: 2 } });
      add(b, { type: 'transfer', from: ALICE, to: MS, value: 1000n, recipients: [{ to: MS, amount: 1000n }], otsIndex: 1 });
    });
    c.block((b) => {
      add(b, { type: 'multi_sig_spend', hash: SPEND, from: ALICE, to: MS, otsIndex: 2, multiSig: { kind: 'spend', multiSigAddress: MS, recipients: [{ to: CAROL, amount: 600n }], expiryHeight: 10 } });
      add(b, { type: 'multi_sig_spend', hash: late, from: BOB, to: MS, otsIndex: 0, multiSig: { kind: 'spend', multiSigAddress: MS, recipients: [{ to: CAROL, amount: 300n }], expiryHeight: 4 } });
    });
    c.block((b) => {
      vote(b, CAROL, 0); // not a signatory
      vote(b, BOB, 1); // counts: weight 1
      vote(b, BOB, 2); // repeats Bob's vote
      vote(b, ALICE, 3, SPEND, true); // withdraws an approval Alice never gave
    });
    c.block((b) => {
      vote(b, ALICE, 4); // counts: weight 2, the threshold, and the address holds 1,000: executes
      vote(b, BOB, 3, SPEND, true); // after the execution
      vote(b, ALICE, 5, late); // counts (block 4 is the late spend's expiry): weight 1
    });
    c.block((b) => vote(b, BOB, 4, late)); // after its expiry
    c.block();
    await ingest(store, c.source());
    const t = await buildTestApp(store, { QUARRY_RATE_LIMIT_MAX: '100000' });
    try {
      const res = await t.app.inject({ url: `/api/v1/pow/addresses/${MS}/multisig/spends`, headers: AUTH });
      assert.equal(res.statusCode, 200, res.body);
      const [lateSpend, spend] = res.json().items;
      const votes = (item: { votes: { voter: string; unvote: boolean; counted: boolean }[] }) => item.votes.map((v) => [v.voter, v.unvote, v.counted]);
      assert.deepEqual(votes(spend), [[CAROL, false, false], [BOB, false, true], [BOB, false, false], [ALICE, true, false], [ALICE, false, true], [BOB, true, false]]);
      assert.deepEqual([spend.status, spend.approved_weight, spend.executed_by.height], ['executed', 2, 4]);
      assert.deepEqual(spend.signatories.map((g: { approves: boolean }) => g.approves), [true, true]);
      assert.deepEqual(votes(lateSpend), [[ALICE, false, true], [BOB, false, false]]);
      // Expired: the tip (6) is past its expiry (4) and one approval of two came by then.
      assert.deepEqual([lateSpend.status, lateSpend.approved_weight, lateSpend.executed_by], ['expired', 1, null]);
      const ms = (await t.app.inject({ url: `/api/v1/pow/addresses/${MS}/multisig`, headers: AUTH })).json();
      assert.deepEqual([ms.received, ms.spent, ms.balance, ms.spends], ['1000', '600', '400', { total: 2, open: 0, executed: 1, expired: 1 }]);
    } finally {
      await t.close();
    }
  });
});
