/**
 * The follow scenario both pos end-to-end tests run, whatever node the indexer reads (Anvil itself,
 * or the go-qrl fake in front of it): a resumed run follows the head, Anvil makes a branch, reverts
 * it and mines a longer one; the run must record exactly one reorg. The branches are made on Anvil
 * (go-qrl has no evm_ methods); `headHash` asks the node the indexer reads.
 */
import assert from 'node:assert/strict';
import type { Logger } from 'pino';
import sql from 'sql-template-tag';
import { indexPos, type IndexPosSettings } from '../../src/ingest/index-pos.ts';
import type { Store } from '../../src/store/store.ts';
import type { Anvil } from './anvil.ts';
import { driveTraffic, type Traffic } from '../fixtures/traffic.ts';
import { waitFor } from './wait-for.ts';

export async function followThroughReorg(options: {
  store: Store;
  anvil: Anvil;
  traffic: Traffic;
  settings: IndexPosSettings;
  logger: Logger;
  headHash: () => Promise<string>;
}): Promise<void> {
  const { store, anvil, traffic } = options;
  await driveTraffic(anvil, traffic, { blocks: 2, perBlock: 10, seed: 5 });
  const controller = new AbortController();
  const running = indexPos(store, { ...options.settings, follow: true, pollIntervalMs: 50 }, { logger: options.logger, signal: controller.signal });
  running.catch(() => undefined);
  const synced = async () => {
    const head = await options.headHash();
    const [tip] = await store.query<{ hash: string }>('t', sql`SELECT hash FROM blocks WHERE chain = 'pos' ORDER BY height DESC LIMIT 1`);
    return tip?.hash === head;
  };
  try {
    await waitFor(synced, 'resume');
    const snapshot = await anvil.rpc<string>('evm_snapshot');
    await driveTraffic(anvil, traffic, { blocks: 3, perBlock: 10, seed: 6 });
    await waitFor(synced, 'branch A');
    assert.equal(await anvil.rpc('evm_revert', [snapshot]), true);
    await driveTraffic(anvil, traffic, { blocks: 5, perBlock: 10, seed: 7 });
    await waitFor(synced, 'branch B');
  } finally {
    controller.abort();
  }
  const result = await running;
  assert.equal(result.reorgs, 1);
  const reorgs = await store.query<{ depth: number }>('t', sql`SELECT depth FROM reorgs WHERE chain = 'pos'`);
  assert.equal(reorgs.length, 1);
}
