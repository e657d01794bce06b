/**
 * The pow key routes against a fake QRL node: a generated chain with slaves, deliberate one-time
 * key reuses and multi-signature addresses (spends executed, expired and open, approvals withdrawn)
 * served over gRPC in the node's messages and indexed by `quarry index pow`. For every address that
 * signed, GET /pow/addresses/{address}/ots equals the node's GetOTS (its bitfield and next unused
 * index) and the signatures of the node's blocks (counts and reuses); for every multi-signature
 * address, /multisig and /multisig/spends equal GetMultiSigAddressState and each spend's
 * GetVoteStats, and the blocks' multisig bodies.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, it } from 'node:test';
import { pino } from 'pino';
import { powAddressFromParts } from '../../../src/chain/addresses.ts';
import type { CanonicalBlock, CanonicalTx, MultiSigCreate, MultiSigSpend, SourceItem } from '../../../src/chain/model.ts';
import { resolveIndexPowSettings } from '../../../src/cli/commands/index-pow.ts';
import { indexPow } from '../../../src/ingest/index-pow.ts';
import { AUTH } from '../../support/app.ts';
import { describeSeededApp } from '../../support/seeded-app.ts';
import type { FakeQrlNode } from '../../fakes/qrl-node/server.ts';
import { createStateClient, type StateClient } from '../../fakes/qrl-node/state-client.ts';
import { generatePowItems, startNodeWithChain } from '../../fakes/qrl-node/world.ts';

const silent = pino({ level: 'silent' });
const PAGE = 8192;
const iso = (ts: number) => new Date(ts * 1000).toISOString().slice(0, 19);
const bytesOf = (address: string) => Buffer.from(address.slice(1), 'hex');
const hexOf = (b: Uint8Array) => Buffer.from(b).toString('hex');

interface World {
  node: FakeQrlNode;
  address: string;
  blocks: CanonicalBlock[];
  client: StateClient;
}

/** The node's canonical blocks (their node views): the last block yielded at each height, in height order. */
function canonicalBlocks(views: SourceItem[]): CanonicalBlock[] {
  const at = new Map<number, CanonicalBlock>();
  for (const v of views) {
    if (v.kind !== 'block') continue;
    at.set(v.block.height, v.block);
    for (const h of [...at.keys()]) if (h > v.block.height) at.delete(h);
  }
  return [...at.values()].sort((a, b) => a.height - b.height);
}

let world: Promise<World> | undefined;
function startWorld(): Promise<World> {
  return (world ??= (async () => {
    const items = await generatePowItems({ multiSig: 3, otsReuses: 4 });
    const { node, address, views } = await startNodeWithChain(items);
    return { node, address, blocks: canonicalBlocks(views), client: createStateClient(address) };
  })());
}
after(async () => {
  const w = await world;
  w?.client.close();
  await w?.node.stop();
});

/** Each signature of the blocks under the address whose key made it (the slave's own for a slave), in chain order. */
function signaturesByKey(blocks: CanonicalBlock[]): Map<string, { tx: CanonicalTx; block: CanonicalBlock }[]> {
  const out = new Map<string, { tx: CanonicalTx; block: CanonicalBlock }[]>();
  for (const block of blocks) {
    for (const tx of block.transactions) {
      if (tx.otsIndex === null) continue;
      const key = tx.signer ?? tx.from;
      let list = out.get(key);
      if (!list) out.set(key, (list = []));
      list.push({ tx, block });
    }
  }
  return out;
}

function popcount(pages: { ots_bitfield: Uint8Array[] }[]): number {
  let n = 0;
  for (const page of pages) for (const entry of page.ots_bitfield) for (let b = entry[0] ?? 0; b > 0; b >>= 1) n += b & 1;
  return n;
}

describeSeededApp(
  'pow one-time keys and multi-signature addresses against a fake QRL node',
  async (store) => {
    const w = await startWorld();
    await indexPow(store, { ...resolveIndexPowSettings({ node: w.address, progress: false }, {}) }, { logger: silent });
    return w;
  },
  (s) => {
    const get = async (path: string, status = 200) => {
      const res = await s.t().app.inject({ url: `/api/v1/pow/addresses/${path}`, headers: AUTH });
      assert.equal(res.statusCode, status, `${path}: ${res.body.slice(0, 300)}`);
      return res.json();
    };

    it('/ots equals GetOTS and the blocks\' signatures for every address that signed, slaves and reuses included', async () => {
      const { blocks, client } = s.seeded();
      const byKey = signaturesByKey(blocks);
      const slaves = [...byKey.values()].filter((list) => list.some(({ tx }) => tx.signer !== null));
      assert.ok(slaves.length >= 3, `${slaves.length} slaves signed`);
      let reusedSeen = 0;
      const check = async ([address, signatures]: [string, { tx: CanonicalTx; block: CanonicalBlock }[]]) => {
        const raw = bytesOf(address);
        const height = (raw[1]! & 0x0f) << 1;
        const keys = 2 ** height;
        const pages = Math.ceil(keys / PAGE);
        const onNode = await client.call('GetOTS', { address: raw, page_from: 1, page_count: pages, unused_ots_index_from: 0 });
        const body = await get(`${address}/ots`);
        // The node answers pages 1 to 2^h / 8192 + 1; the tree's own are the first `pages`.
        assert.equal(onNode.ots_bitfield_by_page.length, Math.min(pages, Math.floor(keys / PAGE) + 1), address);
        assert.equal(body.page.bitfield, hexOf(Buffer.concat(onNode.ots_bitfield_by_page[0].ots_bitfield)), `bitfield of ${address}`);
        assert.equal(body.next_unused_index, onNode.unused_ots_index_found ? Number(onNode.next_unused_ots_index) : null, `next unused index of ${address}`);
        const used = popcount(onNode.ots_bitfield_by_page);
        assert.equal(body.keys_used, used, `keys used by ${address}`);
        assert.equal(body.keys_left, keys - used);
        assert.equal(body.keys_total, keys);
        assert.equal(body.tree_height, height);
        assert.equal(body.pages, pages);
        // From the blocks: every signature, and the indexes signed with more than once.
        const byIndex = new Map<number, typeof signatures>();
        for (const sig of signatures) byIndex.set(sig.tx.otsIndex!, [...(byIndex.get(sig.tx.otsIndex!) ?? []), sig]);
        const reuses = [...byIndex.entries()]
          .filter(([, list]) => list.length > 1)
          .sort(([a], [b]) => a - b)
          .map(([ots, list]) => ({
            ots_index: ots,
            uses: list.length,
            transactions: list.map(({ tx, block }) => ({ tx_hash: tx.hash, height: block.height, tx_index: tx.index, timestamp: iso(block.timestamp), tx_type: tx.type })),
          }));
        assert.equal(body.signatures, signatures.length, `signatures of ${address}`);
        assert.equal(body.keys_used, byIndex.size);
        assert.equal(body.highest_used_index, Math.max(...byIndex.keys()));
        assert.equal(body.reused_keys, reuses.length);
        assert.deepEqual(body.reuses, reuses, `reuses of ${address}`);
        reusedSeen += reuses.length;
        // The page as runs of consecutive indexes.
        const indexes = [...byIndex.keys()].filter((i) => i < PAGE).sort((a, b) => a - b);
        assert.equal(body.page.keys_used, indexes.length);
        assert.deepEqual(body.page.used.flatMap((r: { first: number; last: number }) => Array.from({ length: r.last - r.first + 1 }, (_, k) => r.first + k)), indexes);
      };
      // A few at a time: the node and the app answer concurrently.
      const all = [...byKey];
      for (let i = 0; i < all.length; i += 8) await Promise.all(all.slice(i, i + 8).map(check));
      assert.equal(reusedSeen, 4, 'the chain\'s deliberate reuses, each reported once');
      // A master's own figures leave out what its slaves signed.
      const master = [...byKey.values()].flat().find(({ tx }) => tx.signer !== null)!.tx.from;
      assert.equal((await get(`${master}/ots`)).signatures, byKey.get(master)?.length ?? 0);
    });

    it('/ots pages past the first, an address that never signed, and what has no keys', async () => {
      const { blocks, client } = s.seeded();
      const tall = [...signaturesByKey(blocks).keys()].find((a) => ((bytesOf(a)[1]! & 0x0f) << 1) >= 14)!;
      assert.ok(tall, 'a signer with a tree of height 14 or more');
      const onNode = await client.call('GetOTS', { address: bytesOf(tall), page_from: 2, page_count: 1, unused_ots_index_from: 0 });
      const second = await get(`${tall}/ots?page=2`);
      assert.equal(second.page.number, 2);
      assert.equal(second.page.first_index, PAGE);
      assert.equal(second.page.bitfield, hexOf(Buffer.concat(onNode.ots_bitfield_by_page[0].ots_bitfield)));

      // Never seen: the node's default state, every key unused.
      const fresh = powAddressFromParts(Buffer.from('000400', 'hex'), createHash('sha256').update('never signed').digest());
      const freshNode = await client.call('GetOTS', { address: bytesOf(fresh), page_from: 1, page_count: 1, unused_ots_index_from: 0 });
      const body = await get(`${fresh}/ots`);
      assert.deepEqual([body.tree_height, body.keys_total, body.keys_used, body.keys_left, body.signatures, body.next_unused_index, body.reused_keys], [8, 256, 0, 256, 0, 0, 0]);
      assert.equal(body.page.last_index, 255);
      assert.equal(body.page.bitfield, hexOf(Buffer.concat(freshNode.ots_bitfield_by_page[0].ots_bitfield)));
      assert.equal(freshNode.unused_ots_index_found, true);
      assert.equal(Number(freshNode.next_unused_ots_index), 0);

      const msAddress = blocks.flatMap((b) => b.transactions).find((tx) => tx.multiSig?.kind === 'create')!.multiSig as MultiSigCreate;
      // The node has no keys for a multi-signature address either: its GetOTS answers nothing.
      const msNode = await client.call('GetOTS', { address: bytesOf(msAddress.address), page_from: 1, page_count: 1, unused_ots_index_from: 0 });
      assert.deepEqual([msNode.ots_bitfield_by_page.length, msNode.unused_ots_index_found], [0, false]);
      const noKeys = await get(`${msAddress.address}/ots`, 404);
      assert.match(noKeys.detail, /multi-signature address/);
      await get(`Q${'0'.repeat(64)}/ots`, 404);
      assert.equal((await get(`${fresh}/ots?page=2`, 400)).errors[0].param, 'page');
      assert.equal((await get(`${fresh}/ots?page=0`, 400)).errors[0].param, 'page');
      assert.equal((await get(`${fresh.slice(0, -1)}/ots`, 400)).errors[0].param, 'address');
      const pos = await s.t().app.inject({ url: `/api/v1/pos/addresses/Q${'1'.repeat(40)}/ots`, headers: AUTH });
      assert.equal(pos.statusCode, 404);
    });

    it('/multisig equals GetMultiSigAddressState for every multi-signature address', async () => {
      const { blocks, client, node } = s.seeded();
      const creates = blocks.flatMap((b) => b.transactions.filter((tx) => tx.multiSig?.kind === 'create').map((tx) => ({ tx, block: b })));
      assert.equal(creates.length, 3);
      for (const { tx, block } of creates) {
        const create = tx.multiSig as MultiSigCreate;
        const { state } = await client.call('GetMultiSigAddressState', { address: bytesOf(create.address) });
        const body = await get(`${create.address}/multisig`);
        assert.equal(body.address, create.address);
        assert.equal(hexOf(state.creation_tx_hash), body.created.tx_hash);
        assert.deepEqual(body.created, { tx_hash: tx.hash, height: block.height, timestamp: iso(block.timestamp), creator: tx.from });
        assert.deepEqual(body.signatories, state.signatories.map((sig: Uint8Array, i: number) => ({ address: 'Q' + hexOf(sig), weight: state.weights[i] })));
        assert.equal(body.threshold, state.threshold);
        assert.equal(body.total_weight, state.weights.reduce((a: number, b: number) => a + b, 0));
        assert.equal(body.balance, state.balance, `balance of ${create.address} by the node's rules`);
        assert.equal(body.spends.total, Number(state.multi_sig_spend_count));
        // Each spend's state from its GetVoteStats and the node's tip.
        const spendHashes = blocks.flatMap((b) => b.transactions).filter((t) => t.multiSig?.kind === 'spend' && (t.multiSig as MultiSigSpend).multiSigAddress === create.address).map((t) => t.hash);
        const counts = { total: spendHashes.length, open: 0, executed: 0, expired: 0 };
        for (const hash of spendHashes) {
          const { vote_stats: v } = await client.call('GetVoteStats', { multi_sig_spend_tx_hash: Buffer.from(hash, 'hex') });
          counts[v.executed ? 'executed' : Number(v.expiry_block_number) <= node.height ? 'expired' : 'open']++;
        }
        assert.deepEqual(body.spends, counts);
      }
    });

    it('/multisig/spends pages each address\'s spends newest first, each equal to its GetVoteStats and its block', async () => {
      const { blocks, client } = s.seeded();
      const txs = blocks.flatMap((b) => b.transactions.map((tx) => ({ tx, block: b })));
      const seen = { open: 0, executed: 0, expired: 0, unvotes: 0 };
      for (const { tx } of txs.filter(({ tx }) => tx.multiSig?.kind === 'create')) {
        const address = (tx.multiSig as MultiSigCreate).address;
        const items = [];
        let cursor: string | null = null;
        do {
          const page: { items: unknown[]; next_cursor: string | null; total: number } = await get(`${address}/multisig/spends?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
          items.push(...page.items);
          cursor = page.next_cursor;
        } while (cursor);
        const spends = txs.filter(({ tx: t }) => t.multiSig?.kind === 'spend' && (t.multiSig as MultiSigSpend).multiSigAddress === address).reverse();
        assert.equal(items.length, spends.length);
        for (const [i, { tx: spend, block }] of spends.entries()) {
          const item = items[i] as Record<string, any>;
          const body = spend.multiSig as MultiSigSpend;
          const { vote_stats: v } = await client.call('GetVoteStats', { multi_sig_spend_tx_hash: Buffer.from(spend.hash, 'hex') });
          assert.equal(item.tx_hash, spend.hash);
          assert.deepEqual([item.height, item.timestamp, item.proposer, item.expiry_height], [block.height, iso(block.timestamp), spend.from, Number(v.expiry_block_number)]);
          assert.deepEqual(item.recipients, body.recipients.map((r) => ({ to_addr: r.to, amount: r.amount.toString() })));
          assert.equal(item.total, body.recipients.reduce((sum, r) => sum + r.amount, 0n).toString());
          assert.equal(item.approved_weight, Number(v.total_weight), `approved weight of ${spend.hash}`);
          assert.equal(item.status === 'executed', v.executed, `execution of ${spend.hash}`);
          assert.deepEqual(
            item.signatories.map((g: { address: string; approves: boolean; vote_tx: string | null }) => [g.address, g.approves, g.vote_tx]),
            v.signatories.map((sig: Uint8Array, k: number) => ['Q' + hexOf(sig), !v.unvotes[k], v.tx_hashes[k].length === 0 ? null : hexOf(v.tx_hashes[k])]),
          );
          const votes = txs.filter(({ tx: t }) => t.multiSig?.kind === 'vote' && t.multiSig.sharedKey === spend.hash);
          assert.deepEqual(
            item.votes.map((x: { tx_hash: string; voter: string; unvote: boolean; counted: boolean }) => [x.tx_hash, x.voter, x.unvote, x.counted]),
            votes.map(({ tx: t }) => [t.hash, t.from, t.multiSig?.kind === 'vote' && t.multiSig.unvote, true]),
          );
          assert.equal(item.vote_count, votes.length);
          if (item.status === 'executed') assert.ok(votes.some(({ tx: t }) => t.hash === item.executed_by.tx_hash));
          else assert.equal(item.executed_by, null);
          seen[item.status as 'open' | 'executed' | 'expired']++;
          seen.unvotes += item.votes.filter((x: { unvote: boolean }) => x.unvote).length;
        }
        // The status filter keeps the same items, in the same order.
        const executed = await get(`${address}/multisig/spends?status=executed&limit=100`);
        assert.deepEqual(executed.items, items.filter((x) => (x as { status: string }).status === 'executed'));
        assert.equal(executed.total, executed.items.length);
        assert.equal(executed.status, 'executed');
      }
      for (const [what, n] of Object.entries(seen)) assert.ok(n > 0, `the chain has ${what} spends or votes (${n})`);
    });

    it('/multisig answers 404 for an address no create made, and 400 for a malformed one', async () => {
      const { blocks } = s.seeded();
      const signer = blocks.flatMap((b) => b.transactions).find((tx) => tx.otsIndex !== null)!.from;
      await get(`${signer}/multisig`, 404);
      await get(`${signer}/multisig/spends`, 404);
      const never = powAddressFromParts(Buffer.from('110000', 'hex'), createHash('sha256').update('never created').digest());
      await get(`${never}/multisig`, 404);
      assert.equal((await get(`${never.slice(0, 40)}/multisig`, 400)).errors[0].param, 'address');
      assert.equal((await get(`${never}/multisig/spends?status=pending`, 400)).errors[0].param, 'status');
    });
  },
);
