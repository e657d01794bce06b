/**
 * Opaque cursors: base64url of a keyset position, with a MAC that binds it to the query it came
 * from. A cursor that was altered, or is replayed against another query, is a 400.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { invalidParam } from '../problem.ts';

type CursorPosition = readonly (string | number)[];

export interface CursorCodec {
  encode(scope: string, position: CursorPosition): string;
  /** Returns the position, or throws a 400 naming `cursor`. */
  decode(scope: string, token: string): CursorPosition;
}

const MAC_BYTES = 12;

export function createCursorCodec(secret: string): CursorCodec {
  const mac = (scope: string, payload: string) =>
    createHmac('sha256', secret).update(scope).update('\u0000').update(payload).digest().subarray(0, MAC_BYTES);

  return {
    encode(scope, position) {
      const payload = Buffer.from(JSON.stringify(position)).toString('base64url');
      return `${payload}.${mac(scope, payload).toString('base64url')}`;
    },
    decode(scope, token) {
      const invalid = () => invalidParam('cursor', 'is not a cursor returned by this query; pass next_cursor back unchanged');
      if (token.length > 512) throw invalid();
      const [payload, signature, extra] = token.split('.');
      if (!payload || !signature || extra !== undefined) throw invalid();
      if (!/^[A-Za-z0-9_-]+$/.test(payload) || !/^[A-Za-z0-9_-]+$/.test(signature)) throw invalid();
      // Compared as text: base64url decoding ignores stray trailing bits and characters, so a
      // signature with a character added would decode to the same bytes.
      const given = Buffer.from(signature);
      const expected = Buffer.from(mac(scope, payload).toString('base64url'));
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
      let position: unknown;
      try {
        position = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      } catch {
        throw invalid();
      }
      if (!Array.isArray(position) || !position.every((part) => typeof part === 'string' || Number.isSafeInteger(part))) {
        throw invalid();
      }
      return position as CursorPosition;
    },
  };
}
