/**
 * Pins what a seed generates: a SHA-256 digest of every canonical block of each chain, and one of
 * the whole item stream (orphans, undecodable items and dead letters included), for a few small
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
  'seed 7 with migrations, reorgs and undecodable items': {
    options: { seed: 7, end: END, powDays: 3, posDays: 2, scale: 600, reorgEvery: 250, malformedEvery: 400 },
    canonical: {
      pow: '7f5cab141f6466a78bb9d4ab1f878ef7a3e3a9c31a2712021019ee8f88e95b8c',
      pos: '77c7da8be83385d3eb6f73510d7f178cebcf402179773fd292dfd486f9ec1266',
    },
    stream: {
      pow: '4b3a6b61d696ea32908403ac0ec703a784fc12ad00c1a6f72e0d0f9f31436f03',
      pos: '5f00c8adaecf45538d20938f31cb1201b8229c3ccdbfad2e2865182853330199',
    },
  },
  'seed 8, busier, no migration': {
    options: { seed: 8, end: END, powDays: 1.5, posDays: 1, scale: 3000, reorgEvery: 120, migrationCutover: null },
    canonical: {
      pow: '37f99c4190b5e7751b66a840a22a3197c6306ddf8891172854ed2b0f596dbd54',
      pos: 'a896a8b9d5720820454f5a1ed500813d3c47802d504756b7aa7ddbf44e941d6f',
    },
    stream: {
      pow: '6c44871cfd130de5fe0c84d7a521ff8a0fb12ce289c835c483a8bcfb506e6c4a',
      pos: 'f08cc634c10ca97aee52f44d55d0b8c4c69b167b29aadc5f3f83426c8388ae7e',
    },
  },
  'seed 3, crowded blocks, a cutover set by date': {
    options: { seed: 3, end: END, powDays: 1, posDays: 1, scale: 20_000, reorgEvery: 200, malformedEvery: 150, migrationCutover: new Date('2026-03-01T00:00:00Z') },
    canonical: {
      pow: '47d64b5f057db5b81acff04197a0af890513ed0dcb942690888847b656a078c3',
      pos: 'f5aa2ba8b7e1c49d90e2b7d60b2305433e1ff18aef888e32ae0ed5ba57e87f68',
    },
    stream: {
      pow: 'e374fa568aa1291d975875c9bcc908eced1d7246393ad01a506b79d52fd0ce5f',
      pos: 'df7115261df69ab02b5c2ccc05fc0f7b8bcd38c0a47f9509d812e5a11444b692',
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
