/**
 * The pow pool reader (pool.ts) against the fake QRL node over real gRPC: a pool larger than one
 * GetLatestData answer is read page by page, highest fee first, each transaction once; the read is
 * complete unless the node's head moved or the pool shifted while it paged, and stops near its limit.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { SourceItem } from '../../chain/model.ts';
import { generatePowItems, startNodeWithChain } from '../../../test/fakes/qrl-node/world.ts';
import type { FakeQrlNode } from '../../../test/fakes/qrl-node/server.ts';
import { createQrlClient, type QrlClient } from './client.ts';
import { createQrlPoolReader, LATEST_DATA_QUANTITY } from './pool.ts';

let items: SourceItem[];
let node: FakeQrlNode;
let client: QrlClient;
const FED = 40;

before(async () => {
  items = await generatePowItems({ coinbaseOnlyShare: 0.2, days: 1, scale: 800, toHeight: 300 });
  let address: string;
  ({ node, address } = await startNodeWithChain(items.slice(0, FED + 1)));
  client = createQrlClient({ address });
  for (const item of items.slice(FED + 1)) node.submit(item);
});
after(async () => {
  client?.close();
  await node?.stop();
});

it('reads a pool of several pages, highest fee first, each transaction once: complete, with its size', async () => {
  const pool = node.poolHashes();
  assert.ok(pool.length > LATEST_DATA_QUANTITY, `${pool.length} in the pool: two pages`);
  const read = await createQrlPoolReader(client).read(5000);
  assert.deepEqual(read.txs.map((tx) => tx.hash), pool);
  assert.deepEqual([read.complete, read.poolSize], [true, pool.length]);
  const fees = read.txs.map((tx) => tx.fee!);
  assert.ok(fees.every((fee, i) => i === 0 || fee <= fees[i - 1]!), 'highest fee first');
});

it('is not complete when the node\'s head moves while it pages, nor when it stops at its limit', async () => {
  const moving: QrlClient = {
    ...client,
    async call(method, request) {
      const answer = await client.call(method, request);
      // A block arrives after the first page.
      if (method === 'GetLatestData' && request.offset === 0) node.push(items[FED + 1]!);
      return answer;
    },
  };
  const read = await createQrlPoolReader(moving).read(5000);
  assert.equal(read.complete, false);
  // A transaction the page already read leaves the pool before the next page, no block mined: the
  // next page would start one later and skip an entry.
  const leaving: QrlClient = {
    ...client,
    async call(method, request) {
      const answer = await client.call(method, request);
      if (method === 'GetLatestData' && request.offset === 0) node.dropFromPool(node.poolHashes()[0]!);
      return answer;
    },
  };
  const dropped = await createQrlPoolReader(leaving).read(5000);
  assert.equal(dropped.complete, false, 'a pool that shifted between pages');
  const capped = await createQrlPoolReader(client).read(LATEST_DATA_QUANTITY);
  assert.deepEqual([capped.txs.length, capped.complete, capped.poolSize], [LATEST_DATA_QUANTITY, false, null]);
});
