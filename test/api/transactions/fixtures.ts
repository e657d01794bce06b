/**
 * The chains of the transactions suites: the address fixtures' chains plus what only a transaction
 * page shows (a pow token creation and its transfers, a 100-recipient payout, a migration burn whose
 * pos mint is stored, lattice keys, a multi-signature address with a spend and a vote), and the oracle of a transaction computed from the canonical blocks.
 */
import assert from 'node:assert/strict';
import { multiSigAddress } from '../../../src/chain/addresses.ts';
import { POW_COINBASE_SENTINEL, type ChainId } from '../../../src/chain/chains.ts';
import { emptyTx, type CanonicalBlock, type CanonicalTx } from '../../../src/chain/model.ts';
import { AUTH, type TestApp } from '../../support/app.ts';
import { addr, hash, type ChainBuilder } from '../../support/chain-builder.ts';
import { snapshotSeed } from '../../support/snapshots.ts';
import { expectedTransactionRow } from '../../support/expected-transaction.ts';
import { ingestChain, POW, posChain, powChain } from '../addresses/fixtures.ts';

export const TOKEN_HASH = hash('pow-token-creation');
export const PAYEES = Array.from({ length: 100 }, (_, i) => addr('pow', `payee-${i}`));
export const MIGRATION_ADDRESS = addr('pow', 'migration');
export const MULTISIG_CREATE_HASH = hash('pow-multisig-create');
export const MULTISIG_ADDRESS = multiSigAddress(MULTISIG_CREATE_HASH);
export const MULTISIG_SPEND_HASH = hash('pow-multisig-spend');

function transactionChains(): { pow: ChainBuilder; pos: ChainBuilder } {
  const pow = powChain(20);
  pow.block((b) => {
    // A token created with three initial balances (one holder twice), then moved.
    const creation = emptyTx({ hash: TOKEN_HASH, index: 0, type: 'token', from: POW.exchange, fee: 800n, otsIndex: 7 });
    creation.tokenTransfers = [POW.user, POW.buyer, POW.user].map((to, i) => ({ logIndex: i, contract: TOKEN_HASH, from: POW_COINBASE_SENTINEL, to, amount: 1000n * BigInt(i + 1) }));
    b.block.transactions.push(creation);
    b.block.tokens.push({ contract: TOKEN_HASH, name: 'Quarry Token', symbol: 'QRY', decimals: 3, creator: POW.exchange, createdTx: TOKEN_HASH });
    const move = emptyTx({
      hash: hash('pow-token-move'), index: 1, type: 'transfer_token', from: POW.user, fee: 300n, otsIndex: 8,
      recipients: [{ to: POW.m1, amount: 0n }, { to: POW.m2, amount: 0n }],
    });
    move.tokenTransfers = [{ logIndex: 0, contract: TOKEN_HASH, from: POW.user, to: POW.m1, amount: 40n }, { logIndex: 1, contract: TOKEN_HASH, from: POW.user, to: POW.m2, amount: 2n }];
    b.block.transactions.push(move);
    b.multiTransfer(POW.exchange, PAYEES.map((to, i) => ({ to, amount: 10n + BigInt(i) })), 5000n, { otsIndex: 9 });
    const burn = b.transfer(POW.exchange, MIGRATION_ADDRESS, 777_000n, { ots: 10 });
    burn.migration = { accountId: 'acct-1', role: 'burn' };
    b.coinbase(POW.pool, 6_000_000_000n);
  });
  pow.block((b) => {
    // Lattice keys, and a multi-signature address made, a spend proposed from it and a vote on it.
    const next = () => b.block.transactions.length;
    const lattice = emptyTx({ hash: hash('pow-lattice'), index: next(), type: 'latticePK', from: POW.user, fee: 250n, otsIndex: 20 });
    lattice.lattice = { kyberPk: 'ab'.repeat(40), dilithiumPk: 'cd'.repeat(48), ecdsaPk: '' };
    b.block.transactions.push(lattice);
    const create = emptyTx({ hash: MULTISIG_CREATE_HASH, index: next(), type: 'multi_sig_create', from: POW.exchange, fee: 400n, otsIndex: 21 });
    create.multiSig = { kind: 'create', address: MULTISIG_ADDRESS, signatories: [{ address: POW.user, weight: 1 }, { address: POW.buyer, weight: 2 }], threshold: 2 };
    b.block.transactions.push(create);
    const spend = emptyTx({ hash: MULTISIG_SPEND_HASH, index: next(), type: 'multi_sig_spend', from: POW.user, to: MULTISIG_ADDRESS, fee: 300n, otsIndex: 22 });
    spend.multiSig = { kind: 'spend', multiSigAddress: MULTISIG_ADDRESS, recipients: [{ to: POW.m1, amount: 500n }, { to: POW.m2, amount: 25n }], expiryHeight: b.block.height + 100 };
    b.block.transactions.push(spend);
    const vote = emptyTx({ hash: hash('pow-multisig-vote'), index: next(), type: 'multi_sig_vote', from: POW.buyer, fee: 200n, otsIndex: 23, input: MULTISIG_SPEND_HASH });
    vote.multiSig = { kind: 'vote', sharedKey: MULTISIG_SPEND_HASH, unvote: false };
    b.block.transactions.push(vote);
    b.coinbase(POW.pool, 6_000_000_000n);
  });
  return { pow, pos: posChain(20) };
}

/** The transactions chains loaded, a seed shared by the test files of a run; the tests get the chains. */
export const loadTransactionChains = snapshotSeed(
  'transaction-chains',
  async (store) => {
    const { pow, pos } = transactionChains();
    await ingestChain(store, pow);
    await ingestChain(store, pos);
  },
  async () => transactionChains(),
);

export { isoSeconds as iso } from '../../support/expected-transaction.ts';

/** Every transaction of `blocks` with its block, newest first (height, then position, descending). */
export function newestFirst(blocks: CanonicalBlock[]): { block: CanonicalBlock; tx: CanonicalTx }[] {
  return blocks.flatMap((block) => block.transactions.map((tx) => ({ block, tx }))).sort((a, b) => b.block.height - a.block.height || b.tx.index - a.tx.index);
}

/** A transaction as the list shows it, from the block alone. */
export function expectedItem(chain: ChainId, network: string, block: CanonicalBlock, tx: CanonicalTx): Record<string, unknown> {
  return { ...expectedTransactionRow(chain, network, block, tx, { to: tx.to, value: tx.value, index: null }), recipient_count: tx.recipients?.length ?? 1 };
}

/** GET `path` under /api/v1 on a suite's app, asserting `status`, answering the JSON body. */
export function getter(app: () => TestApp) {
  return async (path: string, status = 200) => {
    const res = await app().app.inject({ url: `/api/v1/${path}`, headers: AUTH });
    assert.equal(res.statusCode, status, res.body);
    return res.json();
  };
}

/** Every item of a cursor list, page by page. */
export async function walk(get: ReturnType<typeof getter>, path: string, limit: number): Promise<{ items: unknown[]; pages: number; totals: unknown[] }> {
  const items: unknown[] = [];
  const totals: unknown[] = [];
  let pages = 0;
  let cursor: string | null = null;
  const sep = path.includes('?') ? '&' : '?';
  do {
    const body = await get(`${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.equal(body.count, body.items.length);
    assert.equal(body.limit, limit);
    assert.ok(body.items.length <= limit);
    assert.equal(body.has_more, body.next_cursor !== null);
    items.push(...body.items);
    totals.push(body.total);
    cursor = body.next_cursor;
    pages++;
  } while (cursor !== null);
  return { items, pages, totals };
}
