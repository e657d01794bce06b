import assert from 'node:assert/strict';
import { it } from 'node:test';
import sql from 'sql-template-tag';
import { ingest } from '../../src/ingest/pipeline.ts';
import { addr, ChainBuilder, coins } from '../support/chain-builder.ts';
import { describeEachStore } from '../support/stores.ts';

const T0 = Date.UTC(2026, 0, 1, 22, 0, 0) / 1000;

describeEachStore('migration pairs', (getStore) => {
  it('pairs each pow burn with the pos mint of the same account id', async () => {
    const pow = new ChainBuilder('pow', T0);
    const pos = new ChainBuilder('pos', T0 + 3600);
    const [holder, migration] = [addr('pow', 'holder'), addr('pow', 'migration')];
    const claimant = addr('pos', 'claimant');
    pow.block((b) => b.genesis([{ address: holder, amount: coins('pow', 100) }]));
    pow.block((b) => {
      const burn = b.transfer(holder, migration, coins('pow', 40));
      burn.migration = { accountId: 'acct-7', role: 'burn' };
      const unclaimed = b.transfer(holder, migration, coins('pow', 1));
      unclaimed.migration = { accountId: 'acct-8', role: 'burn' };
    });
    pos.block();
    pos.block((b) => void b.mint(claimant, coins('pos', 40), 'acct-7'));
    await ingest(getStore(), pow.source());
    await ingest(getStore(), pos.source());
    const pairs = await getStore().query<Record<string, any>>('test.pairs', sql`SELECT * FROM migration_pairs ORDER BY account_id`);
    assert.deepEqual(
      pairs.map((p) => [p.account_id, p.pow_address, p.burned_shor, p.pos_address, p.minted_planck]),
      [
        ['acct-7', holder, coins('pow', 40).toString(), claimant, coins('pos', 40).toString()],
        ['acct-8', holder, coins('pow', 1).toString(), null, null],
      ],
    );
  });
});
