/** GET /addresses/{address}/provenance against figures computed from the blocks. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ChainId } from '../../../src/chain/chains.ts';
import type { CanonicalBlock } from '../../../src/chain/model.ts';
import { addr } from '../../support/chain-builder.ts';
import { expectedFromBlocks } from '../../support/expected.ts';
import { describeSeededApp } from '../../support/seeded-app.ts';
import { chainOf, POS, POW, addressGetter } from './fixtures.ts';
import { loadRollupChains, ROLLUP_ADDRESSES } from './rollup-fixtures.ts';

const iso = (ts: number) => new Date(ts * 1000).toISOString().slice(0, 19);

/** Time of the first positive credit of an address, in the order the chain applies them. */
function firstCredit(chain: ChainId, blocks: CanonicalBlock[], address: string): number | null {
  for (const block of blocks) {
    const credits = [
      ...block.allocations.map((a) => [a.address, a.amount] as const),
      ...block.transactions.flatMap((tx) => [
        ...(tx.status !== 0 && (tx.to ?? tx.contractAddress) ? [[tx.to ?? tx.contractAddress!, tx.value] as const] : []),
        ...(tx.recipients ?? []).map((r) => [r.to, r.amount] as const),
        ...(tx.status !== 0 ? tx.internal.map((f) => [f.to, f.value] as const) : []),
      ]),
      ...block.withdrawals.map((w) => [w.address, w.amount] as const),
      ...(chain === 'pos' && block.miner ? [[block.miner, block.transactions.reduce((s, tx) => s + tx.fee - tx.burned, 0n)] as const] : []),
    ];
    if (credits.some(([to, amount]) => to === address && amount > 0n)) return block.timestamp;
  }
  return null;
}

describeSeededApp('GET /addresses/{address}/provenance', loadRollupChains, (s) => {
  const chains = () => s.seeded();
  const get = addressGetter(s.t);

  for (const address of ROLLUP_ADDRESSES) {
    const chain = chainOf(address);
    it(`${chain} ${address.slice(0, 8)}: provenance`, async () => {
      const blocks = chains()[chain].blocks;
      const a = expectedFromBlocks(chain, blocks).addresses.get(address);
      const provenance = await get(address, 'provenance');
      const funded = firstCredit(chain, blocks, address);
      assert.deepEqual(provenance, {
        funded_by: a?.fundedBy ?? null,
        funded_at: funded === null ? null : iso(funded),
        funded_tx: a?.fundedTx ?? null,
        first_tx: a?.firstTx ?? null,
        first_tx_at: a?.firstSeen ? iso(a.firstSeen) : null,
        last_tx: a?.lastTx ?? null,
        last_tx_at: a?.lastSeen ? iso(a.lastSeen) : null,
        chain,
        network: s.t().config.networks[chain],
        address,
      });
    });
  }

  it('a mint funds from its sentinel; genesis and withdrawals fund without a sender', async () => {
    assert.equal((await get(POS.claimer, 'provenance')).funded_by, 'Q' + '0'.repeat(40));
    assert.equal((await get(POS.dave, 'provenance')).funded_by, POS.router, 'an internal transfer funds from its contract');
    const alice = await get(POS.alice, 'provenance');
    assert.equal(alice.funded_by, null);
    assert.equal(alice.funded_tx, null);
    assert.equal(alice.funded_at, iso(chains().pos.blocks[0]!.timestamp));
    assert.equal((await get(POW.pool, 'provenance')).funded_by, 'Q' + '0'.repeat(64));
  });

  it('unknown addresses: nulls', async () => {
    for (const address of [addr('pow', 'nobody'), addr('pos', 'nobody')]) {
      const chain = chainOf(address);
      const echo = { chain, network: s.t().config.networks[chain], address };
      assert.deepEqual(await get(address, 'provenance'), {
        funded_by: null, funded_at: null, funded_tx: null, first_tx: null, first_tx_at: null, last_tx: null, last_tx_at: null, ...echo,
      });
    }
  });
});
