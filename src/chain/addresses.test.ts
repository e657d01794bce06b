import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { parseAddress, powAddressFromParts, powTreeHeight } from './addresses.ts';

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
