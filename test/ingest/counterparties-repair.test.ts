/**
 * A reorg that takes back a pair's last interaction leaves the pair's `last_ts` at the newest one that
 * remains, whichever way the two addresses met before: a single transfer either way, or a
 * multi-recipient transfer sent or received by the quieter of the two.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import sql from 'sql-template-tag';
import { isSentinel } from '../../src/chain/chains.ts';
import type { CanonicalBlock } from '../../src/chain/model.ts';
import { ingest } from '../../src/ingest/pipeline.ts';
import { addr, ChainBuilder, coins } from '../support/chain-builder.ts';
import { describeEachStore } from '../support/stores.ts';

const T0 = Date.UTC(2026, 2, 1) / 1000;

/** address|counterparty -> time of their newest transaction with value legs between them, from the blocks. */
function lastInteractions(blocks: CanonicalBlock[]): Map<string, number> {
  const last = new Map<string, number>();
  const meet = (a: string, b: string, ts: number) => last.set(`${a}|${b}`, Math.max(last.get(`${a}|${b}`) ?? 0, ts));
  for (const block of blocks) {
    for (const tx of block.transactions) {
      if (isSentinel('pow', tx.from)) continue;
      const recipients = tx.recipients?.map((r) => r.to) ?? [tx.to ?? tx.contractAddress].filter((a) => a !== null);
      for (const to of recipients) {
        if (isSentinel('pow', to)) continue;
        meet(tx.from, to, block.timestamp);
        meet(to, tx.from, block.timestamp);
      }
    }
  }
  return last;
}

describeEachStore('counterparties after a reorg', (getStore) => {
  it('each pair keeps the newest interaction that remains', async () => {
    const [busy, quiet1, quiet2, quiet3, quiet4, other] = ['busy', 'q1', 'q2', 'q3', 'q4', 'other'].map((n) => addr('pow', n)) as string[];
    const c = new ChainBuilder('pow', T0, 60);
    c.block((b) => b.genesis([busy!, quiet1!, quiet2!, quiet3!, quiet4!].map((address) => ({ address, amount: coins('pow', 1000) }))));
    // Each quiet address meets the busy one once, a different way.
    c.block((b) => void b.multiTransfer(busy!, [{ to: quiet1!, amount: 10n }, { to: other!, amount: 10n }]));
    c.block((b) => void b.multiTransfer(quiet2!, [{ to: busy!, amount: 10n }, { to: other!, amount: 10n }]));
    c.block((b) => void b.transfer(busy!, quiet3!, 10n));
    c.block((b) => void b.transfer(quiet4!, busy!, 10n));
    // The busy address's history since, which the repair must not have to read for every pair.
    for (let i = 0; i < 30; i++) c.block((b) => void b.transfer(busy!, addr('pow', `payee-${i}`), 1n));
    // The block the reorg takes back: each pair meets again.
    c.block((b) => {
      for (const quiet of [quiet1!, quiet2!, quiet3!, quiet4!]) {
        b.transfer(busy!, quiet, 1n);
        b.transfer(quiet, busy!, 1n);
      }
    });
    c.fork(1, [(b) => void b.transfer(busy!, other!, 1n)]);
    c.block();

    const result = await ingest(getStore(), c.source(), { batchBlocks: 1 });
    assert.equal(result.reorgs, 1);
    const rows = await getStore().query<{ address: string; counterparty: string; last_ts: number }>(
      'test.pairs',
      sql`SELECT address, counterparty, last_ts FROM address_counterparties WHERE chain = 'pow'`,
    );
    const expected = lastInteractions(c.blocks);
    assert.deepEqual(new Map(rows.map((r) => [`${r.address}|${r.counterparty}`, Number(r.last_ts)])), expected);
    // The four ways are all there, each at its own block's time (2 to 5).
    for (const [i, quiet] of [quiet1!, quiet2!, quiet3!, quiet4!].entries()) {
      assert.equal(expected.get(`${busy}|${quiet}`), T0 + 60 * (i + 1));
      assert.equal(expected.get(`${quiet}|${busy}`), T0 + 60 * (i + 1));
    }
  });
});
