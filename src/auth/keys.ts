/**
 * API keys. Issued keys are stored only as SHA-256 hashes with a short prefix to recognise them;
 * keys from `QUARRY_API_KEYS` are hashed in memory. Requests are checked against hashes, so a key
 * is never compared, stored or logged in the clear.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import sql from 'sql-template-tag';
import type { Db, Store } from '../store/store.ts';

const KEY_PREFIX = 'qry_';

function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** A new random key: `qry_` and 43 base64url characters (256 bits). */
function generateKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

export interface IssuedKey {
  id: number;
  name: string;
  prefix: string;
  created_ts: number;
  revoked_ts: number | null;
}

export async function issueKey(db: Db, name: string, now = Math.floor(Date.now() / 1000)): Promise<{ key: string; record: IssuedKey }> {
  const key = generateKey();
  const [record] = await db.query<IssuedKey>(
    'keys.issue',
    sql`INSERT INTO api_keys (name, key_hash, prefix, created_ts)
        VALUES (${name}, ${hashKey(key)}, ${key.slice(0, KEY_PREFIX.length + 6)}, ${now})
        RETURNING id, name, prefix, created_ts, revoked_ts`,
  );
  return { key, record: record! };
}

export function listKeys(db: Db): Promise<IssuedKey[]> {
  return db.query<IssuedKey>('keys.list', sql`SELECT id, name, prefix, created_ts, revoked_ts FROM api_keys ORDER BY id`);
}

/** Revokes by id or by prefix; returns how many keys were revoked. */
export async function revokeKey(db: Db, idOrPrefix: string, now = Math.floor(Date.now() / 1000)): Promise<number> {
  const rows = /^\d+$/.test(idOrPrefix)
    ? await db.query('keys.revoke', sql`UPDATE api_keys SET revoked_ts = ${now} WHERE id = ${Number(idOrPrefix)} AND revoked_ts IS NULL RETURNING id`)
    : await db.query('keys.revoke', sql`UPDATE api_keys SET revoked_ts = ${now} WHERE prefix = ${idOrPrefix} AND revoked_ts IS NULL RETURNING id`);
  return rows.length;
}

/**
 * Where a valid key comes from, which sets its rate limit and what it may ask of the answer cache
 * (docs/rate-limits.md): `operator` for keys in QUARRY_API_KEYS (the deployment's own clients),
 * `issued` for keys from `quarry keys create`.
 */
export type KeyTier = 'operator' | 'issued';

export interface VerifiedKey {
  /** The key's SHA-256 in hex: its identity for rate limiting, never the key itself. */
  hash: string;
  tier: KeyTier;
}

export interface KeyVerifier {
  /** The hash of `key` when it is valid (an identity for rate limiting), otherwise null. */
  verify(key: string): string | null;
  /** The hash and tier of `key` when it is valid, otherwise null. As cheap as `verify`. */
  identify(key: string): VerifiedKey | null;
  /** Reloads the issued keys now. */
  refresh(): Promise<void>;
  close(): void;
}

/**
 * Keeps the hashes of all valid keys in memory and reloads the issued ones every `refreshMs`, so a
 * request never waits on the database and a flood of made-up keys costs one hash each. A revoked
 * key stops working within `refreshMs`.
 */
export async function createKeyVerifier(store: Store, envKeys: readonly string[], refreshMs = 5000): Promise<KeyVerifier> {
  const envHashes = envKeys.map((key) => Buffer.from(hashKey(key), 'hex'));
  let issued = new Set<string>();
  const refresh = async () => {
    const rows = await store.query<{ key_hash: string }>('keys.active', sql`SELECT key_hash FROM api_keys WHERE revoked_ts IS NULL`);
    issued = new Set(rows.map((row) => row.key_hash));
  };
  await refresh();
  const timer = setInterval(() => {
    refresh().catch(() => {
      // Keep the last known set while the store is unreachable; /readyz reports the outage.
    });
  }, refreshMs);
  timer.unref();

  const identify = (key: string): VerifiedKey | null => {
    const digest = createHash('sha256').update(key, 'utf8').digest();
    const hex = digest.toString('hex');
    // Compare against every configured key so the time taken does not depend on which matched.
    let matched = false;
    for (const candidate of envHashes) matched = timingSafeEqual(candidate, digest) || matched;
    if (matched) return { hash: hex, tier: 'operator' };
    return issued.has(hex) ? { hash: hex, tier: 'issued' } : null;
  };

  return {
    verify: (key) => identify(key)?.hash ?? null,
    identify,
    refresh,
    close: () => clearInterval(timer),
  };
}
