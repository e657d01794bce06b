/**
 * Pins what a seed generates: a SHA-256 digest of every canonical block of each chain, and one of
 * the whole item stream (orphans, garbled answers and set-aside items included), for a few small
 * worlds. A change to the generator's code that is meant to change nothing must leave these
 * digests alone; a change that is meant to change the chains updates them and says why.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import type { ChainId } from '../../chain/chains.ts';
import type { SourceItem } from '../../chain/model.ts';
import { collect, createSyntheticWorld, type SyntheticOptions } from './index.ts';

const END = new Date('2026-03-01T12:00:00Z');

interface Pinned {
  options: SyntheticOptions;
  /** Digest of the canonical items (block or undecodable) in height order. */
  canonical: Record<ChainId, string>;
  /** Digest of every item the source yields, in order. */
  stream: Record<ChainId, string>;
}

const WORLDS: Record<string, Pinned> = {
  // The migration cutover falls 2/3 into the pos history (the default): burns on pow, mints on pos.
  'seed 7 with migrations, reorgs, garbled answers and set-aside items': {
    options: { seed: 7, end: END, powDays: 3, posDays: 2, scale: 600, reorgEvery: 250, malformedEvery: 400 },
    canonical: {
      pow: 'a54e295387e3ec3e85cd0c3216c68bbc5390a283e5f9aa9b06d89c911c0a4ace',
      pos: 'cf2362ff31927d1a0c8d346b2295b5a7a8a299c479b670433a62d0176956ba5b',
    },
    stream: {
      pow: 'bdaa2c3eacad0dec92ba0940cd239bf52668a5ac8f1f595470298a80f824f896',
      pos: 'ceaedd8a21abf3f0b77d361e652e6b854c923b9a1b568cf2a300bed185703e36',
    },
  },
  'seed 8, busier, no migration': {
    options: { seed: 8, end: END, powDays: 1.5, posDays: 1, scale: 3000, reorgEvery: 120, migrationCutover: null },
    canonical: {
      pow: 'e8bc0ff848dafddd2d0d0cc4e2c13ea1f6e426562ceb2c6ee1f1f942b0ab7553',
      pos: 'f21261cecb3c5c469a26f041bbaa3ffe162b2570e62511969976166d7e95a5ea',
    },
    stream: {
      pow: '968790d1317015ff500903480d5e5a4d54488b9560c630d1a9d20b162eb31fad',
      pos: '3bc0bffd733a69e7ef23b63a628faf2d3c5e6fe452104d825b4722ec407a4fde',
    },
  },
  'seed 3, crowded blocks, a cutover set by date': {
    options: { seed: 3, end: END, powDays: 1, posDays: 1, scale: 20_000, reorgEvery: 200, malformedEvery: 150, migrationCutover: new Date('2026-03-01T00:00:00Z') },
    canonical: {
      pow: '9316b68ac2b74af4d4309e19e46bdfd2a2ed13c74d17d031b6d54fb8d73f9d71',
      pos: '7b5b5d87d11c5706178744fa77eaadbe7662fe743767d0560795f37f27525a0a',
    },
    stream: {
      pow: '917df316d3956ddac240783607f0ce2e462c0d0b6cdc2ac306ecbc94fc9f83a8',
      pos: 'a7396cbb304adac7988aacf868d4645698c032dc806859d1d18ddb3aa1e16870',
    },
  },
};

/** JSON with sorted keys and bigints as decimal strings: independent of the order fields were set in. */
function canonicalJson(value: unknown): string {
  if (typeof value === 'bigint') return JSON.stringify(value.toString());
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'undefined';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  return `{${Object.keys(record)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`)
    .join(',')}}`;
}

function heightOf(item: SourceItem): number | null {
  if (item.kind === 'block') return item.block.height;
  if (item.kind === 'undecodable') return item.height;
  return null;
}

function digests(items: SourceItem[]): { canonical: string; stream: string } {
  const stream = createHash('sha256');
  // Orphans of heights h.. come before canonical h, so the last item at a height is the canonical one.
  const canonicalAt = new Map<number, SourceItem>();
  for (const item of items) {
    stream.update(canonicalJson(item)).update('\n');
    const height = heightOf(item);
    if (height !== null) canonicalAt.set(height, item);
  }
  const canonical = createHash('sha256');
  const heights = [...canonicalAt.keys()].sort((a, b) => a - b);
  heights.forEach((height, i) => assert.equal(height, i, 'canonical heights are contiguous from 0'));
  for (const height of heights) canonical.update(canonicalJson(canonicalAt.get(height))).update('\n');
  return { canonical: canonical.digest('hex'), stream: stream.digest('hex') };
}

describe('synthetic digest', () => {
  for (const [name, pinned] of Object.entries(WORLDS)) {
    for (const chain of ['pow', 'pos'] as const) {
      it(`${name}: ${chain} is byte for byte what it was`, async () => {
        const { canonical, stream } = digests(await collect(createSyntheticWorld(pinned.options)[chain]));
        assert.equal(canonical, pinned.canonical[chain], `${chain} canonical digest`);
        assert.equal(stream, pinned.stream[chain], `${chain} stream digest`);
      });
    }
  }
});
