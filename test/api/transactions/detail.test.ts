/** GET /{chain}/transactions/{hash} against the canonical blocks: every field, every list, 400s and 404s. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { CHAINS, type ChainId } from '../../../src/chain/chains.ts';
import type { CanonicalBlock, CanonicalTx, MultiSigBody } from '../../../src/chain/model.ts';
import { describeSeededApp } from '../../support/seeded-app.ts';
import { POS, POW } from '../addresses/fixtures.ts';
import { expectedItem, getter, iso, loadTransactionChains, MULTISIG_ADDRESS, MULTISIG_SPEND_HASH, newestFirst, PAYEES, TOKEN_HASH } from './fixtures.ts';

type Chains = { pow: { blocks: CanonicalBlock[] }; pos: { blocks: CanonicalBlock[] } };

/** Token metadata as the blocks declare it. */
function tokensOf(blocks: CanonicalBlock[]): Map<string, { name: string | null; symbol: string | null; decimals: number | null; creator: string | null }> {
  return new Map(blocks.flatMap((b) => b.tokens.map((t) => [t.contract, t] as const)));
}

/** The whole page of `tx`, computed from the blocks alone. */
function expectedPage(chains: Chains, chain: ChainId, network: string, block: CanonicalBlock, tx: CanonicalTx): Record<string, unknown> {
  const blocks = chains[chain].blocks;
  const tokens = tokensOf(blocks);
  const tip = blocks.at(-1)!.height;
  const created = tx.type === 'token' ? tx.hash : tx.contractAddress;
  const token = created === null ? undefined : tokens.get(created);
  const other = chain === 'pow' ? chains.pos.blocks : chains.pow.blocks;
  const counterpart = tx.migration
    ? other.flatMap((b) => b.transactions.filter((t) => t.migration?.accountId === tx.migration!.accountId).map((t) => ({ b, t })))[0]
    : undefined;
  return {
    ...expectedItem(chain, network, block, tx),
    recipients: (tx.recipients ?? []).map((r, i) => ({ recipient_index: i, to_addr: r.to, amount: r.amount.toString() })),
    token_transfers: [...tx.tokenTransfers].sort((a, b) => a.logIndex - b.logIndex).map((x) => ({
      log_index: x.logIndex, contract: x.contract, from_addr: x.from, to_addr: x.to, amount: x.amount.toString(),
      token_name: tokens.get(x.contract)?.name ?? null, token_symbol: tokens.get(x.contract)?.symbol ?? null, token_decimals: tokens.get(x.contract)?.decimals ?? null,
    })),
    internal_transfers: tx.internal.map((f) => ({ trace_address: f.traceAddress, call_type: f.callType, from_addr: f.from, to_addr: f.to, value: f.value.toString() })),
    burned: chain === 'pos' ? tx.burned.toString() : null,
    max_fee_per_gas: tx.maxFeePerGas === null ? null : tx.maxFeePerGas.toString(),
    max_priority_fee_per_gas: tx.maxPriorityFeePerGas === null ? null : tx.maxPriorityFeePerGas.toString(),
    confirmations: tip - block.height,
    ots_index: tx.otsIndex,
    migration: tx.migration
      ? {
          account_id: tx.migration.accountId,
          role: tx.migration.role,
          amount: tx.value.toString(),
          counterpart: counterpart
            ? {
                chain: chain === 'pow' ? 'pos' : 'pow', role: counterpart.t.migration!.role, tx_hash: counterpart.t.hash, height: counterpart.b.height,
                timestamp: iso(counterpart.b.timestamp), from_addr: counterpart.t.from, to_addr: counterpart.t.to ?? counterpart.t.recipients?.[0]?.to ?? '',
                amount: counterpart.t.value.toString(),
              }
            : null,
        }
      : null,
    slave_keys: tx.type === 'slave' ? tx.slaves.map((s) => ({ slave_address: s.slave, access_type: s.accessType })).sort((a, b) => (a.slave_address < b.slave_address ? -1 : 1)) : null,
    token: token
      ? {
          address: created, name: token.name, symbol: token.symbol, decimals: token.decimals, creator: token.creator,
          total_supply: chain === 'pow' ? tx.tokenTransfers.reduce((sum, x) => sum + x.amount, 0n).toString() : null,
        }
      : null,
    lattice_keys: tx.lattice ? { kyber_pk: tx.lattice.kyberPk, dilithium_pk: tx.lattice.dilithiumPk, ecdsa_pk: tx.lattice.ecdsaPk } : null,
    multi_sig: tx.multiSig ? expectedMultiSig(blocks, tx.multiSig) : null,
  };
}

/** A multi-signature body as the page shows it: every kind's fields, those of the other kinds null. */
function expectedMultiSig(blocks: CanonicalBlock[], body: MultiSigBody): Record<string, unknown> {
  const none = { multisig_address: null, threshold: null, signatories: null, recipients: null, total: null, expiry_height: null, spend_tx_hash: null, unvote: null };
  switch (body.kind) {
    case 'create':
      return { ...none, kind: 'create', multisig_address: body.address, threshold: body.threshold, signatories: body.signatories };
    case 'spend':
      return {
        ...none, kind: 'spend', multisig_address: body.multiSigAddress, expiry_height: body.expiryHeight,
        recipients: body.recipients.map((r, i) => ({ recipient_index: i, to_addr: r.to, amount: r.amount.toString() })),
        total: body.recipients.reduce((sum, r) => sum + r.amount, 0n).toString(),
      };
    case 'vote': {
      const spend = blocks.flatMap((b) => b.transactions).find((t) => t.hash === body.sharedKey)?.multiSig;
      return { ...none, kind: 'vote', spend_tx_hash: body.sharedKey, unvote: body.unvote, multisig_address: spend?.kind === 'spend' ? spend.multiSigAddress : null };
    }
  }
}

describeSeededApp('GET /{chain}/transactions/{hash}', loadTransactionChains, (s) => {
  const get = getter(s.t);

  it('every stored transaction of both chains answers its whole page', async () => {
    for (const chain of CHAINS) {
      const { network } = await get(`${chain}/transactions?limit=1`);
      for (const { block, tx } of newestFirst(s.seeded()[chain].blocks)) {
        assert.deepEqual(await get(`${chain}/transactions/${tx.hash}`), expectedPage(s.seeded(), chain, network, block, tx), `${chain} ${tx.type} ${tx.hash}`);
      }
    }
  });

  it('the pages that show more than the list: recipients, tokens, internal frames, slaves, lattice keys, multi-sig bodies, migration legs', async () => {
    const pow = newestFirst(s.seeded().pow.blocks).map(({ tx }) => tx);
    const pos = newestFirst(s.seeded().pos.blocks).map(({ tx }) => tx);
    // Each shape is there (the oracle above computed the figures).
    const payout = await get(`pow/transactions/${pow.find((tx) => tx.recipients?.length === 100)!.hash}`);
    assert.deepEqual(payout.recipients.map((r: { to_addr: string }) => r.to_addr), PAYEES);
    const creation = await get(`pow/transactions/${TOKEN_HASH.toUpperCase()}`);
    assert.deepEqual(creation.token, { address: TOKEN_HASH, name: 'Quarry Token', symbol: 'QRY', decimals: 3, creator: POW.exchange, total_supply: '6000' });
    assert.equal(creation.token_transfers.length, 3);
    const move = await get(`pow/transactions/${pow.find((tx) => tx.type === 'transfer_token' && tx.tokenTransfers[0]?.contract === TOKEN_HASH)!.hash}`);
    assert.deepEqual(move.token_transfers.map((x: { token_symbol: string; amount: string }) => [x.token_symbol, x.amount]), [['QRY', '40'], ['QRY', '2']]);
    const slave = await get(`pow/transactions/${pow.find((tx) => tx.type === 'slave')!.hash}`);
    assert.deepEqual(slave.slave_keys, [{ slave_address: POW.slave, access_type: 0 }]);
    const message = await get(`pow/transactions/${pow.find((tx) => tx.type === 'message')!.hash}`);
    assert.equal(message.input_data, '48656c6c6f');
    const lattice = await get(`pow/transactions/${pow.find((tx) => tx.type === 'latticePK')!.hash}`);
    assert.deepEqual(lattice.lattice_keys, { kyber_pk: 'ab'.repeat(40), dilithium_pk: 'cd'.repeat(48), ecdsa_pk: '' });
    const spend = await get(`pow/transactions/${MULTISIG_SPEND_HASH}`);
    assert.deepEqual([spend.multi_sig.kind, spend.multi_sig.multisig_address, spend.multi_sig.total], ['spend', MULTISIG_ADDRESS, '525']);
    const vote = await get(`pow/transactions/${pow.find((tx) => tx.type === 'multi_sig_vote')!.hash}`);
    assert.deepEqual([vote.multi_sig.spend_tx_hash, vote.multi_sig.multisig_address, vote.multi_sig.unvote], [MULTISIG_SPEND_HASH, MULTISIG_ADDRESS, false]);
    const create = await get(`pow/transactions/${pow.find((tx) => tx.type === 'multi_sig_create')!.hash}`);
    assert.deepEqual([create.multi_sig.threshold, create.multi_sig.signatories.length, create.lattice_keys, slave.multi_sig], [2, 2, null, null]);
    const burn = await get(`pow/transactions/${pow.find((tx) => tx.migration)!.hash}`);
    const mint = pos.find((tx) => tx.migration)!;
    assert.equal(burn.migration.counterpart.tx_hash, mint.hash);
    assert.equal((await get(`pos/transactions/${mint.hash}`)).migration.counterpart.tx_hash, burn.tx_hash);
    // Trace addresses in numeric order: 0 … 11, not 0, 1, 10, 11, 2.
    const disperse = await get(`pos/transactions/${pos.find((tx) => tx.internal.length === 12)!.hash.toUpperCase().replace('0X', '0x')}`);
    assert.deepEqual(disperse.internal_transfers.map((f: { trace_address: string }) => f.trace_address), Array.from({ length: 12 }, (_, i) => String(i)));
    const tokens = await get(`pos/transactions/${pos.find((tx) => tx.tokenTransfers.length === 4)!.hash}`);
    assert.deepEqual(tokens.token_transfers.map((x: { token_symbol: string }) => x.token_symbol), ['EIG', 'EIG', 'SIX', 'SIX']);
    const reverted = await get(`pos/transactions/${pos.find((tx) => tx.status === 0)!.hash}`);
    assert.equal(reverted.status, 0);
    assert.notEqual(reverted.burned, '0');
    const created = await get(`pos/transactions/${pos.find((tx) => tx.contractAddress === POS.router)!.hash}`);
    assert.equal(created.to_addr, null);
    assert.equal(created.contract_address, POS.router);
    const newest = await get(`pos/transactions/${pos[0]!.hash}`);
    assert.equal(newest.confirmations, s.seeded().pos.blocks.at(-1)!.height - newest.height);
  });

  it('a malformed hash is a 400 naming hash; a well-formed unknown one is a 404', async () => {
    const hex = 'ab'.repeat(32);
    for (const bad of [`pos/transactions/${hex}`, `pos/transactions/0x${hex}0`, `pos/transactions/0x${'g'.repeat(64)}`, `pow/transactions/0x${hex}`, `pow/transactions/${hex.slice(1)}`, `pow/transactions/${'z'.repeat(64)}`]) {
      const body = await get(bad, 400);
      assert.deepEqual(body.errors.map((e: { param: string }) => e.param), ['hash'], bad);
    }
    const missing = await get(`pos/transactions/0x${hex}`, 404);
    assert.equal(missing.detail, `no pos transaction with hash 0x${hex} is stored`);
    await get(`pow/transactions/${hex.toUpperCase()}`, 404);
    // A pos hash on pow is malformed there; a pow hash is unknown on pos in its own form only.
    await get(`pow/transactions/${newestFirst(s.seeded().pos.blocks)[0]!.tx.hash}`, 400);
  });
});
