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
      pow: '2949bfd00689dae6456c5d4bce631954c93a04d7836a596344e9ac8a517ef958',
      pos: '3600f22657417f2d49ce7da216ae948e2da1819bdf3477d8efd90d0e23895002',
    },
    stream: {
      pow: 'baeab7b9706d8d400b4f1162c76d65474e5f92ade3636639cebe5e1cb889db57',
      pos: '00fdc0806709ef28946a35845a67be1932540e2d9841254603597caec26e852b',
    },
  },
  'seed 8, busier, no migration': {
    options: { seed: 8, end: END, powDays: 1.5, posDays: 1, scale: 3000, reorgEvery: 120, migrationCutover: null },
    canonical: {
      pow: 'fa61b9f524d6591a56e82b110772bf411ac3970815b0d0c9c57bd249083fadb9',
      pos: '8f2197313be8d1b6674380c553a95b8248c092c16e34a7c9a5f23d281deebbda',
    },
    stream: {
      pow: 'bcca1c67a40c1424e474a8d9ce49b0ac4dea1a93d47b9625bb3479f87de02600',
      pos: '20104ea94152dd7aa6a4618a9cdf9acfb9ec16fd445cb70ec36338db5abcd16c',
    },
  },
  'seed 3, crowded blocks, a cutover set by date': {
    options: { seed: 3, end: END, powDays: 1, posDays: 1, scale: 20_000, reorgEvery: 200, malformedEvery: 150, migrationCutover: new Date('2026-03-01T00:00:00Z') },
    canonical: {
      pow: '0af6d8b72cb6f094b955ff6d65f011bb4668765ab9231ccac0f80fef495e94a8',
      pos: 'e478d1455bab7632f5e7559672fe90263e31846c082e8c9c03e50191fc285a19',
    },
    stream: {
      pow: 'a68f5cff9ee3288c7afe35f6ebac05e3592150cad83d5846e18b49d6eea9462d',
      pos: '2921705e1b2c96d8afb9ab686988badd5d1dbf85aaf0a7b98c443b14768805ae',
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
