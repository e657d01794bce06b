import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeBlock, decodeCallTraces, decodeParityTraces, decodeReceipt } from './decode.ts';
import { NodeDataError } from './errors.ts';
import { fromCallFrame, fromParityTraces, normaliseBlock, tokenTransfersFromLogs, TRANSFER_TOPIC } from './normalise.ts';
import { decodeDecimals, decodeText } from './tokens.ts';
import { encodeAbiParameters, stringToHex } from 'viem';

const A = '0x' + 'aa'.repeat(20);
const B = '0x' + 'bb'.repeat(20);
const C = '0x' + 'cc'.repeat(20);
const H = (n: number) => '0x' + n.toString(16).padStart(64, '0');
const word = (addr: string) => '0x' + '0'.repeat(24) + addr.slice(2);

function rawBlock(overrides: Record<string, unknown> = {}) {
  return {
    number: '0x10',
    hash: H(16),
    parentHash: H(15),
    timestamp: '0x65000000',
    size: '0x200',
    miner: C,
    gasUsed: '0x5208',
    gasLimit: '0x1c9c380',
    baseFeePerGas: '0x3b9aca00',
    transactions: [
      { hash: H(100), transactionIndex: '0x0', from: A, to: B, value: '0xde0b6b3a7640000', nonce: '0x0', gas: '0x5208', input: '0x', type: '0x2', maxFeePerGas: '0x77359400', maxPriorityFeePerGas: '0x3b9aca00', gasPrice: '0x77359400' },
    ],
    withdrawals: [{ index: '0x5', validatorIndex: '0x2a', address: C, amount: '0x1bc16d674' }],
    ...overrides,
  };
}

describe('pos normalisation', () => {
  it('turns a block into canonical form: fee, burn, withdrawals in planck', () => {
    const block = decodeBlock(rawBlock());
    const receipt = decodeReceipt({ transactionHash: H(100), transactionIndex: '0x0', blockHash: H(16), status: '0x1', gasUsed: '0x5208', effectiveGasPrice: '0x77359400', contractAddress: null, logs: [] }, 'r');
    const canonical = normaliseBlock({ block, receipts: new Map([[H(100), receipt]]), traces: null, targetHasCode: () => false });
    const tx = canonical.transactions[0]!;
    assert.equal(tx.type, 'transfer');
    assert.equal(tx.from, 'Q' + 'aa'.repeat(20));
    assert.equal(tx.value, 10n ** 18n);
    assert.equal(tx.fee, 21_000n * 2_000_000_000n);
    assert.equal(tx.burned, 21_000n * 1_000_000_000n);
    assert.equal(canonical.miner, 'Q' + 'cc'.repeat(20));
    assert.deepEqual(canonical.withdrawals, [{ index: 5, validatorIndex: 42, address: 'Q' + 'cc'.repeat(20), amount: 7_450_580_596n * 10n ** 9n }]);
  });

  it('accepts Z and Q addresses and tolerant quantities', () => {
    const block = decodeBlock(rawBlock({ miner: 'Z' + 'CC'.repeat(20), size: '0x0200', transactions: [] }));
    assert.equal(block.header.miner, 'Q' + 'cc'.repeat(20));
    assert.equal(block.header.size, 512);
  });

  it('refuses a block with a malformed transaction or withdrawal, naming the field; and an unusable header', () => {
    const good = rawBlock().transactions[0]!;
    assert.throws(() => decodeBlock(rawBlock({ transactions: [good, { ...good, hash: H(101), transactionIndex: '0x1', value: 'lots' }] })), /transactions\[1\]\.value: expected a hex quantity/);
    assert.throws(() => decodeBlock(rawBlock({ withdrawals: [{ index: '0x0', validatorIndex: '0x1', address: A, amount: 'x' }] })), /withdrawals\[0\]\.amount/);
    assert.throws(() => decodeBlock(rawBlock({ hash: '0x12' })), NodeDataError);
  });

  it('refuses a receipt without a status: it is not a success', () => {
    assert.throws(() => decodeReceipt({ transactionHash: H(1), transactionIndex: '0x0', gasUsed: '0x5208', logs: [] }, 'receipt'), /receipt\.status: missing/);
    assert.throws(() => decodeReceipt({ transactionHash: H(1), transactionIndex: '0x0', gasUsed: '0x5208', logs: [], status: '0x2' }, 'receipt'), /expected 0x0 or 0x1/);
  });

  it('counts value of successful frames below the top only', () => {
    const [trace] = decodeCallTraces([
      {
        txHash: H(1),
        result: {
          type: 'CALL', from: A, to: B, value: '0x64',
          calls: [
            { type: 'CALL', from: B, to: C, value: '0xa' },
            { type: 'CALL', from: B, to: A, value: '0x5', error: 'execution reverted', calls: [{ type: 'CALL', from: A, to: C, value: '0x1' }] },
            { type: 'DELEGATECALL', from: B, to: C, value: '0x64', calls: [{ type: 'CALL', from: B, to: A, value: '0x2' }] },
            { type: 'STATICCALL', from: B, to: C },
            { type: 'CREATE2', from: B, to: C, value: '0x3' },
            { type: 'SELFDESTRUCT', from: C, to: A, value: '0x4' },
          ],
        },
      },
    ]);
    const result = fromCallFrame(trace!.frame!, 1);
    assert.deepEqual(
      result.internal.map((i) => [i.traceAddress, i.callType, i.value]),
      [['0', 'call', 10n], ['2.0', 'call', 2n], ['4', 'create2', 3n], ['5', 'selfdestruct', 4n]],
    );
    assert.deepEqual(result.creations, [{ traceAddress: '4', address: 'Q' + 'cc'.repeat(20), creator: 'Q' + 'bb'.repeat(20) }]);
    assert.deepEqual(fromCallFrame(trace!.frame!, 0).internal, []);
  });

  it('reads parity traces the same way, failed ancestors included', () => {
    const traces = decodeParityTraces([
      { type: 'call', action: { callType: 'call', from: A, to: B, value: '0x64' }, traceAddress: [], transactionPosition: 0, subtraces: 2 },
      { type: 'call', action: { callType: 'call', from: B, to: C, value: '0xa' }, traceAddress: [0], transactionPosition: 0 },
      { type: 'call', action: { callType: 'call', from: B, to: A, value: '0x5' }, traceAddress: [1], error: 'Reverted', transactionPosition: 0 },
      { type: 'call', action: { callType: 'call', from: A, to: C, value: '0x1' }, traceAddress: [1, 0], transactionPosition: 0 },
      { type: 'create', action: { from: B, value: '0x3', init: '0x' }, result: { address: C }, traceAddress: [2], transactionPosition: 0 },
      { type: 'suicide', action: { address: C, refundAddress: A, balance: '0x4' }, traceAddress: [3], transactionPosition: 0 },
      { type: 'reward', action: { author: A, value: '0x1' }, traceAddress: [] },
    ]);
    const result = fromParityTraces(traces, 1);
    assert.deepEqual(result.internal.map((i) => [i.traceAddress, i.callType, i.value]), [['0', 'call', 10n], ['2', 'create', 3n], ['3', 'selfdestruct', 4n]]);
  });

  it('takes ERC-20 Transfer logs with three topics and a 32-byte amount only', () => {
    const logs = decodeReceipt(
      {
        transactionHash: H(1), transactionIndex: '0x0', status: '0x1', gasUsed: '0x1', logs: [
          { address: C, topics: [TRANSFER_TOPIC, word(A), word(B)], data: H(500), logIndex: '0x3' },
          { address: C, topics: [TRANSFER_TOPIC, word(A), word(B), H(7)], data: '0x', logIndex: '0x4' }, // ERC-721
          { address: C, topics: [TRANSFER_TOPIC, word(A), word(B)], data: H(1) + 'ff', logIndex: '0x5' }, // odd data
        ],
      },
      'r',
    ).logs;
    assert.deepEqual(tokenTransfersFromLogs(logs), [{ logIndex: 3, contract: 'Q' + 'cc'.repeat(20), from: 'Q' + 'aa'.repeat(20), to: 'Q' + 'bb'.repeat(20), amount: 500n }]);
  });

  it('decodes token metadata: string, bytes32, garbage, reverts', () => {
    assert.equal(decodeText(encodeAbiParameters([{ type: 'string' }], ['Wrapped Quanta'])), 'Wrapped Quanta');
    assert.equal(decodeText(stringToHex('MKR', { size: 32 })), 'MKR');
    assert.equal(decodeText(encodeAbiParameters([{ type: 'string' }], ['bad\u0000name'])), 'badname');
    assert.equal(decodeText('0x'), null);
    assert.equal(decodeText(null), null);
    assert.equal(decodeText('0x1234'), null);
    assert.equal(decodeDecimals(H(18) as `0x${string}`), 18);
    assert.equal(decodeDecimals(H(1000) as `0x${string}`), null);
    assert.equal(decodeDecimals('0x12'), null);
  });
});
