import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { isMultiSigAddress, multiSigAddress, parseAddress, powAddressFromParts, powTreeHeight } from './addresses.ts';
import { bech32Encode } from '../../test/support/bech32.ts';

// A pow address built by hand the way QRL does: descriptor, SHA-256(descriptor + pk), and the
// last 4 bytes of SHA-256 of those 35 bytes.
const descriptor = Buffer.from('010500', 'hex');
const keyHash = createHash('sha256').update(Buffer.concat([descriptor, Buffer.alloc(64, 7)])).digest();
const checksum = createHash('sha256').update(Buffer.concat([descriptor, keyHash])).digest().subarray(28);
const POW = 'Q' + Buffer.concat([descriptor, keyHash, checksum]).toString('hex');

describe('pow addresses', () => {
  it('accepts a valid address in any case and answers lowercase', () => {
    assert.deepEqual(parseAddress('pow', POW), { ok: true, address: POW });
    assert.deepEqual(parseAddress('pow', 'q' + POW.slice(1).toUpperCase()), { ok: true, address: POW });
  });

  it('builds the same address from parts', () => {
    assert.equal(powAddressFromParts(descriptor, keyHash), POW);
  });

  it('reads the XMSS tree height from the descriptor', () => {
    assert.equal(powTreeHeight(POW), 10);
  });

  it('derives a multi-signature address from its creating transaction\'s hash as QRL does', () => {
    // theQRL/QRL tests/core/test_MultiSigAddressState.py, test_generate_multi_sig_address.
    const address = multiSigAddress('5a4c37ef7e5b7cc5a2a58ab730269ed8f4cbf08a005dc3508e31465535e1d6bb');
    assert.equal(address, 'Q1100003674370317e1cac0ca13f896ab5b6472a261ba0d2b2961d3adba1b9060f6e8f7fe2088fb');
    assert.equal(isMultiSigAddress(address), true);
    assert.equal(isMultiSigAddress(POW), false);
    assert.deepEqual(parseAddress('pow', address), { ok: true, address });
  });

  it('accepts the coinbase sentinel', () => {
    assert.deepEqual(parseAddress('pow', 'Q' + '0'.repeat(64)), { ok: true, address: 'Q' + '0'.repeat(64) });
  });

  it('rejects a wrong checksum', () => {
    const flipped = POW.slice(0, -1) + (POW.endsWith('0') ? '1' : '0');
    assert.equal(parseAddress('pow', flipped).ok, false);
  });

  for (const bad of ['', 'Q', POW.slice(1), POW + '0', POW.slice(0, -1), 'Z' + POW.slice(1), '0x' + POW.slice(1), POW.replace(/.$/, 'g'), ` ${POW}`]) {
    it(`rejects ${JSON.stringify(bad.slice(0, 12))}… (${bad.length} chars)`, () => assert.equal(parseAddress('pow', bad).ok, false));
  }
});

describe('pow addresses in bech32', () => {
  const body = Buffer.from(POW.slice(1, 71), 'hex');
  const B32 = bech32Encode('q', body);

  it('decodes the published QRL example to its hex form', () => {
    // theQRL/QRL tests/core/test_AddressHelper.py (commit 65922707, "AddressHelper, BECH32 introduced").
    const hex = 'Q010300a1da274e68c88b0ccf448e0b1916fa789b01eb2ed4e9ad565ce264c9390782a9c61ac02f';
    const b32 = 'q1qypspgw6ya8x3jytpn85frstryt057ymq84ja48f44t9ecnyeyus0q4fq6pu26';
    assert.equal(bech32Encode('q', Buffer.from(hex.slice(1, 71), 'hex')), b32, 'the test encoder agrees with QRL');
    assert.deepEqual(parseAddress('pow', b32), { ok: true, address: hex });
  });

  it('accepts the 35 bytes of descriptor and hash, in lower or upper case, and answers the hex form', () => {
    assert.equal(B32.length, 64);
    assert.deepEqual(parseAddress('pow', B32), { ok: true, address: POW });
    assert.deepEqual(parseAddress('pow', B32.toUpperCase()), { ok: true, address: POW });
  });

  it('reads the coinbase\'s zero address as the sentinel', () => {
    for (const zeros of [32, 35]) assert.deepEqual(parseAddress('pow', bech32Encode('q', Buffer.alloc(zeros))), { ok: true, address: 'Q' + '0'.repeat(64) });
  });

  const flip = (s: string, at: number) => s.slice(0, at) + (s[at] === 'q' ? 'p' : 'q') + s.slice(at + 1);
  const rejected: [string, string, RegExp][] = [
    ['a changed character', flip(B32, 20), /checksum/],
    ['a changed checksum', flip(B32, B32.length - 1), /checksum/],
    ['bech32m instead of bech32', bech32Encode('q', body, 0x2bc830a3), /checksum/],
    ['another prefix', bech32Encode('z', body), /prefix must be q/],
    ['mixed case', B32.slice(0, 10) + B32.slice(10).toUpperCase(), /mixes upper and lower case/],
    ['a character outside the alphabet', B32.slice(0, 20) + 'b' + B32.slice(21), /alphabet/],
    ['the 39 bytes with the checksum', bech32Encode('q', Buffer.from(POW.slice(1), 'hex')), /encodes 39 bytes/],
    ['too few bytes', bech32Encode('q', body.subarray(0, 34)), /encodes 34 bytes/],
    ['a truncated string', B32.slice(0, -1), /checksum/],
  ];
  for (const [what, input, reason] of rejected) {
    it(`rejects ${what}, saying why`, () => {
      const parsed = parseAddress('pow', input);
      assert.equal(parsed.ok, false);
      assert.match((parsed as { reason: string }).reason, reason);
    });
  }
});

const W20 = { addressBytes: 20 };
const W64 = { addressBytes: 64 };

describe('pos addresses, 20 bytes', () => {
  const hex = 'ab'.repeat(20);
  it('accepts Q, Z and 0x forms in either uniform case and answers the Q form', () => {
    for (const form of [`Q${hex}`, `q${hex}`, `Z${hex}`, `z${hex}`, `0x${hex}`, `0X${hex.toUpperCase()}`]) {
      assert.deepEqual(parseAddress('pos', form, W20), { ok: true, address: `Q${hex}` });
    }
  });

  // EIP-55's own examples (eips.ethereum.org/EIPS/eip-55); go-qrl's common.Address.checksumHex is the
  // same Keccak-256 rule over the lowercase hex without its prefix.
  const EIP55 = ['5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', 'fB6916095ca1df60bB79Ce92cE3Ea74c37c5d359', 'dbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB'];
  it('accepts a mixed-case address whose checksum is right, with any prefix', () => {
    for (const body of EIP55) {
      for (const prefix of ['Q', 'Z', '0x']) assert.deepEqual(parseAddress('pos', prefix + body, W20), { ok: true, address: 'Q' + body.toLowerCase() });
    }
  });
  it('refuses a mixed-case address whose checksum is wrong', () => {
    const flipped = 'Q5aaeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
    const parsed = parseAddress('pos', flipped, W20);
    assert.equal(parsed.ok, false);
    assert.match(!parsed.ok ? parsed.reason : '', /checksum/);
  });

  for (const bad of ['', `Q${hex}0`, `Q${hex.slice(1)}`, `X${hex}`, `0x${hex.slice(0, -1)}g`, hex, `Qx${hex}`]) {
    it(`rejects ${JSON.stringify(bad)}`, () => assert.equal(parseAddress('pos', bad, W20).ok, false));
  }

  it('refuses a 64-byte address, naming the width, and never truncates it', () => {
    const parsed = parseAddress('pos', 'Q' + 'ab'.repeat(64), W20);
    assert.deepEqual(parsed, { ok: false, reason: 'must be Q, Z or 0x followed by 40 hex characters (20-byte addresses on this network)' });
  });
});

describe('pos addresses, 64 bytes', () => {
  // go-qrllib wallet/common/address_test.go `parityVectors` (shared with @theqrl/wallet.js and rust-qrllib).
  const PARITY = [
    ['Qd5812f6cf4a0f645aa620cd57319a0ed649dd8f5519a9dde7770ae5b0e49e547985f35eb972a2a07041561aa39c65a3991478f9b1e6749e05277dcf58a9a8b72', 'Qd5812F6Cf4a0f645aa620cd57319a0Ed649dd8f5519A9dde7770ae5b0E49e547985f35eB972A2a07041561aa39c65A3991478f9B1e6749e05277dcf58A9A8B72'],
    ['Qbe95a82d87a6cb9c7ff4c64e0c15bb1dff20b1d77e6b571b28ad4736f2a2a3e5857e8c225d6d61399b15beef3b196936e490ed6e234374c4887cbbe86c13b1ba', 'QBe95a82D87a6CB9c7Ff4C64e0C15BB1DFF20b1d77E6B571B28Ad4736f2a2A3E5857E8c225D6D61399B15BEeF3B196936E490ed6E234374C4887CBBe86C13b1BA'],
    ['Q31f654037d4d7bce04e9522e4d346ab47a90686ef20a6c19916e68d3c77950f54babb7725ad48a3201c0acb74271e790730f9f39f9ce2e9ba1be9e41a763caf9', 'Q31F654037D4d7BCE04E9522e4d346ab47a90686ef20A6c19916E68D3c77950f54bABB7725aD48A3201c0aCb74271E790730f9f39f9ce2e9Ba1BE9E41a763cAf9'],
  ] as const;

  it('accepts the checksummed, lowercase and uppercase forms and answers lowercase', () => {
    for (const [lower, checksummed] of PARITY) {
      for (const form of [lower, checksummed, 'Q' + lower.slice(1).toUpperCase(), 'q' + lower.slice(1)]) {
        assert.deepEqual(parseAddress('pos', form, W64), { ok: true, address: lower }, form);
      }
    }
  });

  it('refuses a mixed-case address whose checksum is wrong', () => {
    const [, checksummed] = PARITY[0];
    // The first letter after the digits, case flipped: d5812F -> d5812f.
    const flipped = checksummed.slice(0, 6) + 'f' + checksummed.slice(7);
    const parsed = parseAddress('pos', flipped, W64);
    assert.deepEqual(parsed, { ok: false, reason: 'mixed-case checksum does not match (64-byte addresses on this network)' });
  });

  it('refuses 20-byte and other forms, naming the width', () => {
    const reason = 'must be Q followed by 128 hex characters (64-byte addresses on this network)';
    for (const bad of ['Q' + 'ab'.repeat(20), 'Z' + 'ab'.repeat(64), '0x' + 'ab'.repeat(64), 'Q' + 'ab'.repeat(63), 'Q' + 'ab'.repeat(65), 'Q' + 'g'.repeat(128)]) {
      assert.deepEqual(parseAddress('pos', bad, W64), { ok: false, reason }, bad.slice(0, 8));
    }
  });

  it('answers the 64-byte zero address as itself', () => {
    assert.deepEqual(parseAddress('pos', 'Q' + '0'.repeat(128), W64), { ok: true, address: 'Q' + '0'.repeat(128) });
  });

  it('refuses a width no pos network has', () => {
    assert.equal(parseAddress('pos', 'Q' + 'ab'.repeat(48), { addressBytes: 48 }).ok, false);
  });
});
