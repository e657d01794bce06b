/**
 * The fetch step alone: the item it hands on, how often and how long apart it fetches a block
 * that does not decode (the policy's textbook backoff: at once, then `delayMs` doubled up to
 * `maxDelayMs`), and the stall it asks for when the block stays bad or the source halts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Writable } from 'node:stream';
import pino from 'pino';
import { SourceHaltError, type BlockSource, type SourceItem } from '../../chain/model.ts';
import { randomChain } from '../../../test/support/random-chain.ts';
import { IngestError } from './context.ts';
import { fetchItem, type FetchContext } from './fetch.ts';

const chain = randomChain('pos', 51, 8);
const bad = (height: number, error: string): SourceItem => ({ kind: 'undecodable', chain: 'pos', height, error, payload: { error } });

/** A source that yields `items`, and answers `blockAt(height)` with the next of `refetches`. */
function source(items: SourceItem[], refetches: (SourceItem | null)[] = []): BlockSource & { asked: number[] } {
  const asked: number[] = [];
  return {
    chain: 'pos',
    name: 'test',
    asked,
    async *blocks() {
      yield* items;
    },
    async blockAt(height) {
      asked.push(height);
      return refetches.shift() ?? null;
    },
  };
}

/** A logger that keeps what it was given. */
function recordingLogger() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'warn' }, new Writable({ write: (chunk, _encoding, done) => (lines.push(JSON.parse(chunk.toString())), done()) }));
  return { logger, lines };
}

function context(blockSource: BlockSource, extra: Partial<FetchContext> = {}): FetchContext {
  return { chain: 'pos', source: blockSource, refetch: { attempts: 3, delayMs: 20, maxDelayMs: 30 }, log: undefined, signal: undefined, ...extra };
}

describe('the fetch step', () => {
  it('hands on blocks and caught-up marks as the source yields them, then the end', async () => {
    const items: SourceItem[] = [{ kind: 'block', block: chain.blocks[0]! }, { kind: 'caught-up' }, { kind: 'block', block: chain.blocks[1]! }];
    const iterator = source(items).blocks(0)[Symbol.asyncIterator]();
    const ctx = context(source([]));
    assert.deepEqual(await fetchItem(ctx, iterator), { kind: 'block', block: chain.blocks[0] });
    assert.deepEqual(await fetchItem(ctx, iterator), { kind: 'caught-up' });
    assert.equal(((await fetchItem(ctx, iterator)) as { block: { hash: string } }).block.hash, chain.blocks[1]!.hash);
    assert.deepEqual(await fetchItem(ctx, iterator), { kind: 'end' });
  });

  it('fetches a block that does not decode again, at once and then with doubling waits, until it decodes', async () => {
    const blockSource = source([bad(3, 'first')], [bad(3, 'second'), bad(3, 'third'), { kind: 'block', block: chain.blocks[3]! }]);
    const { logger, lines } = recordingLogger();
    const started = performance.now();
    const item = await fetchItem(context(blockSource, { log: logger }), blockSource.blocks(0)[Symbol.asyncIterator]());
    const waited = performance.now() - started;
    assert.deepEqual(item, { kind: 'block', block: chain.blocks[3] });
    assert.deepEqual(blockSource.asked, [3, 3, 3]);
    // Attempt 1 at once, 2 after delayMs (20), 3 after twice that capped at maxDelayMs (30); each names the last error.
    assert.deepEqual(lines.map((l) => [l.attempt, l.delayMs, l.err]), [[1, 0, 'first'], [2, 20, 'second'], [3, 30, 'third']]);
    assert.ok(waited >= 49, `waited ${waited} ms, at least 20 + 30`);
  });

  it('asks for a stall at the block that stays bad, with its last error and payload', async () => {
    const blockSource = source([bad(5, 'a')], [bad(5, 'b'), null, bad(5, 'c')]);
    const item = await fetchItem(context(blockSource, { refetch: { attempts: 3, delayMs: 1, maxDelayMs: 1 } }), blockSource.blocks(0)[Symbol.asyncIterator]());
    assert.deepEqual(item, { kind: 'stall', height: 5, reason: 'block 5 does not decode: c', payload: { error: 'c' } });
    assert.deepEqual(blockSource.asked, [5, 5, 5], 'every attempt the policy allows');
  });

  it('asks for a stall at once when the source cannot fetch a block again', async () => {
    const { blockAt: _blockAt, ...withoutBlockAt } = source([bad(2, 'x')]);
    const item = await fetchItem(context(withoutBlockAt), withoutBlockAt.blocks(0)[Symbol.asyncIterator]());
    assert.deepEqual(item, { kind: 'stall', height: 2, reason: 'block 2 does not decode: x', payload: { error: 'x' } });
  });

  it('asks for a stall where a source halts', async () => {
    const halting: BlockSource = {
      chain: 'pos',
      name: 'archive',
      async *blocks() {
        yield { kind: 'block', block: chain.blocks[0]! };
        throw new SourceHaltError(1, 'shard 1 fails its checks');
      },
    };
    const iterator = halting.blocks(0)[Symbol.asyncIterator]();
    const ctx = context(halting);
    assert.equal((await fetchItem(ctx, iterator)).kind, 'block');
    assert.deepEqual(await fetchItem(ctx, iterator), { kind: 'stall', height: 1, reason: 'shard 1 fails its checks', payload: null });
  });

  it('stops when the run is stopped during a wait, and refuses a block of another chain', async () => {
    const controller = new AbortController();
    const blockSource = source([bad(4, 'x')], [bad(4, 'y'), bad(4, 'z')]);
    const started = performance.now();
    setTimeout(() => controller.abort(), 50);
    const item = await fetchItem(context(blockSource, { refetch: { attempts: 5, delayMs: 60_000, maxDelayMs: 60_000 }, signal: controller.signal }), blockSource.blocks(0)[Symbol.asyncIterator]());
    assert.deepEqual(item, { kind: 'stopped' });
    assert.ok(performance.now() - started < 30_000, 'the wait ends with the signal');
    assert.deepEqual(blockSource.asked, [4], 'no fetch after the stop');

    const pow = randomChain('pow', 52, 2).blocks[1]!;
    const wrong = source([{ kind: 'block', block: pow }]);
    await assert.rejects(fetchItem(context(wrong), wrong.blocks(0)[Symbol.asyncIterator]()), (error: unknown) => error instanceof IngestError && /yielded a pow block to the pos pipeline/.test(error.message));
  });
});
