import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../problem.ts';
import { createCursorCodec } from './cursor.ts';

const codec = createCursorCodec('test-secret-123');

function rejects(scope: string, token: string) {
  assert.throws(
    () => codec.decode(scope, token),
    (error: unknown) => error instanceof ApiError && error.status === 400 && error.errors?.[0]?.param === 'cursor',
  );
}

describe('cursor codec', () => {
  it('round-trips a keyset position', () => {
    const token = codec.encode('txs:Qabc:both', [123456, 7, 0]);
    assert.match(token, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    assert.deepEqual(codec.decode('txs:Qabc:both', token), [123456, 7, 0]);
  });

  it('rejects a cursor from another query', () => {
    rejects('txs:Qabc:in', codec.encode('txs:Qabc:both', [1, 2, 3]));
  });

  it('rejects a cursor made with another secret', () => {
    rejects('s', createCursorCodec('other-secret-456').encode('s', [1]));
  });

  it('rejects tampered payloads and signatures', () => {
    const token = codec.encode('s', [100, 1, 0]);
    const [payload, mac] = token.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify([999, 1, 0])).toString('base64url');
    rejects('s', `${forged}.${mac}`);
    rejects('s', `${payload}.${mac.slice(0, -2)}AA`);
    rejects('s', `${payload}.${mac}.x`);
    // Characters base64url decoding would drop: the signature's text must match, not its bytes.
    for (const extra of ['A', 'AA', 'AAAA', '_']) rejects('s', `${payload}.${mac}${extra}`);
    rejects('s', `${payload}A.${mac}`);
    rejects('s', payload);
  });

  for (const junk of ['', '.', 'abc', 'a.b', '!!!.???', 'x'.repeat(600), '%00.%00', 'eyJ9.AAAA']) {
    it(`rejects ${JSON.stringify(junk.slice(0, 20))}`, () => rejects('s', junk));
  }
});
