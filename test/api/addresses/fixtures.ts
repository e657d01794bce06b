/**
 * Small chains with every way an address can take part in a transaction, and an independent
 * computation of the per-address transaction feed straight from their canonical blocks.
 */
import assert from 'node:assert/strict';
import { AUTH, type TestApp } from '../../support/app.ts';
import { emptyTx, type CanonicalBlock, type CanonicalTx } from '../../../src/chain/model.ts';
import { POS_ZERO_ADDRESS, type ChainId } from '../../../src/chain/chains.ts';
import { ingest } from '../../../src/ingest/pipeline.ts';
import type { Store } from '../../../src/store/store.ts';
import { addr, ChainBuilder, coins, hash } from '../../support/chain-builder.ts';

/** 2026-01-05 (a Monday) 20:00 UTC: blocks cross several UTC days and weekdays. */
export const T0 = Date.UTC(2026, 0, 5, 20, 0, 0) / 1000;

export const POW = Object.fromEntries(
  ['pool', 'm1', 'm2', 'user', 'slave', 'exchange', 'buyer', 'quiet'].map((n) => [n, addr('pow', n)]),
) as Record<'pool' | 'm1' | 'm2' | 'user' | 'slave' | 'exchange' | 'buyer' | 'quiet', string>;

export const POS = Object.fromEntries(
  ['alice', 'bob', 'carol', 'dave', 'router', 'token6', 'token18', 'factory', 'child', 'claimer'].map((n) => [n, addr('pos', n)]),
) as Record<'alice' | 'bob' | 'carol' | 'dave' | 'router' | 'token6' | 'token18' | 'factory' | 'child' | 'claimer', string>;

/** A pow transaction added to a block by hand (for shapes the builder has no helper for). */
function addTx(block: CanonicalBlock, fields: Partial<CanonicalTx> & Pick<CanonicalTx, 'type' | 'from'>): CanonicalTx {
  const tx = emptyTx({ hash: hash('manual-tx', block.hash, block.transactions.length), index: block.transactions.length, ...fields });
  block.transactions.push(tx);
  return tx;
}

/**
 * pow: coinbases, multi-recipient payouts (one recipient twice), a single transfer with and one
 * without a recipient list, self-transfers (single, and inside a multi-recipient transfer), a
 * slave registration and slave-signed transactions (one multi-recipient), transfer_token rows,
 * messages; quiet days in between.
 */
export function powChain(blocks = 48): ChainBuilder {
  const c = new ChainBuilder('pow', T0, 2 * 3600);
  const { pool, m1, m2, user, slave, exchange, buyer } = POW;
  c.block((b) => b.genesis([{ address: user, amount: coins('pow', 500) }, { address: exchange, amount: coins('pow', 9000) }]));
  for (let i = 0; i < blocks; i++) {
    c.block(
      (b) => {
        if (i % 6 === 0) b.multiTransfer(pool, [{ to: m1, amount: 1000n }, { to: m2, amount: 2000n }, { to: m1, amount: 5n }], 3000n);
        if (i % 4 === 1) b.transfer(user, m2, 10_000n + BigInt(i), { ots: i });
        if (i === 2) b.slave(exchange, [slave]);
        if (i > 2 && i % 3 === 0) {
          // A withdrawal batch from the exchange, signed by its slave.
          b.multiTransfer(exchange, [{ to: buyer, amount: 70n + BigInt(i) }, { to: user, amount: 30n }], 2000n, {
            signer: slave, masterAddr: exchange, otsIndex: i,
          });
        }
        if (i > 2 && i % 5 === 2) {
          // A single transfer as a QRL node reports it: to_addr and a one-entry recipient list.
          const amount = 400n + BigInt(i);
          addTx(b.block, { type: 'transfer', from: exchange, to: user, value: amount, fee: 900n, recipients: [{ to: user, amount }], signer: slave, masterAddr: exchange, otsIndex: 100 + i });
        }
        if (i === 7) b.message(user, 100n, { otsIndex: 90 });
        if (i === 9) b.transfer(user, user, 77n, { ots: 91 }); // a self-transfer
        if (i === 11) b.multiTransfer(user, [{ to: user, amount: 11n }, { to: buyer, amount: 12n }], 1500n, { otsIndex: 92 });
        if (i === 13) {
          addTx(b.block, {
            type: 'transfer_token', from: buyer, fee: 700n, to: null, recipients: [{ to: user, amount: 0n }, { to: m2, amount: 0n }],
            tokenTransfers: [
              { logIndex: 0, contract: hash('token'), from: buyer, to: user, amount: 5n },
              { logIndex: 1, contract: hash('token'), from: buyer, to: m2, amount: 6n },
            ],
          });
        }
        b.coinbase(i % 8 === 5 ? m1 : pool, 6_000_000_000n);
      },
      { gap: i % 10 === 4 ? 30 : 1 }, // now and then quiet days
    );
  }
  return c;
}

/**
 * pos: transfers, a self-transfer, a reverted call, contract creations, a contract call with
 * internal transfers (one from the contract to itself), tokens of 6 and 18 decimals, withdrawals,
 * a migration mint.
 */
export function posChain(blocks = 30): ChainBuilder {
  const c = new ChainBuilder('pos', T0, 3 * 3600);
  const { alice, bob, carol, dave, router, token6, token18, factory, child, claimer } = POS;
  c.block((b) => b.genesis([{ address: alice, amount: coins('pos', 1000) }, { address: bob, amount: coins('pos', 50) }]));
  c.block((b) => {
    b.create(bob, router, 1000n);
    b.create(alice, factory);
    b.token(token6, 'Six', 'SIX', 6).token(token18, 'Eighteen', 'EIG', 18);
  });
  for (let i = 0; i < blocks; i++) {
    c.block((b) => {
      if (i % 3 === 0) b.transfer(alice, bob, coins('pos', 1) + BigInt(i));
      if (i % 4 === 1) b.transfer(bob, carol, 1000n + BigInt(i), { tip: 3n });
      if (i % 5 === 2) {
        b.contractCall(carol, router, coins('pos', 2), [
          { to: dave, value: 100n + BigInt(i) },
          { to: carol, value: 5n },
          { to: router, value: 7n }, // the contract pays itself
        ]);
      }
      if (i === 4) b.transfer(bob, bob, 7n); // a self-transfer
      if (i === 6) b.transfer(dave, alice, coins('pos', 1), { status: 0 }); // reverted: fee only
      if (i === 8) {
        const call = b.contractCall(alice, token18, 0n, []);
        b.tokenTransfer(call, token18, POS_ZERO_ADDRESS, alice, 2n * 10n ** 18n); // mint 2 tokens
        b.tokenTransfer(call, token18, alice, bob, 5n * 10n ** 17n); // 0.5 to bob
        b.tokenTransfer(call, token6, POS_ZERO_ADDRESS, alice, 3_000_000n); // 3 six-decimal tokens
        b.tokenTransfer(call, token6, POS_ZERO_ADDRESS, bob, 1n); // 0.000001
      }
      if (i === 10) b.create(factory, child); // a contract deploys a contract
      if (i === 12) b.mint(claimer, coins('pos', 3), 'acct-1');
      if (i === 14) {
        // A disperse call: twelve frames, trace addresses 0 … 11.
        b.contractCall(alice, router, 12_000n, Array.from({ length: 12 }, (_, k) => ({ to: addr('pos', `payee-${k}`), value: 1000n + BigInt(k) })));
      }
      if (i % 7 === 3) b.withdrawal(dave, 123_456_789n);
    }, { gap: i % 9 === 5 ? 20 : 1 });
  }
  return c;
}

export async function ingestChain(store: Store, chain: ChainBuilder): Promise<void> {
  await ingest(store, chain.source(), { batchBlocks: 7 });
}

export interface ExpectedRow {
  height: number;
  tx_index: number;
  ri: number;
  tx_hash: string;
  timestamp: number;
  from_addr: string;
  to_addr: string | null;
  recipient_index: number | null;
  value: string;
  fee: string;
  tx_type: string;
  contract_address: string | null;
  signer_addr: string | null;
}

export interface FeedFilters {
  direction?: 'in' | 'out' | 'both';
  txType?: string;
  from?: number;
  to?: number;
}

/** The feed of `address` computed from the blocks: one row per recipient, newest first. */
export function expectedFeed(blocks: CanonicalBlock[], address: string, filters: FeedFilters = {}): { rows: ExpectedRow[]; total: number } {
  const direction = filters.direction ?? 'both';
  const rows: ExpectedRow[] = [];
  const txs = new Set<string>();
  for (const block of blocks) {
    if (filters.from !== undefined && block.timestamp < filters.from) continue;
    if (filters.to !== undefined && block.timestamp >= filters.to) continue;
    for (const tx of block.transactions) {
      if (filters.txType !== undefined && tx.type !== filters.txType) continue;
      const sends = tx.from === address || tx.signer === address;
      const lines = tx.recipients
        ? tx.recipients.map((r, i) => ({ ri: i, to: r.to, value: r.amount, index: i as number | null, receives: r.to === address }))
        : [{ ri: 0, to: tx.to, value: tx.value, index: null, receives: tx.to === address || tx.contractAddress === address }];
      for (const line of lines) {
        const keep = direction === 'out' ? sends : direction === 'in' ? line.receives : sends || line.receives;
        if (!keep) continue;
        txs.add(tx.hash);
        rows.push({
          height: block.height, tx_index: tx.index, ri: line.ri, tx_hash: tx.hash, timestamp: block.timestamp,
          from_addr: tx.from, to_addr: line.to, recipient_index: line.index, value: line.value.toString(), fee: tx.fee.toString(),
          tx_type: tx.type, contract_address: tx.contractAddress, signer_addr: tx.signer,
        });
      }
    }
  }
  rows.sort((a, b) => b.height - a.height || b.tx_index - a.tx_index || b.ri - a.ri);
  return { rows, total: txs.size };
}

/** The fields of an API row that the oracle knows, for comparison. */
export function comparable(item: Record<string, unknown>): Omit<ExpectedRow, 'ri' | 'timestamp'> & { timestamp: string } {
  return {
    height: item.height as number,
    tx_index: item.tx_index as number,
    tx_hash: item.tx_hash as string,
    timestamp: item.timestamp as string,
    from_addr: item.from_addr as string,
    to_addr: item.to_addr as string | null,
    recipient_index: item.recipient_index as number | null,
    value: item.value as string,
    fee: item.fee as string,
    tx_type: item.tx_type as string,
    contract_address: item.contract_address as string | null,
    signer_addr: item.signer_addr as string | null,
  };
}

export function expectedComparable(row: ExpectedRow): ReturnType<typeof comparable> {
  const { ri: _ri, timestamp, ...rest } = row;
  return { ...rest, timestamp: new Date(timestamp * 1000).toISOString().slice(0, 19) };
}

export const chainOf = (address: string): ChainId => (address.length === 41 ? 'pos' : 'pow');

/** GET `/api/v1/{chain}/addresses/{address}/{path}` on a suite's app, asserting a 200, answering the JSON body. */
export function addressGetter(app: () => TestApp) {
  return async (address: string, path: string) => {
    const res = await app().app.inject({ url: `/api/v1/${chainOf(address)}/addresses/${address}/${path}`, headers: AUTH });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
}
