/**
 * A pos transaction page equals what the node says: Quarry indexes a real node (Anvil) running
 * transactions of every kind, and every page's fields, receipt, fee, burn, token transfers (the
 * receipt's Transfer logs) and internal transfers (the node's parity traces) are checked against
 * the node's own answers; the list pages through the node's transactions newest first.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { pino } from 'pino';
import { decodeFunctionResult, encodeFunctionData, parseAbi } from 'viem';
import { resolveIndexPosSettings } from '../../../src/cli/commands/index-pos.ts';
import { indexPos } from '../../../src/ingest/index-pos.ts';
import { buildTestApp, type TestApp } from '../../support/app.ts';
import { startAnvil, type Anvil } from '../../support/anvil.ts';
import { describeOnOneStore } from '../../support/stores.ts';
import { driveTraffic, setUpTraffic, type Traffic } from '../../fixtures/traffic.ts';
import { getter, walk } from './fixtures.ts';

const silent = pino({ level: 'silent' });
const hex = (n: number) => `0x${n.toString(16)}`;
const q = (address: string | null | undefined) => (address ? 'Q' + address.slice(2).toLowerCase() : null);
const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const big = (value: string | null | undefined) => (value === null || value === undefined ? null : BigInt(value).toString());

describeOnOneStore('pos transaction pages against Anvil', (getStore) => {
  let anvil: Anvil;
  let traffic: Traffic;
  let t: TestApp;
  const get = getter(() => t);

  before(async () => {
    anvil = await startAnvil({ accounts: 10 });
    traffic = await setUpTraffic(anvil, { accounts: 20 });
    await driveTraffic(anvil, traffic, { blocks: 6, perBlock: 12 });
    await indexPos(getStore(), resolveIndexPosSettings({ rpc: anvil.url, rpcNamespace: 'eth', progress: false }, {}), { logger: silent });
    t = await buildTestApp(getStore(), { QUARRY_RATE_LIMIT_MAX: '100000' });
  });
  after(async () => {
    await t?.close();
    await anvil?.stop();
  });

  it('every transaction page equals the node\'s transaction, receipt and traces', async () => {
    const head = Number(await anvil.rpc<string>('eth_blockNumber'));
    const abi = parseAbi(['function name() view returns (string)', 'function decimals() view returns (uint8)']);
    const call = async (functionName: 'name' | 'decimals') =>
      decodeFunctionResult({ abi, functionName, data: await anvil.rpc<`0x${string}`>('eth_call', [{ to: traffic.contracts.token, data: encodeFunctionData({ abi, functionName }) }, 'latest']) });
    const tokenName = await call('name');
    const tokenDecimals = Number(await call('decimals'));
    let pages = 0;
    let withTokens = 0;
    let withFrames = 0;
    for (let height = 0; height <= head; height++) {
      const block = await anvil.rpc<{ hash: string; baseFeePerGas: string; transactions: string[] }>('eth_getBlockByNumber', [hex(height), false]);
      if (block.transactions.length === 0) continue;
      const traces = await anvil.rpc<any[]>('trace_block', [hex(height)]);
      for (const hash of block.transactions) {
        const tx = await anvil.rpc<Record<string, any>>('eth_getTransactionByHash', [hash]);
        const receipt = await anvil.rpc<Record<string, any>>('eth_getTransactionReceipt', [hash]);
        const page = await get(`pos/transactions/${hash}`);
        const status = Number(receipt.status);
        const gasUsed = BigInt(receipt.gasUsed);
        const price = BigInt(receipt.effectiveGasPrice);
        assert.deepEqual(
          {
            tx_hash: page.tx_hash, height: page.height, block_hash: page.block_hash, tx_index: page.tx_index, from_addr: page.from_addr,
            to_addr: page.to_addr, value: page.value, nonce: page.nonce, tx_type_evm: page.tx_type_evm, gas: page.gas, gas_used: page.gas_used,
            gas_price: page.gas_price, effective_gas_price: page.effective_gas_price, max_fee_per_gas: page.max_fee_per_gas,
            max_priority_fee_per_gas: page.max_priority_fee_per_gas, status: page.status, contract_address: page.contract_address,
            fee: page.fee, burned: page.burned, input_data: page.input_data, confirmations: page.confirmations, recipients: page.recipients,
          },
          {
            tx_hash: hash, height, block_hash: block.hash, tx_index: Number(tx.transactionIndex), from_addr: q(tx.from), to_addr: q(tx.to),
            value: big(tx.value), nonce: Number(tx.nonce), tx_type_evm: Number(tx.type), gas: Number(tx.gas), gas_used: Number(gasUsed),
            gas_price: big(tx.gasPrice), effective_gas_price: price.toString(), max_fee_per_gas: big(tx.maxFeePerGas),
            max_priority_fee_per_gas: big(tx.maxPriorityFeePerGas), status, contract_address: status === 1 ? q(receipt.contractAddress) : null,
            fee: (gasUsed * price).toString(), burned: (gasUsed * BigInt(block.baseFeePerGas)).toString(), input_data: tx.input.toLowerCase(),
            confirmations: head - height, recipients: [],
          },
          hash,
        );
        const logs = (receipt.logs as any[]).filter((l) => l.topics.length === 3 && l.topics[0] === TRANSFER && l.data.length === 66);
        assert.deepEqual(
          page.token_transfers.map((x: Record<string, unknown>) => ({ log_index: x.log_index, contract: x.contract, from_addr: x.from_addr, to_addr: x.to_addr, amount: x.amount })),
          logs.map((l) => ({ log_index: Number(l.logIndex), contract: q(l.address), from_addr: 'Q' + l.topics[1].slice(26), to_addr: 'Q' + l.topics[2].slice(26), amount: BigInt(l.data).toString() })),
          `${hash} token transfers`,
        );
        for (const x of page.token_transfers) {
          if (x.contract === q(traffic.contracts.token)) assert.deepEqual([x.token_name, x.token_decimals], [tokenName, tokenDecimals]);
        }
        // Value-moving frames below the top level that did not fail (nor any frame above them).
        const own = traces.filter((tr) => tr.transactionHash === hash);
        const failed = new Set(own.filter((tr) => tr.error).map((tr) => tr.traceAddress.join('.')));
        const frames = own
          .filter((tr) => tr.traceAddress.length > 0 && !failed.has('') && !tr.traceAddress.some((_: number, i: number) => failed.has(tr.traceAddress.slice(0, i + 1).join('.'))))
          .filter((tr) => !(tr.type === 'call' && tr.action.callType !== 'call'))
          .map((tr) => {
            const [from, to, value] = tr.type === 'suicide' ? [tr.action.address, tr.action.refundAddress, tr.action.balance] : tr.type === 'create' ? [tr.action.from, tr.result?.address, tr.action.value] : [tr.action.from, tr.action.to, tr.action.value];
            return { trace_address: tr.traceAddress.join('.'), from_addr: q(from), to_addr: q(to), value: BigInt(value ?? 0).toString() };
          })
          .filter((f) => f.value !== '0');
        assert.deepEqual(page.internal_transfers.map(({ call_type: _c, ...f }: Record<string, unknown>) => f), frames, `${hash} internal transfers`);
        pages++;
        if (logs.length > 0) withTokens++;
        if (frames.length > 0) withFrames++;
      }
    }
    assert.ok(pages > 60 && withTokens > 5 && withFrames > 3, `${pages} pages, ${withTokens} with tokens, ${withFrames} with frames`);
  });

  it('the list is the node\'s transactions, newest first', async () => {
    const head = Number(await anvil.rpc<string>('eth_blockNumber'));
    const hashes: string[] = [];
    for (let height = head; height >= 0; height--) {
      const block = await anvil.rpc<{ transactions: string[] }>('eth_getBlockByNumber', [hex(height), false]);
      hashes.push(...[...block.transactions].reverse());
    }
    const { items, totals } = await walk(get, 'pos/transactions', 50);
    assert.deepEqual((items as { tx_hash: string }[]).map((item) => item.tx_hash), hashes);
    assert.ok(totals.every((n) => n === hashes.length));
  });
});
