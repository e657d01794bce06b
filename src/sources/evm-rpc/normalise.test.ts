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
    const block = decodeBlock(rawBlock(), 20);
    const receipt = decodeReceipt({ transactionHash: H(100), transactionIndex: '0x0', blockHash: H(16), status: '0x1', gasUsed: '0x5208', effectiveGasPrice: '0x77359400', contractAddress: null, logs: [] }, 'r', 20);
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
    const block = decodeBlock(rawBlock({ miner: 'Z' + 'CC'.repeat(20), size: '0x0200', transactions: [] }), 20);
    assert.equal(block.header.miner, 'Q' + 'cc'.repeat(20));
    assert.equal(block.header.size, 512);
  });

  it('refuses a block with a malformed transaction or withdrawal, naming the field; and an unusable header', () => {
    const good = rawBlock().transactions[0]!;
    assert.throws(() => decodeBlock(rawBlock({ transactions: [good, { ...good, hash: H(101), transactionIndex: '0x1', value: 'lots' }] }), 20), /transactions\[1\]\.value: expected a hex quantity/);
    assert.throws(() => decodeBlock(rawBlock({ withdrawals: [{ index: '0x0', validatorIndex: '0x1', address: A, amount: 'x' }] }), 20), /withdrawals\[0\]\.amount/);
    assert.throws(() => decodeBlock(rawBlock({ hash: '0x12' }), 20), NodeDataError);
  });

  it('refuses a receipt without a status: it is not a success', () => {
    assert.throws(() => decodeReceipt({ transactionHash: H(1), transactionIndex: '0x0', gasUsed: '0x5208', logs: [] }, 'receipt', 20), /receipt\.status: missing/);
    assert.throws(() => decodeReceipt({ transactionHash: H(1), transactionIndex: '0x0', gasUsed: '0x5208', logs: [], status: '0x2' }, 'receipt', 20), /expected 0x0 or 0x1/);
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
    ], 20);
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
    ], 20);
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
          { address: C, topics: [TRANSFER_TOPIC, '0x01' + word(A).slice(4), word(B)], data: H(9), logIndex: '0x6' }, // not an address word
        ],
      },
      'r',
      20,
    ).logs;
    assert.deepEqual(tokenTransfersFromLogs(logs, 20), [{ logIndex: 3, contract: 'Q' + 'cc'.repeat(20), from: 'Q' + 'aa'.repeat(20), to: 'Q' + 'bb'.repeat(20), amount: 500n }]);
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

/**
 * Answers of a 64-byte node, shaped as the go-qrl fork with 64-byte addresses writes them
 * (rgeraldes24/go-qrl 7f427122, common/types.go): addresses `Q` + 128 hex in QIP-55 mixed case
 * (`Address.MarshalText`), 64-byte log topics (`common.LogTopic`), 64-byte ABI words. The
 * addresses are go-qrllib's checksum parity vectors (wallet/common/address_test.go), so their
 * checksummed and lowercase forms are known independently of Quarry.
 */
describe('pos normalisation, 64-byte addresses', () => {
  const VECTORS = {
    a: ['Qd5812F6Cf4a0f645aa620cd57319a0Ed649dd8f5519A9dde7770ae5b0E49e547985f35eB972A2a07041561aa39c65A3991478f9B1e6749e05277dcf58A9A8B72', 'Qd5812f6cf4a0f645aa620cd57319a0ed649dd8f5519a9dde7770ae5b0e49e547985f35eb972a2a07041561aa39c65a3991478f9b1e6749e05277dcf58a9a8b72'],
    b: ['QBe95a82D87a6CB9c7Ff4C64e0C15BB1DFF20b1d77E6B571B28Ad4736f2a2A3E5857E8c225D6D61399B15BEeF3B196936E490ed6E234374C4887CBBe86C13b1BA', 'Qbe95a82d87a6cb9c7ff4c64e0c15bb1dff20b1d77e6b571b28ad4736f2a2a3e5857e8c225d6d61399b15beef3b196936e490ed6e234374c4887cbbe86c13b1ba'],
    c: ['Q31F654037D4d7BCE04E9522e4d346ab47a90686ef20A6c19916E68D3c77950f54bABB7725aD48A3201c0aCb74271E790730f9f39f9ce2e9Ba1BE9E41a763cAf9', 'Q31f654037d4d7bce04e9522e4d346ab47a90686ef20a6c19916e68d3c77950f54babb7725ad48a3201c0acb74271e790730f9f39f9ce2e9ba1be9e41a763caf9'],
  } as const;
  const [A64, a64] = VECTORS.a;
  const [B64, b64] = VECTORS.b;
  const [C64, c64] = VECTORS.c;
  /** A 64-byte topic holding an address: the address's 64 bytes themselves. */
  const topic64 = (address: string) => '0x' + address.slice(1).toLowerCase();
  /** keccak256("Transfer(address,address,uint256)") in the high half of a 64-byte topic, or the low half. */
  const TRANSFER_HIGH = TRANSFER_TOPIC + '0'.repeat(64);
  const TRANSFER_LOW = '0x' + '0'.repeat(64) + TRANSFER_TOPIC.slice(2);
  /** One 64-byte ABI word holding `n` right-aligned. */
  const word64 = (n: bigint) => '0x' + n.toString(16).padStart(128, '0');
  const block64 = (overrides: Record<string, unknown> = {}) =>
    rawBlock({
      miner: C64,
      transactions: [{ ...rawBlock().transactions[0]!, from: A64, to: B64 }],
      withdrawals: [{ index: '0x5', validatorIndex: '0x2a', address: C64, amount: '0x1bc16d674' }],
      ...overrides,
    });

  it('reads every address of a block at 64 bytes and answers the lowercase canonical form', () => {
    const block = decodeBlock(block64(), 64);
    const receipt = decodeReceipt({ transactionHash: H(100), transactionIndex: '0x0', blockHash: H(16), status: '0x1', gasUsed: '0x5208', effectiveGasPrice: '0x77359400', contractAddress: null, logs: [] }, 'r', 64);
    const canonical = normaliseBlock({ block, receipts: new Map([[H(100), receipt]]), traces: null, targetHasCode: () => false, addressBytes: 64 });
    assert.deepEqual([canonical.miner, canonical.transactions[0]!.from, canonical.transactions[0]!.to, canonical.withdrawals[0]!.address], [c64, a64, b64, c64]);
  });

  it('refuses an address of another width or a wrong checksum, naming the field (an undecodable block)', () => {
    assert.throws(() => decodeBlock(block64({ miner: C }), 64), /block\.miner: expected a 64-byte address: must be Q followed by 128 hex characters/);
    const wrongCase = A64.slice(0, 6) + 'f' + A64.slice(7); // d5812F -> d5812f
    assert.throws(() => decodeBlock(block64({ transactions: [{ ...rawBlock().transactions[0]!, from: wrongCase, to: B64 }] }), 64), /transactions\[0\]\.from: expected a 64-byte address: mixed-case checksum/);
    assert.throws(() => decodeBlock(block64(), 20), /block\.miner: expected a 20-byte address/);
    assert.throws(() => decodeReceipt({ transactionHash: H(1), transactionIndex: '0x0', status: '0x1', gasUsed: '0x1', contractAddress: '0x' + a64.slice(1), logs: [] }, 'r', 64), /r\.contractAddress/);
  });

  it('reads 64-byte topics: Transfer logs whose topics are the addresses themselves and whose amount is one 64-byte word', () => {
    const logs = decodeReceipt(
      {
        transactionHash: H(1), transactionIndex: '0x0', status: '0x1', gasUsed: '0x1', contractAddress: null, logs: [
          { address: C64, topics: [TRANSFER_HIGH, topic64(A64), topic64(B64)], data: word64(500n), logIndex: '0x3' },
          { address: C64, topics: [TRANSFER_LOW, topic64(B64), topic64(A64)], data: word64(7n), logIndex: '0x4' },
          { address: C64, topics: [TRANSFER_HIGH, topic64(A64), topic64(B64), word64(1n)], data: '0x', logIndex: '0x5' }, // ERC-721 shape
          { address: C64, topics: [TRANSFER_HIGH, topic64(A64), topic64(B64)], data: H(9), logIndex: '0x6' }, // a 32-byte word is not VM64's
          { address: C64, topics: [TRANSFER_HIGH, topic64(A64), topic64(B64)], data: word64(1n << 256n), logIndex: '0x7' }, // beyond uint256
        ],
      },
      'r',
      64,
    ).logs;
    assert.deepEqual(tokenTransfersFromLogs(logs, 64), [
      { logIndex: 3, contract: c64, from: a64, to: b64, amount: 500n },
      { logIndex: 4, contract: c64, from: b64, to: a64, amount: 7n },
    ]);
  });

  it('refuses a 32-byte topic from a 64-byte node (the block is undecodable)', () => {
    assert.throws(
      () => decodeReceipt({ transactionHash: H(1), transactionIndex: '0x0', status: '0x1', gasUsed: '0x1', logs: [{ address: C64, topics: [TRANSFER_TOPIC], data: '0x', logIndex: '0x0' }] }, 'r', 64),
      /r\.logs\[0\]\.topics\[0\]: expected a 64-byte topic/,
    );
  });

  it('reads callTracer frames at 64 bytes', () => {
    const [trace] = decodeCallTraces([{ txHash: H(1), result: { type: 'CALL', from: A64, to: B64, value: '0x64', calls: [{ type: 'CREATE', from: B64, to: C64, value: '0xa' }] } }], 64);
    const result = fromCallFrame(trace!.frame!, 1);
    assert.deepEqual(result.internal, [{ traceAddress: '0', callType: 'create', from: b64, to: c64, value: 10n }]);
    assert.deepEqual(result.creations, [{ traceAddress: '0', address: c64, creator: b64 }]);
    assert.throws(() => decodeCallTraces([{ result: { type: 'CALL', from: A, to: B64 } }], 64), /traces\[0\]\.result\.from/);
  });

  it('decodes VM64 token metadata: a string in 64-byte words, a bytes32 in the high half, decimals', () => {
    const text = Buffer.from('Wrapped Quanta');
    const stringReturn = ('0x' + (64n).toString(16).padStart(128, '0') + BigInt(text.length).toString(16).padStart(128, '0') + text.toString('hex').padEnd(128, '0')) as `0x${string}`;
    assert.equal(decodeText(stringReturn, 64), 'Wrapped Quanta');
    assert.equal(decodeText(('0x' + Buffer.from('MKR').toString('hex').padEnd(128, '0')) as `0x${string}`, 64), 'MKR');
    assert.equal(decodeText(encodeAbiParameters([{ type: 'string' }], ['x']).slice(0, 66) as `0x${string}`, 64), null);
    assert.equal(decodeDecimals(word64(18n) as `0x${string}`, 64), 18);
    assert.equal(decodeDecimals(H(18) as `0x${string}`, 64), null); // a 32-byte word is short of VM64's
    assert.equal(decodeDecimals(word64(256n) as `0x${string}`, 64), null);
  });
});
