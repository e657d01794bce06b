/**
 * A bech32 encoder for tests, BIP-173 written out (its reference polymod, 8-to-5-bit regrouping with
 * zero padding), so that test encodings do not come from the code under test (src/chain/addresses.ts
 * decodes with @scure/base). `constant` 1 is bech32, 0x2bc830a3 bech32m (BIP-350).
 */
const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
function polymod(values: number[]): number {
  const generator = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];
  let chk = 1;
  for (const v of values) {
    const top = chk >>> 25;
    chk = (((chk & 0x1ffffff) << 5) ^ v) >>> 0;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk = (chk ^ generator[i]!) >>> 0;
  }
  return chk;
}
function toFiveBits(bytes: Uint8Array): number[] {
  let bits = '';
  for (const b of bytes) bits += b.toString(2).padStart(8, '0');
  bits = bits.padEnd(Math.ceil(bits.length / 5) * 5, '0');
  return bits.match(/.{5}/g)!.map((g) => parseInt(g, 2));
}
export function bech32Encode(hrp: string, bytes: Uint8Array, constant = 1): string {
  const data = toFiveBits(bytes);
  const expanded = [...[...hrp].map((c) => c.charCodeAt(0) >> 5), 0, ...[...hrp].map((c) => c.charCodeAt(0) & 31)];
  const mod = polymod([...expanded, ...data, 0, 0, 0, 0, 0, 0]) ^ constant;
  const checksum = [0, 1, 2, 3, 4, 5].map((i) => (mod >>> (5 * (5 - i))) & 31);
  return hrp + '1' + [...data, ...checksum].map((d) => CHARSET[d]).join('');
}
