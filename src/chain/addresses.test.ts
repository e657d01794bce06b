import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { parseAddress, powAddressFromParts, powTreeHeight } from './addresses.ts';
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

describe('pos addresses', () => {
  const hex = 'ab'.repeat(20);
  it('accepts Q, Z and 0x forms in any case and answers the Q form', () => {
    for (const form of [`Q${hex}`, `q${hex}`, `Z${hex}`, `z${hex}`, `0x${hex}`, `0X${hex.toUpperCase()}`]) {
      assert.deepEqual(parseAddress('pos', form), { ok: true, address: `Q${hex}` });
    }
  });

  for (const bad of ['', `Q${hex}0`, `Q${hex.slice(1)}`, `X${hex}`, `0x${hex.slice(0, -1)}g`, hex, `Qx${hex}`]) {
    it(`rejects ${JSON.stringify(bad)}`, () => assert.equal(parseAddress('pos', bad).ok, false));
  }
});
