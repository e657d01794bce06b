/**
 * A run that follows a chain loads the holder population's balances when it starts (Chart.warm,
 * src/rollups/charts/supply/distribution.ts), so that its first midnight's close does not read
 * them back inside the block's transaction; and the figures stay those of a rebuild. After a server
 * crash emptied the state (an unlogged table), the start rebuilds it first.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import sql from 'sql-template-tag';
import { ingest } from '../../src/ingest/pipeline.ts';
import { refreshRollups } from '../../src/ingest/refresh.ts';
import type { Store } from '../../src/store/store.ts';
import { addr, ChainBuilder, coins } from '../support/chain-builder.ts';
import { emptyUnloggedTables } from '../support/crashing-store.ts';
import { figures, holdersByDay } from '../support/expected-population.ts';
import { describeEachStore, openTestStore } from '../support/stores.ts';

const BALANCES = 'rollups.charts.population.balances';
const MOVERS = 'rollups.charts.population.movers';
const REBUILD = 'rollups.charts.population.rebuild_state';
const count = (store: Store, label: string) => store.stats().get(label)?.count ?? 0;
const supplyDays = (store: Store) =>
  store.query<Record<string, unknown>>('test.supply_daily', sql`SELECT day::text AS day, holders, supply::text AS supply, top10::text AS top10 FROM chain_supply_daily WHERE chain = 'pos' ORDER BY day`);

describeEachStore('the population state loaded when a run starts', (_getStore, kind) => {
  for (const crashed of [false, true]) {
    it(`closes the first midnight from the balances loaded at the start, with the figures of a rebuild${crashed ? ', after a crash emptied the state' : ''}`, async () => {
      const chain = 'pos';
      const [alice, bob, carol] = [addr(chain, 'warm alice'), addr(chain, 'warm bob'), addr(chain, 'warm carol')];
      const builder = new ChainBuilder(chain, Date.UTC(2026, 2, 1, 12) / 1000, 12);
      builder.block((b) => b.genesis([{ address: alice, amount: coins(chain, 1000) }]));
      // A block every half day (3,600 block times of 12 s): each second block passes a midnight.
      for (let i = 0; i < 8; i++) builder.block((b) => b.transfer(i % 2 ? bob : alice, i % 3 ? carol : bob, coins(chain, 1 + i)), { gap: 3600 });
      const firstRun = 7;

      const store = await openTestStore(kind);
      const other = await openTestStore(kind);
      try {
        await ingest(store, builder.source(), { toHeight: firstRun - 1 });
        // Another store's closes leave the process holding its state, not this one's: as after a restart.
        await ingest(other, builder.source());
        if (crashed) assert.ok((await emptyUnloggedTables(store)).includes('holder_state'));

        const atStoreLevel: string[] = [];
        const watched: Store = {
          ...store,
          query: (label, statement, options) => {
            atStoreLevel.push(label);
            return store.query(label, statement, options);
          },
        };
        const [balances, movers] = [count(store, BALANCES), count(store, MOVERS)];
        const rebuilds = count(store, REBUILD);
        await ingest(watched, builder.source());
        assert.ok(count(store, MOVERS) > movers, 'a day was closed');
        assert.equal(count(store, REBUILD), rebuilds + (crashed ? 1 : 0), crashed ? 'the emptied state was rebuilt once' : 'nothing was rebuilt');
        assert.ok(atStoreLevel.includes(BALANCES), 'the balances were read when the run started, outside any block transaction');
        assert.equal(count(store, BALANCES), balances + 1, 'and not again by the close');

        const followed = await supplyDays(store);
        // Each closed day against the holders summed from the blocks themselves (every day but the tip's).
        const expected = [...holdersByDay(chain, builder.blocks)].slice(0, -1).map(([day, holders]) => {
          const f = figures(holders.map((h) => h.balance));
          return { day, holders: f.holders, supply: f.supply.toString(), top10: f.top(10).toString() };
        });
        assert.deepEqual(followed, expected);
        await refreshRollups(store, chain);
        assert.deepEqual(followed, await supplyDays(store));
        assert.ok(followed.length >= 4);
      } finally {
        await store.close();
        await other.close();
      }
    });
  }
});
