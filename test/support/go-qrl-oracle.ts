/**
 * What a pos store must agree on with a go-qrl node (test/fakes/go-qrl), every figure asked of the
 * node as a go-qrl client asks: balances (`qrl_getBalance`), token holdings (`balanceOf` by
 * `qrl_call`), internal transfers (derived here from the node's callTracer frames,
 * `debug_traceBlockByNumber`), burned fees, transaction counts and nonces. `width` is the network's
 * address width: on a 64-byte network the `balanceOf` argument is one 64-byte ABI word, the address
 * itself (the go-qrl fork's accounts/abi/pack.go `LeftPadBytes(address, 64)`), and the node prints
 * addresses QIP-55 mixed case where the store keeps them lowercase.
 */
import assert from 'node:assert/strict';
import sql from 'sql-template-tag';
import { encodeFunctionData, parseAbi } from 'viem';
import type { Store } from '../../src/store/store.ts';
import type { GoQrlNode } from '../fakes/go-qrl/server.ts';

export interface Frame {
  type: string;
  from: string;
  to?: string;
  value?: string;
  error?: string;
  calls?: Frame[];
}

const hex = (n: number) => `0x${n.toString(16)}`;

/** A `Q` address as the store keeps it: lowercase hex. */
export const canonical = (address: string) => `Q${address.slice(1).toLowerCase()}`;

/** Value-moving frames below the top, outside any failed frame (the top one included), as `path/from/to/value`. */
export function internalMoves(frame: Frame, path: number[] = []): string[] {
  if (frame.error) return [];
  const own =
    path.length > 0 && frame.type !== 'DELEGATECALL' && frame.type !== 'STATICCALL' && BigInt(frame.value ?? '0x0') > 0n
      ? [`${path.join('.')}/${canonical(frame.from)}/${canonical(frame.to!)}/${BigInt(frame.value!)}`]
      : [];
  return [...own, ...(frame.calls ?? []).flatMap((call, i) => internalMoves(call, [...path, i]))];
}

/** `balanceOf(holder)` calldata at the network's width. */
function balanceOfData(holder: string, width: 20 | 64): string {
  if (width === 20) return encodeFunctionData({ abi: parseAbi(['function balanceOf(address) view returns (uint256)']), functionName: 'balanceOf', args: [`0x${holder.slice(1)}`] });
  return `0x70a08231${holder.slice(1)}`;
}

/** Everything the store must agree with the node on, asked of the node as go-qrl answers. */
export async function assertMatchesNode(store: Store, node: GoQrlNode, width: 20 | 64 = 20): Promise<void> {
  const addressPattern = new RegExp(`^Q[0-9a-f]{${width * 2}}$`);
  const zero = 'Q' + '0'.repeat(width * 2);
  const head = Number(await node.rpc<string>('qrl_blockNumber'));
  const [tip] = await store.query<{ height: string; hash: string }>('t', sql`SELECT height, hash FROM blocks WHERE chain = 'pos' ORDER BY height DESC LIMIT 1`);
  assert.equal(Number(tip!.height), head);
  assert.equal(tip!.hash, (await node.rpc<{ hash: string }>('qrl_getBlockByNumber', ['latest', false])).hash);

  const balances = await store.query<{ address: string; balance: string }>('t', sql`SELECT address, balance::text AS balance FROM address_summary WHERE chain = 'pos'`);
  assert.ok(balances.length > 40, `only ${balances.length} addresses`);
  for (const row of balances) {
    assert.match(row.address, addressPattern);
    assert.equal(BigInt(row.balance), BigInt(await node.rpc<string>('qrl_getBalance', [row.address, 'latest'])), `balance of ${row.address}`);
  }

  const holdings = await store.query<{ address: string; contract: string; balance: string }>('t', sql`SELECT address, contract, balance::text AS balance FROM token_balances WHERE chain = 'pos' AND address <> ${zero}`);
  assert.ok(holdings.length > 30);
  for (const row of holdings) {
    assert.match(row.address, addressPattern);
    assert.match(row.contract, addressPattern);
    assert.equal(BigInt(row.balance), BigInt(await node.rpc<string>('qrl_call', [{ to: row.contract, data: balanceOfData(row.address, width) }, 'latest'])), `${row.contract} held by ${row.address}`);
  }

  const expected: string[] = [];
  let txCount = 0;
  let burned = 0n;
  for (let height = 0; height <= head; height++) {
    const block = await node.rpc<{ gasUsed: string; baseFeePerGas: string; transactions: string[] }>('qrl_getBlockByNumber', [hex(height), false]);
    txCount += block.transactions.length;
    burned += BigInt(block.gasUsed) * BigInt(block.baseFeePerGas);
    if (block.transactions.length === 0) continue;
    const traces = await node.rpc<{ txHash: string; result: Frame }[]>('debug_traceBlockByNumber', [hex(height), { tracer: 'callTracer' }]);
    for (const { txHash, result } of traces) expected.push(...internalMoves(result).map((move) => `${txHash}/${move}`));
  }
  const stored = await store.query<{ key: string }>('t', sql`SELECT tx_hash || '/' || trace_address || '/' || from_addr || '/' || to_addr || '/' || value::text AS key FROM internal_txs WHERE chain = 'pos'`);
  assert.ok(expected.length > 20);
  assert.deepEqual(stored.map((r) => r.key).sort(), expected.sort());

  const [totals] = await store.query<{ burned: string; txs: string }>('t', sql`SELECT sum(burned)::text AS burned, sum(tx_count)::text AS txs FROM blocks WHERE chain = 'pos'`);
  assert.equal(BigInt(totals!.burned), burned);
  assert.equal(Number(totals!.txs), txCount);
  const [counted] = await store.query<{ n: string }>('t', sql`SELECT count(*)::text AS n FROM transactions WHERE chain = 'pos'`);
  assert.equal(Number(counted!.n), txCount);
  const senders = await store.query<{ from_addr: string; n: string }>('t', sql`SELECT from_addr, count(*)::text AS n FROM transactions WHERE chain = 'pos' GROUP BY from_addr`);
  for (const row of senders) {
    assert.match(row.from_addr, addressPattern);
    assert.equal(Number(row.n), Number(await node.rpc<string>('qrl_getTransactionCount', [row.from_addr, 'latest'])), `nonce of ${row.from_addr}`);
  }
}
