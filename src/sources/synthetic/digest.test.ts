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
      pow: '64d4a6f158f8b4fc7ba7c05a34284174f58f28ac95e16412e0484c50c717db4b',
      pos: 'ccadad2844e95c675cfa0362bc24bedecdf0d4080a7ace3681590ff328eebb8e',
    },
    stream: {
      pow: '550d7a436b46de03b34489dceb81ee019ed2c325ed8abdf8e423febb4c080e9a',
      pos: '7f9355b0254d16a96eb011a44b9e5624fee64c124545c12655566a8fd8f29744',
    },
  },
  'seed 8, busier, no migration': {
    options: { seed: 8, end: END, powDays: 1.5, posDays: 1, scale: 3000, reorgEvery: 120, migrationCutover: null },
    canonical: {
      pow: '872bdea7840df4137f2b915c7dc1f7301babb3c2df697c5fdc5d689146bae7b3',
      pos: '8f2197313be8d1b6674380c553a95b8248c092c16e34a7c9a5f23d281deebbda',
    },
    stream: {
      pow: 'b715bb7dada739f00f0a8378fbaa6e6ca57bdbae2ef62107d1b158e0228323e7',
      pos: '20104ea94152dd7aa6a4618a9cdf9acfb9ec16fd445cb70ec36338db5abcd16c',
    },
  },
  'seed 3, crowded blocks, a cutover set by date': {
    options: { seed: 3, end: END, powDays: 1, posDays: 1, scale: 20_000, reorgEvery: 200, malformedEvery: 150, migrationCutover: new Date('2026-03-01T00:00:00Z') },
    canonical: {
      pow: '3e6ed4ef0bf1d1750ebaf31018c68d6347b361d3d9125a7ce94c5c960c3389f1',
      pos: 'e6782758784695e90be66ba375af0fe6f208db3864b4ae35a5b5b71c2b579d4c',
    },
    stream: {
      pow: 'f87c805559caadba8cbad68d18eb12378c73b7ba2a2e167c76795ab7ecea18a5',
      pos: '6e91f7b7d302574ac37fc279a9d3fc3a15efadab07fdbe292fd76f0f4eb061d7',
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
