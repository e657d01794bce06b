/** GET /addresses/{address}/token-holdings against figures computed from the blocks. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { addr } from '../../support/chain-builder.ts';
import { expectedFromBlocks } from '../../support/expected.ts';
import { describeSeededApp } from '../../support/seeded-app.ts';
import { POS, POW, addressGetter } from './fixtures.ts';
import { loadHoldingsChains } from './holdings-fixtures.ts';

const iso = (ts: number) => new Date(ts * 1000).toISOString().slice(0, 19);

/** Display of a raw amount: whole part, a point and the fraction without trailing zeros. */
function display(raw: bigint, decimals: number): string {
  const unit = 10n ** BigInt(decimals);
  const fraction = (raw % unit).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${raw / unit}${fraction ? `.${fraction}` : ''}`;
}

describeSeededApp('GET /addresses/{address}/token-holdings', loadHoldingsChains, (s) => {
  const chains = () => s.seeded();
  const get = addressGetter(s.t);

  it('token holdings: positive balances, largest display amount first, exact display strings', async () => {
    const expected = expectedFromBlocks('pos', chains().pos.blocks);
    const info = new Map(chains().pos.blocks.flatMap((b) => b.tokens).map((token) => [token.contract, token]));
    const lastTransfer = (holder: string, contract: string) =>
      Math.max(...chains().pos.blocks.filter((b) => b.transactions.some((tx) => tx.tokenTransfers.some((tt) => tt.contract === contract && (tt.to === holder || tt.from === holder)))).map((b) => b.timestamp));
    const transfers = (holder: string, contract: string) =>
      chains().pos.blocks.flatMap((b) => b.transactions.flatMap((tx) => tx.tokenTransfers)).filter((tt) => tt.contract === contract && (tt.to === holder || tt.from === holder)).length;
    for (const holder of [POS.alice, POS.bob, POS.carol]) {
      const holdings = [...expected.tokens]
        .filter(([key, balance]) => key.startsWith(`${holder}|`) && balance > 0n)
        .map(([key, balance]) => {
          const contract = key.split('|')[1]!;
          const token = info.get(contract)!;
          return {
            token_contract: contract,
            token_name: token.name,
            token_symbol: token.symbol,
            token_decimals: token.decimals,
            balance_raw: balance.toString(),
            balance_display: display(balance, token.decimals ?? 0),
            transfer_count: transfers(holder, contract),
            last_activity: iso(lastTransfer(holder, contract)),
          };
        })
        // Richest first by the displayed amount, compared exactly.
        .sort((x, y) => {
          const scale = (h: typeof x) => BigInt(h.balance_raw) * 10n ** BigInt(36 - (h.token_decimals ?? 0));
          return scale(y) > scale(x) ? 1 : scale(y) < scale(x) ? -1 : x.token_contract < y.token_contract ? -1 : 1;
        });
      const body = await get(holder, 'token-holdings');
      assert.deepEqual(body.items, holdings, holder);
      assert.equal(body.count, holdings.length);
      assert.deepEqual((await get(holder, 'token-holdings?limit=1')).items, holdings.slice(0, 1));
    }
    // alice: 3 SIX (raw 3,000,000) outranks 1.5 EIG (raw 1.5e18).
    const alice = await get(POS.alice, 'token-holdings');
    assert.deepEqual(alice.items.map((i: any) => [i.token_symbol, i.balance_display]), [['SIX', '3'], ['EIG', '1.5']]);
    const bob = await get(POS.bob, 'token-holdings');
    assert.deepEqual(bob.items.map((i: any) => [i.token_symbol, i.balance_raw, i.balance_display]), [['EIG', '500000000000000000', '0.5'], ['SIX', '1', '0.000001']]);
  });

  it('token holdings: empty on pow, for an unknown address and for one that holds nothing', async () => {
    for (const address of [POW.user, POW.buyer, addr('pos', 'nobody'), POS.dave]) {
      const body = await get(address, 'token-holdings');
      assert.deepEqual(body.items, []);
      assert.equal(body.count, 0);
    }
  });
});
