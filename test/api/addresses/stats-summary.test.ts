/** GET /addresses/stats/summary against figures computed from the blocks. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ChainId } from '../../../src/chain/chains.ts';
import { AUTH } from '../../support/app.ts';
import { addr, coins, type ChainBuilder } from '../../support/chain-builder.ts';
import { expectedFromBlocks } from '../../support/expected.ts';
import { describeSeededApp } from '../../support/seeded-app.ts';
import { ingestChain, posChain, powChain } from './fixtures.ts';

/** Nothing is seeded: the first test wants an empty store, the second indexes its own chains. */
const nothing = async () => undefined;

describeSeededApp('GET /addresses/stats/summary', nothing, (s) => {
  const get = async (chain: ChainId) => {
    const res = await s.t().app.inject({ url: `/api/v1/${chain}/addresses/stats/summary`, headers: AUTH });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };

  it('answers zeros and a null active_24h before any block is indexed', async () => {
    for (const chain of ['pow', 'pos'] as const) {
      assert.deepEqual(await get(chain), { chain, network: `testnet-${chain}`, total_addresses: 0, active_24h: null, total_address_tx_touches: 0 });
    }
  });

  it('counts the addresses, the addresses active in the 24 hours up to the tip, and their transactions', async () => {
    const chains: Record<ChainId, ChainBuilder> = { pow: powChain(), pos: posChain() };
    // After a quiet day and a half, one transfer: only its two parties (and the pow miner) are recent.
    const pow = addr('pow', 'late-sender');
    chains.pow.block((b) => {
      b.coinbase(addr('pow', 'pool'), coins('pow', 5));
      b.transfer(addr('pow', 'user'), pow, coins('pow', 1));
    }, { gap: Math.ceil((36 * 3600) / chains.pow.blockTime) });
    chains.pos.block((b) => b.transfer(addr('pos', 'alice'), addr('pos', 'late-payee'), coins('pos', 1)), { gap: Math.ceil((36 * 3600) / chains.pos.blockTime) });
    for (const chain of ['pow', 'pos'] as const) {
      const c = chains[chain];
      await ingestChain(s.store(), c);
      const expected = expectedFromBlocks(chain, c.blocks);
      const tip = c.blocks.at(-1)!.timestamp;
      const addresses = [...expected.addresses.values()];
      const active = addresses.filter((a) => a.lastSeen !== null && a.lastSeen > tip - 86_400).length;
      // The fixture chains span several days: the window must hold some addresses and not all.
      assert.ok(active > 0 && active < addresses.length, `${chain}: ${active} of ${addresses.length} active`);
      assert.deepEqual(await get(chain), {
        chain,
        network: `testnet-${chain}`,
        total_addresses: addresses.length,
        active_24h: active,
        total_address_tx_touches: addresses.reduce((sum, a) => sum + a.txCount, 0),
      });
    }
  });
}, { env: { QUARRY_POW_NETWORK: 'testnet-pow', QUARRY_POS_NETWORK: 'testnet-pos' } });
